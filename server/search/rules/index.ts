/**
 * The search rules as data (README.md beside this file): word lists, phrase lists and patterns, one file per concern,
 * in a folder per language, validated with Zod when read. An operator's folder (RULES_DIR) of the same shape adds to
 * the built-in rules, file by file, or replaces the lists a file gives when it says `"replace": true`.
 *
 * The modules that read rules (sexes.ts, ages.ts, …) keep their signatures: they read the rules in use through
 * `rules()`, which are the built-in ones until the start installs the configured ones with `useRules`.
 */
import { join } from "node:path";
import { z } from "zod";
import { parseSynonyms } from "../synonyms.js";
import {
  BUILTIN_RULES_DIR,
  escapeRegExp,
  filesIn,
  languagesIn,
  lineFileHeader,
  parseJsonAs,
  RULES_LANGUAGE,
  RULES_VERSION,
  RulesError,
  readRulesText,
  type RulesText,
} from "./files.js";

export { RULES_LANGUAGE, RulesError } from "./files.js";

/** A word as queries and names are compared: lower case, no space at either end. */
const word = z
  .string()
  .min(1, "an empty word")
  .refine((text) => text === text.toLowerCase(), "must be lower case (words are compared lower-cased)")
  .refine((text) => text === text.trim(), "has a space at an end");
const words = z.array(word);
/** Either side may be left out (an operator adding words for one sex): none. */
const sexWords = z.strictObject({ male: words.default([]), female: words.default([]) });

/** Slots an age pattern may hold, and what each stands for while a pattern is only checked. */
const AGE_SLOTS: Record<string, string> = { number: "(1)", unit: "(m)", until: "(?:-)", andUp: "(?:\\+)", who: "(?:kids)" };

/** A regular expression (case-insensitive) once `fill` has put something in place of its slots or parts. */
const pattern = (fill: (pattern: string) => string, flags: string) =>
  z
    .string()
    .min(1)
    .superRefine((text, context) => {
      try {
        new RegExp(fill(text), flags);
      } catch (error) {
        context.addIssue({ code: "custom", message: `not a regular expression (${(error as Error).message})` });
      }
    });
const regex = pattern((text) => text, "i");
/** A phrase's alternative: a regular expression once each `{part}` in it is filled (checked with any part in place). */
const alternative = pattern((text) => text.replace(/\{\w+\}/gu, "(?:)"), "iu");
/** An age pattern: its slots known, a `{number}` among them, a regular expression once they are filled. */
const agePattern = pattern((text) => text.replace(/\{(\w+)\}/gu, (_, slot: string) => AGE_SLOTS[slot] ?? ""), "i").superRefine((text, context) => {
  const unknown = [...text.matchAll(/\{(\w+)\}/gu)].map((m) => m[1]!).find((slot) => !(slot in AGE_SLOTS));
  const known = Object.keys(AGE_SLOTS).map((s) => `{${s}}`);
  if (unknown !== undefined) context.addIssue({ code: "custom", message: `unknown slot {${unknown}} (known: ${known.join(", ")})` });
  else if (!text.includes("{number}")) context.addIssue({ code: "custom", message: "a pattern needs a {number}" });
});
/** Age patterns, each with how its numbers read (ages.ts `reads`). */
const agePatterns = z.array(z.strictObject({ pattern: agePattern, read: z.enum(["between", "age", "from"]), example: z.string().optional() }));
/** Either side may be left out (an operator adding to one phrase): none. */
const alternatives = z.array(alternative).default([]);
/** The phrases constraints.json lists, each read by interpret.ts. */
export const PHRASES = [
  "notOutOfStock",
  "outOfStock",
  "inStock",
  "preorder",
  "between",
  "rangeAnd",
  "rangeJoin",
  "around",
  "boundNot",
  "atMost",
  "atLeast",
  "withCurrencyOnly",
  "atMostAfter",
  "atLeastAfter",
  "cheapestFirst",
  "dearestFirst",
  "askingGreeting",
  "askingPolite",
  "askingStart",
  "askingEnd",
  "articles",
  "avoiding",
  "notAvoided",
  "notFromBrand",
] as const;
const phrases = z.strictObject(
  Object.fromEntries(PHRASES.map((name) => [name, alternatives])) as Record<(typeof PHRASES)[number], typeof alternatives>,
);
const months = z.number().int().min(0);
const ageRange = z.strictObject({ from: months, to: months }).refine((range) => range.from < range.to, "from must be below to");

/**
 * Each file's schema, by the field of `Rules` it fills (`bedSizes`: bed-sizes.json): all of it required in the built-in
 * folder; an operator's file may give any part.
 */
const SCHEMAS = {
  sexes: z.strictObject({
    product: sexWords,
    query: sexWords,
    person: sexWords,
    beforePerson: words,
    both: words,
    anyAge: words,
  }),
  species: z.strictObject({ words: z.record(word, words) }),
  bedSizes: z.strictObject({
    sizes: z.record(word, words),
    compound: z.array(z.strictObject({ before: words, size: word, is: word })),
    bedding: words,
  }),
  goesWith: z.strictObject({ purposes: words, things: z.record(word, words) }),
  productType: z.strictObject({
    qualifiers: words,
    conjunctions: words.min(1),
    /** Words joining two alternatives ("canon or nikon", "vitamix vs blendtec"): understand.ts. */
    either: words,
    /** Words joining two kinds between a word and the query's head: the local reranker's `before`. */
    joinsKinds: z.array(z.string().min(1)),
    /** Words after which a name names what it is an accessory for ("Case for iPhone"); `companionMarkers` too with a category. */
    accessoryMarkers: words,
    companionMarkers: words,
    articles: words,
    packaging: words,
    units: words,
    colours: words,
    wearers: words,
    sizes: words,
    sizeWords: words,
    moneyAndTime: words,
    vague: words,
    occasions: words,
    likers: words,
    people: words,
    prepositions: words,
    any: words,
    gifts: words,
    liking: words,
    purposes: words,
    verbMarkers: words,
  }),
  commonWords: z.strictObject({ stopWords: words }),
  constraints: z.strictObject({
    currencyWords: z.record(word, z.union([z.literal("$"), z.literal("kr"), z.string().regex(/^[A-Z]{3}$/u, "an ISO 4217 code, $ or kr")])),
    codes: z.array(word.regex(/^[a-z]{3}$/u, "three letters")),
    connectors: words,
    parts: z.record(z.string().regex(/^\w+$/u, "a part's name is letters, digits or _"), alternative),
    phrases,
  }),
  wordForms: z.strictObject({ vowels: words, esSingular: words, esPlural: words }),
  ages: z.strictObject({
    numberWords: z.record(word, z.number().int().min(0).max(99)),
    units: z.strictObject({ months: words.default([]), years: words.default([]) }),
    until: words,
    andUp: words,
    who: words,
    asked: agePatterns,
    stated: agePatterns,
    stages: z.array(z.strictObject({ name: word, pattern: regex, asked: ageRange, labelled: ageRange, labelsNameAlone: z.boolean().optional() })),
    grownUp: z.strictObject({ words, fromMonths: months }),
  }),
} as const;

type Field = keyof typeof SCHEMAS;

/** The rules of one language, each file's lists merged from the built-in folder and the operator's. */
export type Rules = { language: string } & { [F in Field]: z.infer<(typeof SCHEMAS)[F]> };

const fileOf = (field: Field) => `${field.replace(/[A-Z]/gu, (c) => `-${c.toLowerCase()}`)}.json`;

/** The files a rules folder may hold for a language. */
export const RULES_FILES: readonly string[] = [...(Object.keys(SCHEMAS) as Field[]).map(fileOf), "synonyms.txt"];

const header = z.object({
  version: z.literal(RULES_VERSION, { error: `version must be ${RULES_VERSION}` }),
  about: z.string().optional(),
  replace: z.boolean().optional(),
});

/** A file's lists, checked: every part for a built-in file, any part (and `replace`) for an operator's. */
function readJsonRules(file: RulesText, field: Field, builtin: boolean): { lists: Record<string, unknown>; replace: boolean } {
  const schema = SCHEMAS[field];
  const body = builtin ? schema.extend({ version: header.shape.version, about: header.shape.about }) : schema.partial().extend(header.shape);
  const { version: _version, about: _about, replace, ...lists } = parseJsonAs(file, body) as Record<string, unknown> & { replace?: boolean };
  return { lists, replace: replace === true };
}

/** The built-in value with the operator's added: lists joined (each entry once), maps merged key by key. */
function added(base: unknown, extra: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(extra)) {
    const seen = new Set(base.map((entry) => JSON.stringify(entry)));
    return [...base, ...extra.filter((entry) => !seen.has(JSON.stringify(entry)))];
  }
  if (isRecord(base) && isRecord(extra)) {
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(extra)) merged[key] = key in base ? added(base[key], value) : value;
    return merged;
  }
  return extra;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Where the rules are read from: the built-in folder, then RULES_DIR when one is set. */
export interface RulesOptions {
  dir?: string | undefined;
  language?: string;
}

/**
 * Reads, checks and merges the rules of a language. Every problem in every file is reported at once, one per line,
 * each with its file and line.
 */
export function loadRules(options: RulesOptions = {}): Rules {
  const language = options.language ?? RULES_LANGUAGE;
  const problems: string[] = [];
  const attempt = <T>(work: () => T): T | undefined => {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof RulesError)) throw error;
      problems.push(error.message);
      return undefined;
    }
  };
  if (options.dir !== undefined) attempt(() => checkFolder(options.dir!));
  const merged: Partial<Omit<Rules, "language">> = {};
  for (const field of Object.keys(SCHEMAS) as Field[]) {
    const builtin = attempt(() => readJsonRules(readRulesText(BUILTIN_RULES_DIR, language, fileOf(field), "built-in rules")!, field, true));
    const own = options.dir === undefined ? undefined : attempt(() => readRulesText(options.dir!, language, fileOf(field), "RULES_DIR"));
    const operator = own && attempt(() => readJsonRules(own, field, false));
    if (!builtin) continue;
    let lists = builtin.lists;
    if (operator) lists = operator.replace ? { ...lists, ...operator.lists } : (added(lists, operator.lists) as Record<string, unknown>);
    Object.assign(merged, { [field]: lists });
  }
  if (options.dir !== undefined) attempt(() => checkSynonyms(options.dir!, language));
  if (merged.constraints) attempt(() => checkParts(merged.constraints!));
  if (problems.length > 0) throw new RulesError(problems.join("\n"));
  return { language, ...(merged as Omit<Rules, "language">) };
}

/** Every `{part}` a phrase names is one constraints.json's `parts` has, built-in or the operator's. */
function checkParts({ parts, phrases }: Rules["constraints"]): void {
  const unknown = Object.entries(phrases).flatMap(([name, list]) =>
    list.flatMap((pattern) =>
      [...pattern.matchAll(/\{(\w+)\}/gu)].filter((m) => !(m[1]! in parts)).map((m) => `phrases.${name}: unknown part {${m[1]}}`),
    ),
  );
  if (unknown.length > 0) throw new RulesError(`constraints.json: ${unknown.join("; ")} (parts: ${Object.keys(parts).join(", ")})`);
}

/** An operator's folder holds language folders the built-in rules have, and in them only files it knows. */
function checkFolder(dir: string): void {
  let languages: string[];
  try {
    languages = languagesIn(dir);
  } catch (error) {
    throw new RulesError(`RULES_DIR ${dir}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const known = languagesIn(BUILTIN_RULES_DIR);
  const problems: string[] = [];
  for (const name of filesIn(dir)) problems.push(`RULES_DIR ${name}: rules files go in a language folder (${known.map((l) => `${l}/`).join(", ")})`);
  for (const language of languages) {
    if (!known.includes(language)) {
      problems.push(`RULES_DIR ${language}/: no built-in rules for language "${language}" (known: ${known.join(", ")})`);
      continue;
    }
    for (const name of filesIn(join(dir, language))) {
      if (!(RULES_FILES as readonly string[]).includes(name))
        problems.push(`RULES_DIR ${join(language, name)}: not a rules file this server reads (known: ${RULES_FILES.join(", ")})`);
    }
  }
  if (problems.length > 0) throw new RulesError(problems.join("\n"));
}

/** An operator's synonyms.txt parses (its header and its rules); it is applied by loadSynonyms (synonyms.ts). */
function checkSynonyms(dir: string, language: string): void {
  const file = readRulesText(dir, language, "synonyms.txt", "RULES_DIR");
  if (!file) return;
  lineFileHeader(file);
  parseSynonyms(file.text, file.source);
}

let active: Rules | undefined;
const watchers: ((rules: Rules) => void)[] = [];

/** The rules in use: the built-in ones until `useRules` installs others (at start, from RULES_DIR). */
export function rules(): Rules {
  active ??= loadRules();
  return active;
}

/** Installs the rules every search reads from now on. */
export function useRules(next: Rules): void {
  active = next;
  for (const watcher of watchers) watcher(next);
}

/** Calls `fill` with the rules in use now and again whenever others are installed: for lists a module exports. */
export function watchRules(fill: (rules: Rules) => void): void {
  watchers.push(fill);
  fill(rules());
}

/**
 * What `build` makes of the rules in use (sets, patterns), made again only when other rules are installed: the
 * modules reading rules call this on every lookup, so it costs one comparison.
 */
export function derived<T>(build: (rules: Rules) => T): () => T {
  let from: Rules | undefined;
  let value: T | undefined;
  return () => {
    const current = rules();
    if (current !== from) {
      value = build(current);
      from = current;
    }
    return value as T;
  };
}

/** A rules file's lists that `lookups` reads: words, or words listed by what they name. */
type WordLists = Readonly<Record<string, readonly string[] | Readonly<Record<string, readonly string[]>>>>;

/** Each of `lookups`' lists as its shape reads: words as a set; words by what they name as each word's value. */
export type Lookups<T extends WordLists> = {
  [K in keyof T]: T[K] extends readonly string[] ? ReadonlySet<string> : ReadonlyMap<string, Extract<keyof T[K], string>>;
};

/**
 * A rules file's word lists as lookups, by their shape: a list of words as a set; words listed by what they name
 * (`{ "dog": ["dog", "puppies"] }`, sexes' `{ "male": [...], "female": [...] }`) as a map from each word to that ("puppies" →
 * dog).
 */
export function lookups<T extends WordLists>(lists: T): Lookups<T> {
  const read: Record<string, unknown> = {};
  for (const [name, list] of Object.entries(lists)) {
    read[name] = Array.isArray(list)
      ? new Set(list)
      : new Map(Object.entries(list as Record<string, readonly string[]>).flatMap(([value, words]) => words.map((word) => [word, value] as const)));
  }
  return read as Lookups<T>;
}

/**
 * A regular expression's alternation of words or phrases from the rules, in their order, each matched as written (a
 * space matching any run of spaces): `(?:a|b\s+c)`; one that matches nothing when the list is empty.
 */
export function anyOf(phrases: readonly string[]): string {
  if (phrases.length === 0) return "(?!)";
  return `(?:${phrases.map((phrase) => escapeRegExp(phrase).replace(/ +/gu, String.raw`\s+`)).join("|")})`;
}
