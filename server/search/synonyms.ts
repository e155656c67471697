/**
 * Synonyms, applied to the query at search time (nothing is reindexed), in the
 * Solr/Elasticsearch file format:
 *
 *     # a comment
 *     sofa, couch, settee          equivalents: each stands for all of them
 *     tv => television             a mapping: "tv" is searched as "television"
 *     jacket => jacket, shell      (list the word itself to keep it)
 *     rain jacket, rain shell      terms may have several words
 *
 * Words are compared lower-cased and singular ("couches" finds the rule for
 * "couch"). A rule matches the longest run of
 * query words it can, left to right, and a word is expanded at most once.
 */
import { readFileSync } from "node:fs";
import { wordsIn } from "./lexical.js";
import { BUILTIN_RULES_DIR, escapeRegExp, lineFileHeader, RULES_LANGUAGE, readRulesText } from "./rules/files.js";
import { derived } from "./rules/index.js";

export class SynonymsError extends Error {
  override readonly name = "SynonymsError";
}

/** What one term (as written in the file, lower-cased, as words) stands for. */
interface Entry {
  term: string[];
  /** The terms searched instead of or beside it. */
  forms: string[][];
  /** True when a mapping replaces the term and no rule keeps it. */
  replaces: boolean;
}

export interface SynonymSet {
  /** Entries by the key of their first word, longest term first. */
  readonly byFirst: ReadonlyMap<string, readonly Entry[]>;
  readonly rules: number;
}

export const NO_SYNONYMS: SynonymSet = { byFirst: new Map(), rules: 0 };

/** The endings after which a plural's "es" is dropped (rules/en/word-forms.json): "boxes", "couches". */
const esSingular = derived(({ wordForms }) => new RegExp(`(?:${wordForms.esSingular.map(escapeRegExp).join("|") || "(?!)"})es$`, "u"));

/** How a word is compared: lower-case, singular ("couches" → "couch", "batteries" → "battery", "shoes" → "shoe"). */
export function wordKey(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && esSingular().test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

const keyOf = (words: readonly string[]) => words.map(wordKey).join(" ");

/** Parses a synonyms file's text; `source` names it in errors ("synonyms.txt line 3: …"). */
export function parseSynonyms(text: string, source: string): SynonymSet {
  const entries = new Map<string, Entry>();
  let rules = 0;
  const add = (term: string[], forms: string[][], replaces: boolean) => {
    const key = keyOf(term);
    const entry = entries.get(key) ?? { term, forms: [], replaces: true };
    for (const form of forms) if (!entry.forms.some((known) => keyOf(known) === keyOf(form))) entry.forms.push(form);
    // Kept if any rule keeps it: an equivalence, or a mapping that lists it on its right.
    entry.replaces &&= replaces && !forms.some((form) => keyOf(form) === key);
    entries.set(key, entry);
  };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const fail = (problem: string): never => {
      throw new SynonymsError(`${source} line ${index + 1}: ${problem} (in "${line}")`);
    };
    // Solr reads a "#" after a rule as part of its last term; refused rather than searched as words of a comment.
    if (line.includes("#")) fail('a "#" after a rule: a comment takes a line of its own');
    const sides = line.split("=>");
    if (sides.length > 2) fail('more than one "=>"');
    const terms = sides.map((side, s) => {
      const parts = side.split(",").map((part) => part.trim());
      return parts.map((part) => {
        if (part === "")
          fail(
            sides.length === 2 && side.trim() === ""
              ? `nothing on the ${s === 0 ? "left" : "right"} of "=>"`
              : "an empty term (two commas, or a comma at an end)",
          );
        const words = wordsIn(part);
        if (words.length === 0) fail(`"${part}" has no letters or digits`);
        return words;
      });
    });
    rules++;
    if (terms.length === 2) {
      for (const term of terms[0]!) add(term, terms[1]!, true);
      return;
    }
    const [equivalents] = terms;
    if (equivalents!.length < 2) fail('one term alone: write equivalents as "a, b" or a mapping as "a => b"');
    for (const term of equivalents!) add(term, equivalents!, false);
  });
  return index([...entries.values()], rules);
}

function index(entries: readonly Entry[], rules: number): SynonymSet {
  const byFirst = new Map<string, Entry[]>();
  for (const entry of entries) {
    const first = wordKey(entry.term[0]!);
    byFirst.set(
      first,
      [...(byFirst.get(first) ?? []), entry].sort((a, b) => b.term.length - a.term.length),
    );
  }
  return { byFirst, rules };
}

/** Several sets as one: a term in more than one set gets the forms of each. */
export function mergeSynonyms(sets: readonly SynonymSet[]): SynonymSet {
  const merged = new Map<string, Entry>();
  for (const set of sets) {
    for (const entries of set.byFirst.values()) {
      for (const entry of entries) {
        const key = keyOf(entry.term);
        const known = merged.get(key);
        if (!known) merged.set(key, { ...entry, forms: [...entry.forms] });
        else {
          for (const form of entry.forms) if (!known.forms.some((f) => keyOf(f) === keyOf(form))) known.forms.push(form);
          known.replaces &&= entry.replaces;
        }
      }
    }
  }
  return index(
    [...merged.values()],
    sets.reduce((n, set) => n + set.rules, 0),
  );
}

/** A run of query words a rule matched: words [start, end) and the forms to search for them. */
export interface Expansion {
  start: number;
  end: number;
  /** The other forms (never the matched words themselves). */
  forms: string[][];
  /** The matched words are not searched themselves (a mapping that does not keep them). */
  replaces: boolean;
}

/** The one-word terms the rules match, as written ("rucksack", "couch"): what a typo may be of (understand.ts). */
export function singleWordTerms(set: SynonymSet): string[] {
  return [...set.byFirst.values()].flatMap((entries) => entries.filter((entry) => entry.term.length === 1).map((entry) => entry.term[0]!));
}

/** The rules matching `words` (lower-case), longest first, left to right, each word at most once. */
export function expand(words: readonly string[], set: SynonymSet): Expansion[] {
  const expansions: Expansion[] = [];
  const keys = words.map(wordKey);
  for (let i = 0; i < words.length; ) {
    const entry = (set.byFirst.get(keys[i]!) ?? []).find(
      (candidate) => i + candidate.term.length <= words.length && candidate.term.every((word, j) => wordKey(word) === keys[i + j]),
    );
    if (!entry) {
      i++;
      continue;
    }
    const matched = keyOf(words.slice(i, i + entry.term.length));
    const forms = entry.forms.filter((form) => keyOf(form) !== matched);
    if (forms.length > 0) expansions.push({ start: i, end: i + entry.term.length, forms, replaces: entry.replaces });
    i += entry.term.length;
  }
  return expansions;
}

/** The built-in set for shopping English (SYNONYMS_BUILTIN), in the same format: server/search/rules/en/synonyms.txt. */
export const BUILTIN_SYNONYMS_PATH = new URL("rules/en/synonyms.txt", import.meta.url);

/**
 * The synonyms the configuration asks for: the built-in set unless turned off, then RULES_DIR's en/synonyms.txt (which
 * replaces the built-in set when it says `# replace: true`), then the operator's SYNONYMS_FILE, each beside the others.
 */
export function loadSynonyms(options: { builtin: boolean; file: string | undefined; dir?: string | undefined }): SynonymSet {
  const sets: SynonymSet[] = [];
  const own = options.dir === undefined ? undefined : readRulesText(options.dir, RULES_LANGUAGE, "synonyms.txt", "RULES_DIR");
  const replaces = own !== undefined && lineFileHeader(own).replace;
  if (options.builtin && !replaces) {
    const builtin = readRulesText(BUILTIN_RULES_DIR, RULES_LANGUAGE, "synonyms.txt", "the built-in synonyms")!;
    lineFileHeader(builtin);
    sets.push(parseSynonyms(builtin.text, builtin.source));
  }
  if (own) sets.push(parseSynonyms(own.text, own.source));
  if (options.file !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.file, "utf8");
    } catch (error) {
      throw new SynonymsError(`SYNONYMS_FILE ${options.file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    sets.push(parseSynonyms(text, `SYNONYMS_FILE ${options.file}`));
  }
  return mergeSynonyms(sets);
}
