import { describe, expect, it } from "vitest";
import { CURRENCY_EXPONENTS, isCurrencyCode, minorUnitExponent, toMinorUnits } from "../../shared/currency.js";

describe("ISO 4217 table", () => {
  it("knows the exponents that differ from two", () => {
    expect(minorUnitExponent("USD")).toBe(2);
    expect(minorUnitExponent("JPY")).toBe(0);
    expect(minorUnitExponent("KRW")).toBe(0);
    expect(minorUnitExponent("KWD")).toBe(3);
    expect(minorUnitExponent("CLF")).toBe(4);
    expect(minorUnitExponent("XAU")).toBeUndefined();
  });

  it("takes only upper-case three-letter codes it lists", () => {
    expect(isCurrencyCode("EUR")).toBe(true);
    expect(isCurrencyCode("eur")).toBe(false);
    expect(isCurrencyCode("toString")).toBe(false);
    for (const code of Object.keys(CURRENCY_EXPONENTS)) expect(code).toMatch(/^[A-Z]{3}$/);
  });
});

describe("toMinorUnits", () => {
  it.each([
    ["19.99", "USD", 1999],
    ["19.9", "USD", 1990],
    ["19", "USD", 1900],
    ["0.5", "EUR", 50],
    ["1000", "JPY", 1000],
    ["1.250", "KWD", 1250],
    ["34.994", "GBP", 3499],
    ["34.995", "GBP", 3500],
    ["999.999", "USD", 100000],
    ["1499.5", "JPY", 1500],
  ])("%s %s → %d", (amount, currency, units) => {
    expect(toMinorUnits(amount, currency)).toBe(units);
  });

  it("is exact where floating point is not", () => {
    expect(toMinorUnits("1.15", "USD")).toBe(115);
    expect(toMinorUnits("4.35", "USD")).toBe(435);
  });

  it.each([
    ["19.99", "XXX"],
    ["-1", "USD"],
    ["1,99", "EUR"],
    ["", "USD"],
    ["1e3", "USD"],
    ["99999999999999999", "USD"],
  ])("refuses %s %s", (amount, currency) => {
    expect(toMinorUnits(amount, currency)).toBeNull();
  });
});
