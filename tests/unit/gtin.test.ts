import { describe, expect, it } from "vitest";
import { checkDigit, parseGtin } from "../../shared/gtin.js";

describe("parseGtin", () => {
  it.each([
    ["4006381333931", "ean13", "04006381333931"],
    ["EAN: 4006381333931", "ean13", "04006381333931"],
    ["ean-13 4006381333931", "ean13", "04006381333931"],
    ["EAN134006381333931", "ean13", "04006381333931"],
    ["036000291452", "upca", "00036000291452"],
    ["UPC: 0 36000 29145 2", "upca", "00036000291452"],
    ["UPC-A 036000291452", "upca", "00036000291452"],
    ["96385074", "gtin8", "00000096385074"],
    ["(96385074)", "gtin8", "00000096385074"],
    ["978-0-306-40615-7", "isbn13", "09780306406157"],
    ["ISBN-13: 978-0-306-40615-7", "isbn13", "09780306406157"],
    ["9790260000438", "ean13", "09790260000438"],
    ["10036000291459", "gtin14", "10036000291459"],
    ["gtin14: 1003-6000-2914-59", "gtin14", "10036000291459"],
    ["  4006381333931 -", "ean13", "04006381333931"],
  ])("%s is a %s", (text, kind, gtin14) => {
    expect(parseGtin(text)).toMatchObject({ ok: true, kind, gtin14 });
  });

  it("keeps the digits as written and the GTIN-14 form to compare", () => {
    expect(parseGtin("UPC 036000291452")).toEqual({ ok: true, kind: "upca", digits: "036000291452", gtin14: "00036000291452" });
  });

  it.each([
    ["4006381333932", /wrong check digit: 2, expected 1/],
    ["036000291453", /wrong check digit/],
    ["96385075", /wrong check digit/],
    ["0-306-40615-2", /wrong length: 10 digits/],
    ["40063813339", /wrong length: 11 digits/],
    ["4006381333931123", /wrong length: 16/],
    ["AB-4006381333931", /not digits/],
    ["SKU 4006381333931", /not digits/],
    ["40063X1333931", /not digits/],
    ["00000000", /all zeros/],
    ["", /no digits/],
    ["EAN:", /no digits/],
  ])("%s is refused: %s", (text, reason) => {
    const result = parseGtin(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it("computes the GS1 check digit from the right", () => {
    expect(checkDigit("400638133393")).toBe(1);
    expect(checkDigit("03600029145")).toBe(2);
    expect(checkDigit("9638507")).toBe(4);
  });
});
