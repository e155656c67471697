/**
 * The catalog's vocabulary in memory: each word as written (lower-cased,
 * unstemmed) and how many products hold it, read from `search_vocabulary`
 * (kept in step with the products by triggers, see db/schema.ts) and read
 * again only when an import has changed the catalog.
 *
 * Corrections are looked up here rather than with pg_trgm in the database:
 * measured on the CrowdFlower catalog (24,000 words) on PGlite, a trigram
 * nearest-neighbour query took 20–90 ms per word, and trigrams miss the
 * commonest typos in short words (a swap: "mxier" shares 2 of 10 trigrams with
 * "mixer", and "mixer" was not among the 30 nearest), while generating a
 * word's single edits and looking each up in a Map takes microseconds and
 * misses none.
 */
import { gt } from "drizzle-orm";
import { refreshedEvery } from "../cache.js";
import { perCatalogVersion } from "../catalog/repository.js";
import type { Database } from "../db/client.js";
import { searchVocabulary } from "../db/schema.js";
import { withoutAccents } from "./lexical.js";
import { anyOf, derived } from "./rules/index.js";

export interface Vocabulary {
  /** How many products hold the word (0: the catalog does not hold it). */
  count(word: string): number;
  /** The letters the catalog's words are made of, most common first: what an edit may put in. */
  readonly alphabet: readonly string[];
  /** Words starting with `letter`, for the rare scans that single edits cannot answer. */
  startingWith(letter: string): readonly string[];
  /** The catalog's words spelled with the same letters but other accents ("karcher" → kärcher, "café" → cafe), commonest first. */
  accentedAlike(word: string): readonly string[];
  /** The catalog's words with the word's first letter and consonants (`consonants`): "sandals" for "sandles". */
  soundingAlike(word: string): readonly string[];
  readonly size: number;
}

/** Letters an edit may insert or substitute: enough for any alphabet's words, bounded for scripts with thousands. */
const ALPHABET_MAX = 48;

export function buildVocabulary(entries: Iterable<readonly [string, number]>): Vocabulary {
  const counts = new Map<string, number>();
  const letters = new Map<string, number>();
  /** Words written with accents, by their letters without: few in most catalogs, so kept whole. */
  const accented = new Map<string, string[]>();
  for (const [word, ndoc] of entries) {
    if (ndoc <= 0) continue;
    counts.set(word, ndoc);
    for (const letter of word) letters.set(letter, (letters.get(letter) ?? 0) + ndoc);
    const plain = withoutAccents(word);
    if (plain === word) continue;
    const alike = accented.get(plain);
    if (alike) alike.push(word);
    else accented.set(plain, [word]);
  }
  const alphabet = [...letters]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, ALPHABET_MAX)
    .map(([letter]) => letter);
  const byFirst = groupedOnDemand(counts, (word) => word[0]!);
  const byConsonants = groupedOnDemand(counts, consonants);
  return {
    count: (word) => counts.get(word) ?? 0,
    alphabet,
    startingWith: byFirst,
    accentedAlike(word) {
      const plain = withoutAccents(word);
      const alike = [...(counts.has(plain) ? [plain] : []), ...(accented.get(plain) ?? [])].filter((other) => other !== word);
      return alike.sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || (a < b ? -1 : 1));
    },
    soundingAlike: (word) => byConsonants(consonants(word)).filter((other) => other !== word),
    size: counts.size,
  };
}

/**
 * The catalog's words grouped by a key of each (the first letter, the consonants), read on the first lookup: most
 * queries need no such scan.
 */
function groupedOnDemand(counts: ReadonlyMap<string, number>, keyOf: (word: string) => string): (key: string) => readonly string[] {
  let groups: Map<string, string[]> | undefined;
  return (key) => {
    if (!groups) {
      groups = new Map();
      for (const word of counts.keys()) {
        const of = keyOf(word);
        const group = groups.get(of);
        if (group) group.push(word);
        else groups.set(of, [word]);
      }
    }
    return groups.get(key) ?? [];
  };
}

/** Runs of vowels (rules/en/word-forms.json). */
const vowels = derived(({ wordForms }) => new RegExp(`${anyOf(wordForms.vowels)}+`, "gu"));

/**
 * A word's first letter and the consonants after it, a doubled one once: what a shopper who misspells a vowel or
 * doubles a letter still writes ("sandles" and "sandals" are "sndls"; "acomodation" is "accommodation").
 */
function consonants(word: string): string {
  return (
    word[0]! +
    word
      .slice(1)
      .replace(vowels(), "")
      .replace(/(.)\1+/gu, "$1")
  );
}

export async function readVocabulary(db: Database): Promise<Vocabulary> {
  const rows = await db
    .select({ word: searchVocabulary.word, ndoc: searchVocabulary.ndoc })
    .from(searchVocabulary)
    .where(gt(searchVocabulary.ndoc, 0));
  return buildVocabulary(rows.map((row) => [row.word, row.ndoc] as const));
}

/**
 * The vocabulary, checked against the catalog's version at most once per `checkMs` and read again only when an
 * import changed it; concurrent callers share a check in flight, and a failed one is retried by the next caller.
 */
export function vocabularyOf(db: Database, checkMs: number, now?: () => number): () => Promise<Vocabulary> {
  return refreshedEvery(
    perCatalogVersion(db, () => readVocabulary(db)),
    checkMs,
    now,
  );
}
