/**
 * Typo correction against the catalog's vocabulary (vocabulary.ts): a word
 * the catalog does not hold is corrected to the catalog's closest words — the
 * fewest edits (a letter dropped, added, replaced, or two neighbours swapped),
 * then the most products (a fifth as many when the first letter changes) — and both forms are searched. How many edits a word
 * may need grows with its length: none below four letters (too many short
 * words are one edit apart), one from four, two from eight (as Algolia's default). A word the catalog
 * holds in only a few products while a word one edit away is in many is
 * treated the same way ("rechargable" in 5 descriptions, "rechargeable" in
 * 103): catalogs carry their own misspellings. The caller decides which words
 * may be corrected at all (never numbers, codes or SKUs; see understand.ts).
 *
 * Word boundaries are typos too (what Algolia calls splitting and
 * concatenation): two query words the catalog writes as one ("soda stream",
 * SodaStream) are searched joined as well, and a word the catalog lacks or
 * holds rarely is searched split in two when both halves are catalog words
 * ("bluray", Blu-ray), and a word it holds is searched written apart as well when
 * the halves are as common ("bathrobe", Bath Robe). Retrieval reads a split as a phrase, so the halves must
 * stand side by side in a product.
 */
import { STOP_WORDS } from "./common-words.js";
import type { Vocabulary } from "./vocabulary.js";
import { anyOf, derived } from "./rules/index.js";

/** Shortest word corrected, and shortest allowed two edits. */
const ONE_EDIT_FROM = 4;
const TWO_EDITS_FROM = 8;
/** Longer words are not corrected: no shopper's word is this long, and a 512-letter one would cost a second in edits. */
const LONGEST_CORRECTED = 24;
/** Shortest word read by its consonants (`soundingAlike`): shorter ones share them with too many words. */
const SOUNDING_FROM = 5;
/** Another candidate is kept beside the best only if at least this share of the best's products hold it. */
const RUNNER_UP_SHARE = 0.25;
const MAX_CORRECTIONS = 2;
/** A word the catalog holds in at most this many products… */
const RARE_MAX_DOCS = 5;
/** …gets the word one edit away too when that one is in this many times as many products. */
const RARE_RATIO = 20;

/** Each half of a split has at least this many letters ("blu ray"), so short catalog words do not make nonsense halves. */
const SHORTEST_HALF = 3;
/** A joined word must be in this many products: one product's run-together name is no spelling of the catalog's. */
const JOINED_MIN_DOCS = 2;
/** …and this many when one of them is a letter alone: "i" and "x" are words of a query as often as parts of one. */
const LETTER_JOINED_MIN_DOCS = 5;

/**
 * How many products another reading of a word the catalog holds in `held` products must be in to be searched as
 * well: any, for a word it lacks; RARE_RATIO times as many, for one it holds rarely; none (null) for one it holds
 * commonly, which is the catalog's own word.
 */
function alternativeNeeds(held: number): number | null {
  if (held > RARE_MAX_DOCS) return null;
  return held > 0 ? RARE_RATIO * held : 1;
}

/** Every string one edit from `word` (deletions, swaps of neighbours, substitutions, insertions). */
export function singleEdits(word: string, alphabet: readonly string[]): Set<string> {
  const edits = new Set<string>();
  const letters = [...word];
  // Every prefix and suffix once (by code point, so a letter outside the BMP stays whole).
  const heads = letters.map((_, i) => letters.slice(0, i).join(""));
  heads.push(word);
  const tails = heads.map((head) => word.slice(head.length));
  for (let i = 0; i <= letters.length; i++) {
    const head = heads[i]!;
    if (i < letters.length) {
      const rest = tails[i + 1]!;
      edits.add(head + rest);
      for (const letter of alphabet) if (letter !== letters[i]) edits.add(head + letter + rest);
    }
    if (i < letters.length - 1 && letters[i] !== letters[i + 1]) edits.add(head + letters[i + 1]! + letters[i]! + tails[i + 2]!);
    for (const letter of alphabet) edits.add(head + letter + tails[i]!);
  }
  edits.delete(word);
  return edits;
}

/** Optimal string alignment distance (Damerau–Levenshtein without overlapping edits), or `max + 1` once it exceeds `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > max) return max + 1;
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** Endings that take "es" for a plural (rules/en/word-forms.json): "boxes", "dresses", "potatoes". */
const esPlural = derived(({ wordForms }) => new RegExp(`${anyOf(wordForms.esPlural)}es$`, "u"));

/**
 * How many products hold the word in another number: a plural or singular the catalog holds ("jackets" for
 * "jacket") is the same word, held as often as its commonest form.
 */
function heldAsForm(word: string, vocabulary: Vocabulary): number {
  // A word ending in "s" takes "es" for its plural: "wireles" + "s" is a typo of "wireless", not its plural.
  const forms = word.endsWith("s") ? [`${word}es`] : [`${word}s`, `${word}es`];
  if (word.endsWith("s")) forms.push(word.slice(0, -1));
  // Only what ends in a hiss or an o takes "es" ("boxes", "dresses", "potatoes"): "soes" is no plural of "so".
  if (esPlural().test(word)) forms.push(word.slice(0, -2));
  if (word.endsWith("ies")) forms.push(`${word.slice(0, -3)}y`);
  if (word.endsWith("y")) forms.push(`${word.slice(0, -1)}ies`);
  // Nor has a stop word a plural: "alls" is a typo ("golf alls"), not many "all".
  return Math.max(...forms.map((form) => (STOP_WORDS.has(form) ? 0 : vocabulary.count(form))));
}

/** How many products hold the word, in this number or another ("mens" is held where "men" is). */
export function heldCount(word: string, vocabulary: Vocabulary): number {
  return vocabulary.count(word) || heldAsForm(word, vocabulary);
}

/**
 * A correction changing the word's first letter counts as if this share of its products held it: people mistype a
 * word's first letter far less often than the rest ("sweather" is a sweater before the weather it is one edit from
 * too; Meilisearch counts such a typo twice). bench:relevance's typo copy, whose edits fall anywhere: 0.7963 at 1 (no
 * penalty) and 0.5, 0.7976 at 0.2 and 0.1, 0.7934 at 0.02.
 */
const FIRST_LETTER_SHARE = 0.2;

/**
 * How likely a correction of `word` is: the products holding it, fewer when it changes the first letter; not when it
 * swaps the first two, as fast typing does ("hcair" is a chair before hair).
 */
function likelihood(vocabulary: Vocabulary, word: string) {
  const swapped = (candidate: string) => candidate[0] === word[1] && candidate[1] === word[0];
  return (candidate: string) => vocabulary.count(candidate) * (candidate[0] === word[0] || swapped(candidate) ? 1 : FIRST_LETTER_SHARE);
}

/** Likeliest first, then in alphabetical order. */
function byWeight(weight: (candidate: string) => number) {
  return (a: string, b: string) => weight(b) - weight(a) || (a < b ? -1 : 1);
}

/**
 * The closest catalog words to `word` (lower-case letters), best first; empty when it needs none or none is close.
 * `twoEdits: false` looks one edit away only, whatever the word's length.
 */
export function corrections(word: string, vocabulary: Vocabulary, options: { twoEdits?: boolean } = {}): string[] {
  const length = [...word].length;
  if (length < ONE_EDIT_FROM || length > LONGEST_CORRECTED) return [];
  // A word the catalog lacks but holds in another number counts as held: rarely held, it still gets a far commoner
  // neighbour ("pats", the plural of "pat" in 2 products, is also searched as "pants", in hundreds).
  const held = heldCount(word, vocabulary);
  const needs = alternativeNeeds(held);
  if (needs === null) return [];
  const weight = likelihood(vocabulary, word);
  const order = byWeight(weight);
  // Never a stop word (full text drops it, so "lover" read as "over" would search nothing), nor is one the commonest
  // neighbour the others are measured against: "alls" is "balls" or "walls", not "all".
  let found = [...singleEdits(word, vocabulary.alphabet)].filter((edit) => vocabulary.count(edit) > 0 && !STOP_WORDS.has(edit)).sort(order);
  if (held > 0) {
    // Known but rare: only much commoner neighbours are worth searching as well, and the query's other words say
    // which ("yoga matt", "Matt" in a name or two, is "watt" in 100 products and "mat" in 56).
    return found.filter((candidate) => vocabulary.count(candidate) >= needs).slice(0, MAX_CORRECTIONS);
  }
  if (found.length === 0 && length >= TWO_EDITS_FROM && options.twoEdits !== false) {
    found = vocabulary
      .startingWith(word[0]!)
      .filter((candidate) => editDistance(word, candidate, 2) <= 2 && !STOP_WORDS.has(candidate))
      .sort(order);
  }
  if (options.twoEdits !== false && length >= SOUNDING_FROM) {
    // A word as long, with the same consonants, two vowels off is a misspelling one edit cannot reach: "sandles" is
    // sandals as well as handles, whichever words beside it say. Longer or shorter, it is another word ("guita" is
    // no "gut", "amepad" no "amped").
    const alike = vocabulary
      .soundingAlike(word)
      .filter(
        (candidate) =>
          [...candidate].length === length && !found.includes(candidate) && !STOP_WORDS.has(candidate) && editDistance(word, candidate, 2) <= 2,
      );
    // After the words one edit away, which are likelier: "dysen" is Dyson (2 products) before "doesn" (many).
    if (alike.length > 0) found = [...found, ...alike.sort(order)];
  }
  const top = found[0];
  if (top === undefined) return [];
  const floor = RUNNER_UP_SHARE * weight(top);
  return found.filter((candidate) => weight(candidate) >= floor).slice(0, MAX_CORRECTIONS);
}

/**
 * Of `terms` (words a synonym rule knows, which the catalog may lack: "rucksack" for its backpacks), the one closest to
 * `word` within the edits its length allows, or null when none is, or two are equally close.
 */
export function closestTerm(word: string, terms: Iterable<string>): string | null {
  const length = [...word].length;
  if (length < ONE_EDIT_FROM || length > LONGEST_CORRECTED) return null;
  const max = length >= TWO_EDITS_FROM ? 2 : 1;
  let best: { term: string; edits: number; tied: boolean } | null = null;
  for (const term of terms) {
    const edits = editDistance(word, term, max);
    if (edits > max || edits === 0) continue;
    if (!best || edits < best.edits) best = { term, edits, tied: false };
    else if (edits === best.edits) best.tied = true;
  }
  return best && !best.tied ? best.term : null;
}

/**
 * The two words as the catalog writes them, run together ("soda" "stream" → "sodastream"), or null. A letter alone
 * joins the word after it too ("x box" → xbox, "i pad" → ipad) when far more products hold the joined word; never
 * "a", which makes English of what follows ("a part" is no "apart").
 */
export function joined(left: string, right: string, vocabulary: Vocabulary): string | null {
  const letter = [...left].length === 1;
  if ((letter ? left === "a" : [...left].length < SHORTEST_HALF) || [...right].length < SHORTEST_HALF) return null;
  const word = left + right;
  return [...word].length <= LONGEST_CORRECTED && vocabulary.count(word) >= (letter ? LETTER_JOINED_MIN_DOCS : JOINED_MIN_DOCS) ? word : null;
}

/**
 * The word split into two catalog words ("bluray" → ["blu", "ray"]), when the catalog lacks it or holds it in only
 * a few products while both halves are far commoner; of several splits, the one whose rarer half is commonest.
 */
export function split(word: string, vocabulary: Vocabulary): [string, string] | null {
  const letters = [...word];
  if (letters.length < 2 * SHORTEST_HALF || letters.length > LONGEST_CORRECTED) return null;
  const least = alternativeNeeds(vocabulary.count(word));
  if (least === null) return null;
  return commonestHalves(letters, SHORTEST_HALF, least, vocabulary);
}

/**
 * Of the ways to cut `letters` in two halves of at least `shortest` letters each, both in at least `least` products,
 * the one whose rarer half is commonest; or null.
 */
function commonestHalves(letters: readonly string[], shortest: number, least: number, vocabulary: Vocabulary): [string, string] | null {
  let best: { halves: [string, string]; rarer: number } | null = null;
  for (let at = shortest; at <= letters.length - shortest; at++) {
    const halves: [string, string] = [letters.slice(0, at).join(""), letters.slice(at).join("")];
    const rarer = Math.min(vocabulary.count(halves[0]), vocabulary.count(halves[1]));
    if (rarer >= least && (!best || rarer > best.rarer)) best = { halves, rarer };
  }
  return best?.halves ?? null;
}
