import { describe, expect, it } from "vitest";
import { convertBounds, convertedText, parseExchangeRates } from "../../../server/search/exchange-rates.js";
import { RulesError } from "../../../server/search/rules/files.js";

const RATES = parseExchangeRates(JSON.stringify({ amount: 1, base: "EUR", date: "2026-11-20", rates: { USD: 1.1, SEK: 11.55, JPY: 165.2 } }), "test");

describe("parseExchangeRates", () => {
  it("reads Frankfurter's and the ECB's shape, the base at 1", () => {
    expect(RATES.date).toBe("2026-11-20");
    expect(Object.fromEntries(RATES.perBase)).toEqual({ EUR: 1, USD: 1.1, SEK: 11.55, JPY: 165.2 });
  });

  it.each([
    ["{", "not JSON"],
    ["[]", 'expected an object with "base", "date" and "rates"'],
    ['{"base":"eur","date":"2026-11-20","rates":{"USD":1.1}}', '"base" must be an ISO 4217 code in capitals, not "eur"'],
    ['{"base":"EUR","date":"20/11/2026","rates":{"USD":1.1}}', '"date" must be the rates\' day as YYYY-MM-DD, not "20/11/2026"'],
    ['{"base":"EUR","date":"2026-11-20","amount":100,"rates":{"USD":110}}', '"amount" must be 1 when given, not 100'],
    ['{"base":"EUR","date":"2026-11-20","rates":{"USD":0}}', "the rate of USD must be a positive number, not 0"],
    ['{"base":"EUR","date":"2026-11-20","rates":{"USD":"1.1"}}', 'the rate of USD must be a positive number, not "1.1"'],
    ['{"base":"EUR","date":"2026-11-20","rates":{"XYZ":1.1}}', '"rates" holds "XYZ", which is not an ISO 4217 code in capitals'],
    ['{"base":"EUR","date":"2026-11-20","rates":{}}', '"rates" is empty'],
  ])("refuses %s, naming the file and the problem", (text, problem) => {
    expect(() => parseExchangeRates(text, "FX_RATES_FILE rates.json")).toThrow(RulesError);
    expect(() => parseExchangeRates(text, "FX_RATES_FILE rates.json")).toThrow(`FX_RATES_FILE rates.json: ${problem}`);
  });
});

describe("convertBounds", () => {
  it("gives the bounds in every other currency, the lower rounded up and the upper down to its minor unit", () => {
    // $20 = 18.1818… € = 210 kr = 3003.6… ¥.
    expect(convertBounds({ currency: "USD", min: 1000, max: 2000 }, RATES)).toEqual([
      { currency: "EUR", min: 910, max: 1818 },
      { currency: "SEK", min: 10500, max: 21000 },
      { currency: "JPY", min: 1502, max: 3003 },
    ]);
  });

  it("keeps an exact bound exact despite float error, and a missing bound missing", () => {
    // 49.90 € is $54.89 exactly at 1.1; as floats, 54.89 / 1.1 is a hair under 49.9.
    expect(convertBounds({ currency: "USD", max: 5489 }, RATES)).toContainEqual({ currency: "EUR", max: 4990 });
  });

  it("converts nothing from a currency the rates lack", () => {
    expect(convertBounds({ currency: "GBP", max: 2000 }, RATES)).toEqual([]);
  });
});

describe("convertedText", () => {
  it("counts the other currencies in words that agree", () => {
    expect(convertedText("USD", 1, RATES)).toContain("Prices in 1 other currency were converted to USD");
    expect(convertedText("USD", 3, RATES)).toContain("Prices in 3 other currencies were converted to USD");
  });
});
