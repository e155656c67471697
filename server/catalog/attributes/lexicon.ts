/**
 * The attribute vocabularies (colours, materials, audiences) as data files beside this module, one entry a line:
 * `value: word, word, two words`. Each line is validated with Zod when first read; a broken file is refused with
 * its name, line and what is wrong. Words are matched whole, as runs of a text's words (lexical.ts `wordsUnpossessed`),
 * lower-cased and without accents.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { withoutAccents, wordsUnpossessed } from "../../search/lexical.js";

const WordSchema = z
  .string()
  .min(1, "an empty word")
  .regex(/^[\p{Ll}\p{N}]+(?: [\p{Ll}\p{N}]+)*$/u, "a word must be lower-case letters or digits, words separated by one space");

const EntrySchema = z.object({
  value: z.string().regex(/^[a-z]+(?: [a-z]+)*$/, "the value before the colon must be lower-case letters"),
  words: z.array(WordSchema).min(1, "no words after the colon"),
});

export type Entry = z.infer<typeof EntrySchema>;

/** Parses a vocabulary file's text; `source` names it in errors ("colours.txt line 3: …"). */
export function parseEntries(text: string, source: string): Entry[] {
  const entries: Entry[] = [];
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    const fail = (what: string) => new Error(`${source} line ${index + 1}: ${what}`);
    if (colon < 0) throw fail('expected "value: word, word"');
    const candidate = {
      value: line.slice(0, colon).trim(),
      words: line
        .slice(colon + 1)
        .split(",")
        .map((word) => word.trim().replace(/\s+/g, " ")),
    };
    const parsed = EntrySchema.safeParse(candidate);
    if (!parsed.success) throw fail(parsed.error.issues.map((issue) => issue.message).join("; "));
    entries.push(parsed.data);
  });
  return entries;
}

/** Words (and runs of words) to the values they name. */
export interface Lexicon {
  byWords: ReadonlyMap<string, string>;
  /** The most words an entry has. */
  longest: number;
  values: readonly string[];
}

export function lexiconOf(entries: readonly Entry[]): Lexicon {
  const byWords = new Map<string, string>();
  let longest = 1;
  for (const entry of entries) {
    for (const word of entry.words) {
      byWords.set(word, entry.value);
      longest = Math.max(longest, word.split(" ").length);
    }
  }
  return { byWords, longest, values: entries.map((entry) => entry.value) };
}

/** The words of a text as lexicons match them: lower-cased, possessives dropped, accents folded. */
export function lexiconWords(text: string): string[] {
  return wordsUnpossessed(text.replace(/[-/]/g, " ")).map(withoutAccents);
}

/** Each run of `words` a lexicon names, longest first from each position, with where it starts and how many words it takes. */
export function matches(lexicon: Pick<Lexicon, "byWords" | "longest">, words: readonly string[]): { value: string; index: number; length: number }[] {
  const found: { value: string; index: number; length: number }[] = [];
  for (let i = 0; i < words.length; i++) {
    for (let n = Math.min(lexicon.longest, words.length - i); n >= 1; n--) {
      const value = lexicon.byWords.get(words.slice(i, i + n).join(" "));
      if (value === undefined) continue;
      found.push({ value, index: i, length: n });
      i += n - 1;
      break;
    }
  }
  return found;
}

/** The values a text names, once each, in order. */
export function valuesIn(lexicon: Lexicon, text: string): string[] {
  return [...new Set(matches(lexicon, lexiconWords(text)).map((match) => match.value))];
}

const cache = new Map<string, Lexicon>();

/** A vocabulary file of this folder (`en/colours.txt`), read and validated once. */
export function lexicon(file: string): Lexicon {
  let known = cache.get(file);
  if (!known) {
    known = lexiconOf(parseEntries(readFileSync(new URL(file, import.meta.url), "utf8"), file));
    cache.set(file, known);
  }
  return known;
}

export const colours = () => lexicon("en/colours.txt");
/** The words a query's colour is read from: fewer than a product's ("snow boots" ask for no white). */
export const coloursAsked = () => lexicon("en/colours-asked.txt");
export const materials = () => lexicon("en/materials.txt");
/** Children's words by audience (kids, baby). */
export const childWords = () => lexicon("en/audiences.txt");

let suits: ReadonlyMap<string, readonly string[]> | undefined;

/** Which stored audiences suit each audience asked (en/audience-suits.txt), read and validated once. */
export function audienceSuits(): ReadonlyMap<string, readonly string[]> {
  const file = "en/audience-suits.txt";
  suits ??= new Map(parseEntries(readFileSync(new URL(file, import.meta.url), "utf8"), file).map((entry) => [entry.value, entry.words]));
  return suits;
}
