/**
 * How likely two records are the same product. Identifiers decide first: one GTIN is one product and two GTINs two;
 * the same brand with the same MPN is one product. Otherwise a logistic model over what the pair shares — model codes,
 * the name's words weighed by rarity, the sentence encoder's similarity, the brand — whose weights are fitted
 * (bench/fit-matching.ts) and live in settings.json.
 */
import type { MatchKeys } from "./keys.js";
import type { MatchFeature, MatchSettings } from "./settings.js";

export type MatchFeatures = Record<MatchFeature, number>;

/** How rare a word is in the catalog: the inverse document frequency the name's cosine weighs words by. */
export type Idf = (word: string) => number;

export type PairVerdict =
  | { rule: "gtin" | "gtin_differs" | "brand_mpn" | "brands_differ"; probability: number }
  | { rule: "score"; probability: number; features: MatchFeatures };

/** An idf over a set of records' words (the bench's, or a part of the catalog's). */
export function idfOver(records: readonly MatchKeys[]): Idf {
  const df = new Map<string, number>();
  for (const record of records) for (const word of new Set(record.words)) df.set(word, (df.get(word) ?? 0) + 1);
  const n = records.length;
  return (word) => Math.log((n + 1) / ((df.get(word) ?? 0) + 1)) + 1;
}

function nameCosine(a: readonly string[], b: readonly string[], idf: Idf): number {
  const weigh = (words: readonly string[]) => {
    const out = new Map<string, number>();
    for (const word of words) out.set(word, (out.get(word) ?? 0) + idf(word));
    return out;
  };
  const wa = weigh(a);
  const wb = weigh(b);
  let dot = 0;
  for (const [word, weight] of wa) dot += weight * (wb.get(word) ?? 0);
  const norm = (w: Map<string, number>) => Math.hypot(...w.values());
  const denominator = norm(wa) * norm(wb);
  return denominator === 0 ? 0 : dot / denominator;
}

function vectorCosine(a: readonly number[] | null, b: readonly number[] | null): number {
  if (!a || !b || a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** Whether one code is the other with a suffix of at most `extra` characters (a colour: "DDW1805WH", "DDW1805W"). */
function prefixOf(a: string, b: string, settings: MatchSettings): boolean {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= settings.code.strong_length && long.length - short.length <= settings.code.prefix_extra && long.startsWith(short);
}

/**
 * Whether two codes are one model number in two variants: they agree up to and past their last digit and differ only
 * in letters after it ("EL6985A" and "EL6985B", "DU1055SS" and "DU1055XTSS"; not "KXTG9342T" and "KXTG9344T").
 */
function sameStem(a: string, b: string, settings: MatchSettings): boolean {
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  const lastDigit = (code: string) => code.search(/\d[^\d]*$/);
  return common >= settings.code.strong_length && common > lastDigit(a) && common > lastDigit(b);
}

/** The brand both records are of: given by both, or given by one and written at the start of the other's name. */
function brandAgreement(a: MatchKeys, b: MatchKeys): { same: boolean; differ: boolean } {
  if (a.brand && b.brand) return { same: a.brand === b.brand, differ: a.brand !== b.brand };
  const given = a.brand ?? b.brand;
  const other = a.brand ? b : a;
  return { same: given !== null && other.nameStart.startsWith(given), differ: false };
}

/** `similarity`: the encoder's, when computed where the vectors are (the catalog); else from the keys' vectors. */
export function pairFeatures(a: MatchKeys, b: MatchKeys, idf: Idf, settings: MatchSettings, similarity?: number): MatchFeatures {
  const codesB = new Set(b.codes);
  const equal = a.codes.some((code) => codesB.has(code));
  const prefix = !equal && a.strongCodes.some((x) => b.strongCodes.some((y) => prefixOf(x, y, settings)));
  const stem = !equal && !prefix && a.strongCodes.some((x) => b.strongCodes.some((y) => sameStem(x, y, settings)));
  const brand = brandAgreement(a, b);
  return {
    code_equal: equal ? 1 : 0,
    code_prefix: prefix ? 1 : 0,
    code_stem: stem ? 1 : 0,
    code_conflict: !equal && !prefix && !stem && a.strongCodes.length > 0 && b.strongCodes.length > 0 ? 1 : 0,
    name_cosine: nameCosine(a.words, b.words, idf),
    vector_cosine: similarity ?? vectorCosine(a.vector, b.vector),
    brand_same: brand.same ? 1 : 0,
    brand_differ: brand.differ ? 1 : 0,
  };
}

export function probability(features: MatchFeatures, weights: MatchSettings["weights"]): number {
  let z = weights.bias;
  for (const [name, value] of Object.entries(features) as [MatchFeature, number][]) z += weights[name] * value;
  return 1 / (1 + Math.exp(-z));
}

export function judgePair(a: MatchKeys, b: MatchKeys, idf: Idf, settings: MatchSettings, similarity?: number): PairVerdict {
  if (a.gtin14 && b.gtin14) return a.gtin14 === b.gtin14 ? { rule: "gtin", probability: 1 } : { rule: "gtin_differs", probability: 0 };
  if (a.mpn && a.mpn === b.mpn && a.brand && a.brand === b.brand) return { rule: "brand_mpn", probability: 1 };
  // Two makers' products are two products. The labelled pairs cannot teach this (one shop there names no brand), so
  // it is a rule: brands that differ past one being the other's start ("Tripp" and "Tripp Lite") never match.
  if (a.brand && b.brand && !a.brand.startsWith(b.brand) && !b.brand.startsWith(a.brand)) return { rule: "brands_differ", probability: 0 };
  const features = pairFeatures(a, b, idf, settings, similarity);
  return { rule: "score", probability: probability(features, settings.weights), features };
}
