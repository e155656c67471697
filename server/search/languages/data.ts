/**
 * The languages' data files, read once and validated with Zod: a file that breaks the format is refused whole, with
 * its name, line and what is wrong (RulesError), never read in part.
 *
 * - `stop-words/<code>.txt`: one word a line, as written (Postgres's own lists): evidence of the language (detect.ts).
 * - `lexicon/<code>.txt`: what the language calls the kinds of things shops sell, their colours, materials and whom
 *   they are for, mapped to English, one entry a line: `running shoes = laufschuhe, laufschuh`. English is the pivot:
 *   a query is read into the catalog's language through it (lexicon.ts). A line `endings: e, en` lists the endings
 *   the language inflects words with: words are compared without them. `compounds: head last` and `phrases: head
 *   first` say where the language puts the word naming a thing's kind.
 * - `detection.json`: how much evidence a language needs (detect.ts).
 *
 * `#` starts a comment line; blank lines are skipped. A code is the file's name: ISO 639-1. They are read as the rules
 * files are (rules/files.ts), a mistake refused with its file and line.
 */
import { readdirSync } from "node:fs";
import { z } from "zod";
import { withoutAccents } from "../lexical.js";
import { contentLines, lineError, parseJsonAs, RulesError, readText } from "../rules/files.js";

/** Lower-case words of any script, joined by single spaces, hyphens or apostrophes ("sac à dos", "t-shirt"). */
const PHRASE = /^[\p{Ll}\p{Lo}\p{M}]+(?:[ '’-][\p{Ll}\p{Lo}\p{M}]+)*$/u;
const Phrase = z
  .string()
  .min(1, "is empty")
  .regex(PHRASE, "must be lower-case words (letters only, joined by single spaces, hyphens or apostrophes)")
  .transform((phrase) => phrase.normalize("NFC"));

const StopWordSchema = z
  .string()
  .regex(/^[\p{Ll}\p{Lo}\p{M}]+$/u, "must be one lower-case word")
  .transform((word) => word.normalize("NFC"));

const EntrySchema = z.object({
  english: Phrase,
  terms: z.array(Phrase).min(1, "names no word of the language"),
});

export type LexiconEntry = z.infer<typeof EntrySchema>;

export interface Lexicon {
  /**
   * What the language adds to a word to inflect it, longest first (`endings: e, en, er`): a word is looked up without
   * the longest it ends in, leaving at least three letters, so "schwarze" and "schwarzen" are "schwarz".
   */
  endings: string[];
  /**
   * `compounds: head last`: the language joins words into one whose last part says what it is ("Wanderrucksack" is a
   * rucksack): a word no entry names is read by the longest single-word entry it ends with (reading.ts).
   */
  compounds: boolean;
  /**
   * `phrases: head first`: a phrase names its kind first and qualifies it after ("cafetera de cápsulas", "applique da
   * parete"), where English names it last before a preposition ("capsule coffee maker for …"): which word of a query
   * in the language is the kind asked (rerankers/local-query.ts).
   */
  headFirst: boolean;
  entries: LexiconEntry[];
}

const EndingsSchema = z.array(z.string().regex(/^[\p{Ll}\p{M}]+$/u, "must be lower-case letters")).min(1, "lists no ending");

const DetectionSchema = z.strictObject({
  text: z.strictObject({
    least: z.number().positive().describe("Evidence the likeliest language needs in a page's text"),
    margin: z.number().min(1).describe("How many times the runner-up's evidence it needs"),
  }),
  query: z.strictObject({
    least: z.number().positive().describe("Evidence another language than the catalog's needs in a query"),
    coverage: z.number().min(0).max(1).describe("The share of a query's words it must explain"),
  }),
  catalogFallback: z.string().regex(/^[a-z]{2}$/, "must be an ISO 639-1 code"),
  searched: z
    .strictObject({
      share: z.number().min(0).max(1).describe("The share of the catalog's products a language needs to be searched in"),
      most: z.number().int().min(1).describe("The most languages a query is searched in beside its own and the catalog's"),
    })
    .describe("A query's words are searched in each language enough of the catalog is in: a French page by an English query's words"),
});

export type Detection = z.infer<typeof DetectionSchema>;

export interface LanguageData {
  /** Stop words by language code. */
  stopWords: ReadonlyMap<string, ReadonlySet<string>>;
  /** Lexicons by language code (English, the pivot, lists only its endings). */
  lexicons: ReadonlyMap<string, Lexicon>;
  detection: Detection;
}

const DIRECTORY = new URL("./", import.meta.url);

/** The first issue of a failed parse, as "path: message". */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
  return `${path ? `${path.replace(/^\./, "")}: ` : ""}${issue.message}`;
}

export function parseStopWords(text: string, source: string): Set<string> {
  const words = new Set<string>();
  for (const { line, text: word } of contentLines(text)) {
    const parsed = StopWordSchema.safeParse(word);
    if (!parsed.success) throw new RulesError(`${source} line ${line}: "${word}" ${firstIssue(parsed.error)}`);
    words.add(parsed.data);
  }
  return words;
}

export function parseLexicon(text: string, source: string): Lexicon {
  const lexicon: Lexicon = { endings: [], compounds: false, headFirst: false, entries: [] };
  for (const line of contentLines(text)) {
    const entry = line.text;
    const fail = (problem: string): never => {
      throw lineError(source, line, problem);
    };
    // `compounds: head last`, `phrases: head first`: the one value each takes.
    const said = /^(compounds|phrases):\s*(.*)$/u.exec(entry);
    if (said) {
      const value = said[1] === "compounds" ? "head last" : "head first";
      if (said[2] !== value) fail(`${said[1]}: the one value is "${value}"`);
      lexicon[said[1] === "compounds" ? "compounds" : "headFirst"] = true;
      continue;
    }
    if (entry.startsWith("endings:")) {
      const endings = EndingsSchema.safeParse(
        entry
          .slice("endings:".length)
          .split(",")
          .map((ending) => ending.trim()),
      );
      if (!endings.success) fail(`endings: ${firstIssue(endings.error)}`);
      lexicon.endings = [...endings.data!].sort((a, b) => b.length - a.length);
      continue;
    }
    const sides = entry.split("=");
    if (sides.length !== 2) fail('expected "english words = word, word" with one "="');
    const parsed = EntrySchema.safeParse({
      english: sides[0]!.trim(),
      terms: sides[1]!.split(",").map((term) => term.trim()),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const at = issue.path.length === 2 ? ` "${sides[1]!.split(",")[Number(issue.path[1])]!.trim()}"` : "";
      fail(`${firstIssue(parsed.error)}${at}`);
    }
    lexicon.entries.push(parsed.data!);
  }
  return lexicon;
}

export function parseDetection(text: string, source: string): Detection {
  return parseJsonAs({ text, source }, DetectionSchema);
}

/** Every `<code>.txt` of a folder of the languages' data, parsed by `parse`, by code. */
function readFolder<T>(folder: string, parse: (text: string, source: string) => T): Map<string, T> {
  const url = new URL(`${folder}/`, DIRECTORY);
  const files = readdirSync(url).filter((name) => name.endsWith(".txt"));
  return new Map(
    files.map((name) => {
      const code = name.slice(0, -".txt".length);
      if (!/^[a-z]{2}$/.test(code)) throw new RulesError(`${folder}/${name}: a file's name is its language's ISO 639-1 code`);
      const file = readText(new URL(name, url), `${folder}/${name}`);
      return [code, parse(file.text, file.source)];
    }),
  );
}

let loaded: LanguageData | undefined;

/** The shipped data, read and validated on first use (and at start, through `warm`). */
export function languageData(): LanguageData {
  loaded ??= {
    stopWords: readFolder("stop-words", parseStopWords),
    lexicons: readFolder("lexicon", parseLexicon),
    detection: parseDetection(readText(new URL("detection.json", DIRECTORY), "detection.json").text, "detection.json"),
  };
  return loaded;
}

const foldedStopWords = new Map<string, Set<string>>();

/** Whether `word` is one of `language`'s stop words, accents folded on both sides (as a query's words are compared). */
export function isStopWord(language: string, word: string): boolean {
  let stop = foldedStopWords.get(language);
  if (!stop) {
    stop = new Set([...(languageData().stopWords.get(language) ?? [])].map(withoutAccents));
    foldedStopWords.set(language, stop);
  }
  return stop.has(withoutAccents(word));
}
