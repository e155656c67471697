import { describe, expect, it } from "vitest";
import { currencyInText, normaliseAvailability, parseAmount, priceLabel, toCurrencyCode } from "../../../server/ingest/extract/price.js";

describe("parseAmount", () => {
  it.each([
    ["79.99", null, "79.99"],
    ["$1,299.00", null, "1299"],
    ["1.299,00 €", null, "1299"],
    ["19,90 €", null, "19.90"],
    ["1 299,50 zł", null, "1299.50"],
    ["CHF 1'299.–", null, "1299"],
    ["23,450", null, "23450"],
    ["1.299 €", "EUR", "1299"],
    ["$1.299", "USD", "1.299"],
    ["1.299", "EUR", "1.299"],
    ["0.500", null, "0.50"],
    [24.5, null, "24.50"],
    ["Preis auf Anfrage", null, null],
  ] as const)("%s (%s) → %s", (raw, currency, expected) => {
    expect(parseAmount(raw, currency)).toBe(expected);
  });
});

describe("currencies", () => {
  it("maps codes and symbols to ISO 4217", () => {
    expect(toCurrencyCode("eur")).toBe("EUR");
    expect(toCurrencyCode("€")).toBe("EUR");
    expect(toCurrencyCode("zł")).toBe("PLN");
    expect(toCurrencyCode("XYZ")).toBeNull();
    expect(currencyInText("Now £18.00")).toBe("GBP");
    expect(currencyInText("R$ 99,90")).toBe("BRL");
    expect(currencyInText("1.099,00 EUR")).toBe("EUR");
    expect(currencyInText("12.00")).toBeNull();
  });
});

describe("priceLabel", () => {
  it("formats a price, a sale and a range", () => {
    expect(priceLabel({ price: "79.99", currency: "USD" })).toBe("$79.99");
    expect(priceLabel({ price: "79.99", currency: "USD", was: "99.99" })).toBe("$79.99 (was $99.99)");
    expect(priceLabel({ price: "20", currency: "USD", low: "20", high: "35" })).toBe("$20.00 – $35.00");
    expect(priceLabel({ price: "119.01", currency: "EUR" })).toBe("€119.01");
    expect(priceLabel({ price: "3500", currency: "JPY" })).toBe("¥3,500");
    expect(priceLabel({ price: "12", currency: null })).toBe("12");
    expect(priceLabel({ price: null, currency: "USD" })).toBe("");
  });
});

describe("normaliseAvailability", () => {
  it.each([
    ["https://schema.org/InStock", "InStock"],
    ["http://schema.org/OutOfStock", "OutOfStock"],
    ["schema:PreOrder", "PreOrder"],
    ["in stock", "InStock"],
    ["SOLD_OUT", "OutOfStock"],
    ["LimitedAvailability", "LimitedAvailability"],
    ["maybe", null],
  ])("%s → %s", (raw, expected) => {
    expect(normaliseAvailability(raw)).toBe(expected);
  });

  it("reads booleans", () => {
    expect(normaliseAvailability(true)).toBe("InStock");
    expect(normaliseAvailability(false)).toBe("OutOfStock");
  });
});
