/**
 * What a record is matched by, read once from it: its GTIN, its brand, the model codes its name and MPN write
 * (spelled the one way: "KX-TGA670B", "KXTGA670B" and "kx tga670b" are one code) and its name's words.
 */
import type { MatchSettings } from "./settings.js";

/** A record as the matcher sees it. `merchant` is its shop (the host of its page). */
export interface MatchInput {
  id: string;
  merchant: string;
  name: string;
  brand: string | null;
  gtin14: string | null;
  mpn: string | null;
  vector: readonly number[] | null;
}

export interface MatchKeys {
  id: string;
  merchant: string;
  gtin14: string | null;
  /** The MPN as a model code; null when the record gives none. */
  mpn: string | null;
  /** The brand without what every brand may end with ("LG Electronics" is `lg`); null when the record gives none. */
  brand: string | null;
  /** The name's first words run together ("tech craft avalon" is `techcraftavalon`): where a brand not given is read. */
  nameStart: string;
  /** Every model code the name and MPN write, with its spellings (parts around a slash, two words run together). */
  codes: string[];
  /** The codes long enough to name one product, each written as one word. */
  strongCodes: string[];
  /** The name's words and codes, for the name's cosine. */
  words: string[];
  vector: readonly number[] | null;
}

const WORD = /[a-z0-9]+/g;

export function brandKey(brand: string, settings: MatchSettings): string | null {
  const words = brand.toLowerCase().match(WORD) ?? [];
  const suffixes = new Set(settings.brand_suffixes);
  // "Speck Products" is Speck; a brand that is only such words ("Products") is kept whole.
  while (words.length > 1 && suffixes.has(words.at(-1)!)) words.pop();
  const key = words.join("");
  return key === "" ? null : key;
}

/** Reads the code written by one word ("KX-TGA670B", "DVPFX820/W"), or by two ("MDR EX55"), in all its spellings. */
export function modelCodes(text: string, settings: MatchSettings): { codes: string[]; strong: string[] } {
  const measure = new RegExp(`^\\d+(?:[.,]\\d+)?(?:${settings.units.join("|")})?$`);
  const isCode = (code: string, fromLetters: boolean) =>
    code.length >= settings.code.min_length && /\d/.test(code) && !measure.test(code) && (fromLetters || /[a-z]/.test(code) || code.length >= 5);
  const tokens = text
    .toLowerCase()
    .split(/[\s,;:()[\]"']+/)
    .map((token) => token.replace(/^[-./#]+|[-./#]+$/g, ""))
    .filter(Boolean);
  const codes = new Set<string>();
  const strong = new Set<string>();
  const squash = (token: string) => token.replace(/[^a-z0-9]/g, "");
  for (const [index, token] of tokens.entries()) {
    // "10/100" and "33-1/3" are numbers, not codes: a token joined across a slash must hold a letter.
    const whole = squash(token);
    const hasLetter = /[a-z]/.test(token);
    if ((hasLetter || !token.includes("/")) && isCode(whole, false)) {
      codes.add(whole);
      if (whole.length >= settings.code.strong_length && hasLetter) strong.add(whole);
    }
    for (const part of token.split("/").map(squash)) {
      if (part === whole || !isCode(part, false)) continue;
      codes.add(part);
      if (part.length >= settings.code.strong_length && /[a-z]/.test(part)) strong.add(part);
    }
    // A code written as two words ("MDR EX55", "SX110 IS"): one of them a short run of letters or of digits.
    const next = tokens[index + 1];
    if (next === undefined || !/^[a-z0-9/-]+$/.test(`${token}${next}`) || measure.test(whole)) continue;
    for (const after of new Set([squash(next), squash(next.split("/")[0]!)])) {
      if (![whole, after].some((w) => /^(?:[a-z]{1,4}|\d{1,4})$/.test(w)) || measure.test(after)) continue;
      if (isCode(whole + after, true)) codes.add(whole + after);
    }
  }
  return { codes: [...codes], strong: [...strong] };
}

export function matchKeys(input: MatchInput, settings: MatchSettings): MatchKeys {
  const fromName = modelCodes(input.name, settings);
  const mpn = input.mpn ? (modelCodes(input.mpn, settings).codes[0] ?? null) : null;
  const codes = [...new Set([...fromName.codes, ...(mpn ? [mpn] : [])])];
  const words = input.name.toLowerCase().match(WORD) ?? [];
  return {
    id: input.id,
    merchant: input.merchant,
    gtin14: input.gtin14,
    mpn,
    brand: input.brand ? brandKey(input.brand, settings) : null,
    nameStart: words.slice(0, 3).join(""),
    codes,
    strongCodes: [...new Set([...fromName.strong, ...(mpn ? [mpn] : [])])],
    words: [...words, ...codes],
    vector: input.vector,
  };
}

/**
 * The keys a record is found by among candidates: its GTIN, MPN and codes, and each strong code shortened by up to
 * `prefix_extra` characters, so that a code with a colour or region suffix ("DVPFX820W") finds the bare one.
 */
export function lookupKeys(keys: MatchKeys, settings: MatchSettings): string[] {
  const out = new Set<string>();
  if (keys.gtin14) out.add(`gtin:${keys.gtin14}`);
  for (const code of keys.codes) out.add(`code:${code}`);
  for (const code of keys.strongCodes) {
    for (let cut = 1; cut <= settings.code.prefix_extra && code.length - cut >= settings.code.strong_length; cut++) {
      out.add(`code:${code.slice(0, code.length - cut)}`);
    }
  }
  return [...out];
}
