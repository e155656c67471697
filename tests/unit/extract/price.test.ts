import { describe, expect, it } from "vitest";
import {
  currencyInText,
  normaliseAvailability,
  parseAmount,
  parseStatedAmount,
  priceLabel,
  sharedSymbolCurrencies,
  toCurrencyCode,
} from "../../../server/ingest/extract/price.js";

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
    ["$1.299", "USD", "1299"],
    ["129.900", null, "129900"],
    ["KD 1.250", "KWD", "1.25"],
    ["0.500", null, "0.50"],
    [".75 €", null, "0.75"],
    ["35€99", null, "35.99"],
    ["Free!", null, "0"],
    [24.5, null, "24.50"],
    ["Preis auf Anfrage", null, null],
  ] as const)("%s (%s) → %s", (raw, currency, expected) => {
    expect(parseAmount(raw, currency)).toBe(expected);
  });
});

describe("parseStatedAmount", () => {
  it("takes a structured value in its format's notation as written, and anything else as text", () => {
    expect(parseStatedAmount("1.299")).toBe("1.299");
    expect(parseStatedAmount(1299)).toBe("1299");
    expect(parseStatedAmount("1.299,00 €")).toBe("1299");
    expect(parseStatedAmount(-3)).toBeNull();
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

  it("says which currencies a shared symbol may stand for, and nothing when the text is unambiguous", () => {
    expect(sharedSymbolCurrencies("$12.00")).toContain("CAD");
    expect(sharedSymbolCurrencies("$12.00")?.[0]).toBe("USD");
    expect(sharedSymbolCurrencies("129 kr")).toContain("NOK");
    expect(sharedSymbolCurrencies("US$12.00")).toBeUndefined();
    expect(sharedSymbolCurrencies("$12.00 CAD")).toBeUndefined();
    expect(sharedSymbolCurrencies("12,00 €")).toBeUndefined();
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
    ["http://schema.org/InStock/", "InStock"],
    ["//schema.org/OutOfStock", "OutOfStock"],
    ["instock", "InStock"],
    ["IN_STOCK", "InStock"],
    ["in-stock", "InStock"],
    ["out of stock", "OutOfStock"],
    ["Sold Out", "OutOfStock"],
    ["available for order", "BackOrder"],
    ["pre-order", "PreOrder"],
    ["maybe", null],
    ["", null],
  ])("%s → %s", (raw, expected) => {
    expect(normaliseAvailability(raw)).toBe(expected);
  });

  it("reads booleans", () => {
    expect(normaliseAvailability(true)).toBe("InStock");
    expect(normaliseAvailability(false)).toBe("OutOfStock");
  });
});
