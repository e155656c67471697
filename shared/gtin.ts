/**
 * GTINs as pages write them: `EAN: 4006381333931`, `978-1-56619-909-4`,
 * `0 12345 67890 5`, `(93123457)`, `gtin14: 10614141543219`. Shared so that
 * clients and the server read an identifier the same way.
 *
 * Accepted: GTIN-8, UPC-A (12 digits), EAN-13 (ISBN-13 is the EAN-13 of a
 * book, 978 and 979-1…9) and GTIN-14, each with a correct GS1 check digit. Every
 * GTIN also has a GTIN-14 form (left-padded with zeros), the one to compare.
 */

export type GtinKind = "gtin8" | "upca" | "ean13" | "isbn13" | "gtin14";

export type GtinResult = { ok: true; kind: GtinKind; digits: string; gtin14: string } | { ok: false; reason: string };

const KIND_BY_LENGTH: Record<number, GtinKind> = { 8: "gtin8", 12: "upca", 13: "ean13", 14: "gtin14" };

/** A label before the number: `EAN`, `EAN-13`, `GTIN14`, `UPC`, `ISBN-13`, `JAN`. */
const LABEL = /^(ean|gtin|upc|isbn|jan)(?:[-\s]?(8|10|12|13|14|a))?/i;

/** 14 digits, a label ("GTIN-14: "), spaces and hyphens between the digits fit many times over. */
const MAX_WRITTEN = 64;

/** Parses one GTIN from text; the reason says what is wrong when it is not one. */
export function parseGtin(text: string): GtinResult {
  const bare = text.trim();
  // Checked before the regexes below, whose `\s*` and `+$` retry from each character of a long run (issue 47).
  if (bare.length > MAX_WRITTEN) return { ok: false, reason: `too long: a GTIN is written in at most ${MAX_WRITTEN} characters` };
  const trimmed = bare.replace(/^\(\s*(.*?)\s*\)$/, "$1").replace(/[\s\-–]+$/, "");
  const label = LABEL.exec(trimmed);
  if (!label) return fromDigits(trimmed);
  // "EAN1334567890125" is label "EAN" and 13 digits, "EAN131334567890125" label "EAN13" and the same 13:
  // try the label with and without its number and keep a reading that checks out.
  const readings = [trimmed.slice(label[0].length), ...(label[2] ? [trimmed.slice(label[1]!.length)] : [])].map((rest) =>
    fromDigits(rest.replace(/^\s*[:#.\-–]?\s*/, "")),
  );
  return readings.find((reading) => reading.ok) ?? readings[0]!;
}

function fromDigits(written: string): GtinResult {
  if (written === "") return { ok: false, reason: "no digits" };
  if (!/^\d[\d\s-]*$/.test(written)) return { ok: false, reason: "not digits: a GTIN has only digits (spaces and hyphens allowed)" };
  const digits = written.replace(/[\s-]/g, "");
  const kind = KIND_BY_LENGTH[digits.length];
  if (!kind) return { ok: false, reason: `wrong length: ${digits.length} digits; a GTIN has 8, 12, 13 or 14` };
  if (/^0+$/.test(digits)) return { ok: false, reason: "all zeros: a placeholder, not a GTIN" };
  const expected = checkDigit(digits.slice(0, -1));
  if (Number(digits.at(-1)) !== expected) return { ok: false, reason: `wrong check digit: ${digits.at(-1)}, expected ${expected}` };
  // 978 and 979-1…9 are books (979-0 is printed music, an ISMN).
  const isbn = kind === "ean13" && /^(978|979[1-9])/.test(digits);
  return { ok: true, kind: isbn ? "isbn13" : kind, digits, gtin14: digits.padStart(14, "0") };
}

/** GS1 check digit: weights 3 and 1 alternating from the rightmost data digit. */
export function checkDigit(data: string): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const digit = data.charCodeAt(data.length - 1 - i) - 48;
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}
