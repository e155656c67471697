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
import { wordsIn } from "./lexical.js";
import { BUILTIN_RULES_DIR, contentLines, lineError, lineFileHeader, RULES_LANGUAGE, readRulesText, readText } from "./rules/files.js";
import { anyOf, derived } from "./rules/index.js";

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
const esSingular = derived(({ wordForms }) => new RegExp(`${anyOf(wordForms.esSingular)}es$`, "u"));

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
  // Kept if any rule keeps it: an equivalence, or a mapping that lists it on its right.
  const add = (term: string[], forms: string[][], replaces: boolean) =>
    addEntry(entries, term, forms, replaces && !forms.some((form) => keyOf(form) === keyOf(term)));
  for (const line of contentLines(text)) {
    const fail = (problem: string): never => {
      throw lineError(source, line, problem);
    };
    // Solr reads a "#" after a rule as part of its last term; refused rather than searched as words of a comment.
    if (line.text.includes("#")) fail('a "#" after a rule: a comment takes a line of its own');
    const sides = line.text.split("=>");
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
      continue;
    }
    const [equivalents] = terms;
    if (equivalents!.length < 2) fail('one term alone: write equivalents as "a, b" or a mapping as "a => b"');
    for (const term of equivalents!) add(term, equivalents!, false);
  }
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

/** What `term` stands for, added to `entries`: each form once; replaced only while every rule replaces it. */
function addEntry(entries: Map<string, Entry>, term: string[], forms: readonly string[][], replaces: boolean): void {
  const key = keyOf(term);
  const entry = entries.get(key) ?? { term, forms: [], replaces: true };
  for (const form of forms) if (!entry.forms.some((known) => keyOf(known) === keyOf(form))) entry.forms.push(form);
  entry.replaces &&= replaces;
  entries.set(key, entry);
}

/** Several sets as one: a term in more than one set gets the forms of each. */
export function mergeSynonyms(sets: readonly SynonymSet[]): SynonymSet {
  const merged = new Map<string, Entry>();
  for (const set of sets) for (const entries of set.byFirst.values()) for (const e of entries) addEntry(merged, e.term, e.forms, e.replaces);
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

/**
 * The runs of `keys` that rules match (`byFirst`: the rules by their term's first key, longest first), left to right,
 * each key in one run at most: synonyms here, a lexicon's phrases in languages/lexicon.ts.
 */
export function matchRuns<R>(
  keys: readonly string[],
  byFirst: ReadonlyMap<string, readonly R[]>,
  termOf: (rule: R) => readonly string[],
): { start: number; end: number; rule: R }[] {
  const runs: { start: number; end: number; rule: R }[] = [];
  for (let i = 0; i < keys.length; ) {
    const rule = byFirst.get(keys[i]!)?.find((candidate) => termOf(candidate).every((key, j) => keys[i + j] === key));
    const length = rule === undefined ? 1 : termOf(rule).length;
    if (rule !== undefined) runs.push({ start: i, end: i + length, rule });
    i += length;
  }
  return runs;
}

/** The rules matching `words` (lower-case), longest first, left to right, each word at most once. */
export function expand(words: readonly string[], set: SynonymSet): Expansion[] {
  return matchRuns(words.map(wordKey), set.byFirst, (entry) => entry.term.map(wordKey)).flatMap(({ start, end, rule }) => {
    const matched = keyOf(words.slice(start, end));
    const forms = rule.forms.filter((form) => keyOf(form) !== matched);
    return forms.length > 0 ? [{ start, end, forms, replaces: rule.replaces }] : [];
  });
}

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
    const file = readText(options.file, `SYNONYMS_FILE ${options.file}`);
    sets.push(parseSynonyms(file.text, file.source));
  }
  return mergeSynonyms(sets);
}
