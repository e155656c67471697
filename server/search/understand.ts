/**
 * What a query's words stand for, once constraints are taken out of it
 * (interpret.ts): each word as typed (a word beside a number also written
 * both ways: "spf 50", "spf50"), the catalog words a typo stands for
 * (typos.ts: a word corrected, split in two, or two words joined), and what
 * synonyms add (synonyms.ts). Retrieval searches every
 * form; the reranker scores a word by the best form a product holds, a typed
 * word above a correction or synonym; the sentence encoder reads the query
 * with its typos corrected; the ages it shops for order products by the ages
 * they state (ages.ts). Nothing is applied silently: the answer's
 * `interpretation` lists corrections, synonyms and ages.
 */
import { type AskedAges, askedAges } from "./ages.js";
import { isCommonWord, isEnglishWord, STOP_WORDS } from "./common-words.js";
import { closestTerm, corrections, heldCount, joined, split } from "./typos.js";
import { isQuantity, isUnit, namesWhom } from "./product-type.js";
import { rules } from "./rules/index.js";
import { goesWith } from "./goes-with.js";
import { expand, type Expansion, singleWordTerms, type SynonymSet } from "./synonyms.js";
import type { Vocabulary } from "./vocabulary.js";
import { languageData } from "./languages/data.js";
import { type CatalogWords, likeliestLanguage, queryLanguage } from "./languages/detect.js";
import { inCatalogLanguage, readAbroad, lexiconWords, readAlternativesInto, readForeign, readInto } from "./languages/reading.js";
import { escapeRegExp } from "./rules/files.js";

/** `translation`: the query's words read in the catalog's language through the lexicons (languages/reading.ts). */
export type FormKind = "typed" | "correction" | "synonym" | "translation";

/** Words that stand for the query's words [start, end): one word typed, corrected, or a synonym of one or more. */
export interface Form {
  start: number;
  end: number;
  words: string[];
  kind: FormKind;
  /** Searched as the start of a word: the letters of codes the catalog writes with a number ("spf" of "SPF50+"). */
  prefix?: boolean;
  /**
   * A word split into two English words ("waterbottle"): searched and scored as the two typed apart, wherever each
   * stands ("Insulated Bottle … keeps water cold"). Other splits are names, searched as a phrase ("blu ray").
   */
  apart?: boolean;
  /**
   * Two words the catalog may write hyphenated, one a stop word full text drops ("pour over" → "pour-over", "over
   * ear" → "over-ear"): the stop word then counts, as part of the compound, for the products that hold it. Not
   * searched: the other word finds every product holding the compound.
   */
  compound?: boolean;
  /**
   * A correction of a word English has and the catalog lacks ("coffee *beans*" → jeans), or a synonym read from one:
   * as often what the shopper meant is not sold. The query's other words confirm it or not (the local reranker's
   * `misread`).
   */
  guessed?: boolean;
  /** The word on the other side of "or" ("canon or nikon"): holding it answers this word as fully as holding this one. */
  either?: boolean;
  /**
   * A kind of product that goes with the thing the query says it is for ("something cosy for the sofa": throw;
   * goes-with.ts): searched, but scored only as the kind asked where the query names no kind the catalog sells.
   */
  goesWith?: boolean;
}

export interface QueryPlan {
  /** The query's words, lower-cased, as typed. */
  words: string[];
  /** Every form to search, typed ones first. */
  forms: Form[];
  corrections: { from: string; to: string }[];
  synonyms: { from: string; to: string[] }[];
  /** Kinds searched as going with what the query says the product is for (goes-with.ts). */
  goesWith: { from: string; to: string[] }[];
  /** The query for the sentence encoder: as typed, with each typo replaced by its best correction. */
  embedText: string;
  /** The ages the query shops for ("toddlers"), or null (ages.ts). */
  ages: AskedAges | null;
  /** Words the shopper asks to be without ("not *wireless*"; interpret.ts), lower-cased: ranked against, not searched. */
  avoid: string[];
  /** The query's language (null: its words are in none the data knows) and the catalog's (languages/detect.ts). */
  language: { query: string | null; catalog: string };
  /** The languages whose text-search configurations full text reads the forms in: the query's, then the catalog's. */
  languages: string[];
  /** Words of a query in another language than the catalog's, read in the catalog's through the lexicons. */
  translations: { from: string; to: string[] }[];
  /** Words of the query that nothing read: in another language and no lexicon names them, or in no language known. */
  unread: string[];
}

/**
 * Whether no word of the query is read: each is in no language known, or in one no lexicon reads, and the catalog
 * holds none of them ("xyzzy plugh qwertz"). The sentence encoder's nearness to such words is no evidence: it puts
 * them near pages in languages it cannot read as readily as near anything.
 */
export function nothingRead(plan: QueryPlan): boolean {
  return plan.words.filter((word) => /\p{L}/u.test(word)).every((word) => plan.unread.includes(word));
}

/** How many words the catalog lacks are looked up for corrections in one query (the first ones). */
const MAX_UNKNOWN_WORDS = 8;
/** An English word is not split into two halves both shorter than this ("lot ion"; typos.ts's `split` takes "blu ray"). */
const ENGLISH_HALF = 4;

/** How many words of a query are searched as the letters of a code (the first ones). */
const MAX_PREFIXES = 3;

export interface Token {
  word: string;
  index: number;
  length: number;
  /** A number, code or SKU: never corrected. */
  code: boolean;
}

export function tokens(query: string): Token[] {
  const shouting = query === query.toUpperCase();
  return [...query.matchAll(/\S+/gu)].flatMap((chunk) => {
    const text = chunk[0];
    // Digits anywhere in a run ("xr-55", "16gb", "sku123") or capitals only ("LED", "ABX") mark a code, unless the
    // whole query is in capitals.
    const letters = text.replace(/[^\p{L}]/gu, "");
    const code = /\p{N}/u.test(text) || (!shouting && letters.length >= 2 && letters === letters.toUpperCase() && letters !== letters.toLowerCase());
    // A decimal is one word, as Postgres indexes it ("15.6" of a 15.6" notebook case; split, "6" found iPhone 6 cases).
    return [...text.matchAll(/\p{N}+\.\p{N}+|[\p{L}\p{N}]+/gu)].map((match) => ({
      word: match[0].toLowerCase(),
      index: chunk.index + match.index,
      length: match[0].length,
      code,
    }));
  });
}

export interface UnderstandDeps {
  /** The catalog's vocabulary; null: no corrections (typos=false). */
  vocabulary: Vocabulary | null;
  synonyms: SynonymSet;
  /** Words read out of the query as unwanted (interpret.ts). */
  avoid?: readonly string[];
  /** The catalog's language (languages/catalog.ts); detection.json's fallback when absent. */
  catalogLanguage?: string;
  /** The languages enough of the catalog's products are in (languages/catalog.ts): the words are searched in each too. */
  catalogLanguages?: readonly string[];
}

/** The query's language (languages/detect.ts): a word the catalog holds, or holds one edit away, counts for its own. */
/** The catalog's words as language detection reads them; `near` looks for corrections, so each word is looked up once. */
function catalogWords(vocabulary: Vocabulary | null): CatalogWords | undefined {
  if (!vocabulary) return undefined;
  const near = new Map<string, boolean>();
  return {
    held: (word: string) => heldCount(word, vocabulary) > 0,
    near: (word: string) => {
      let found = near.get(word);
      if (found === undefined) {
        found = corrections(word, vocabulary, { twoEdits: false }).length > 0;
        near.set(word, found);
      }
      return found;
    },
  };
}

/** What the steps of `understand` read, and the corrections they add as they go. */
interface Understanding {
  query: string;
  found: Token[];
  /** The query's words, lower-cased, as typed. */
  words: string[];
  deps: UnderstandDeps;
  catalog: string;
  ages: AskedAges | null;
  /** Words a synonym rule knows: the shopper's language, not typos. */
  known: Set<number>;
  /** Words of an age counted in years or months: read by the ages, not searched. */
  aged: Set<number>;
  /** Corrections, and words written apart: the forms other than typed ones, synonyms, either's and goes-with's. */
  forms: Form[];
  fixes: QueryPlan["corrections"];
  /** Words joined to a neighbour (joinNeighbours). */
  inJoined: Set<number>;
}

export function understand(query: string, deps: UnderstandDeps): QueryPlan {
  const plan = readQuery(query, deps);
  // A page is indexed in its own language: an English query's "walkie" finds an Italian page's only stemmed as Italian.
  const others = (deps.catalogLanguages ?? []).filter((language) => !plan.languages.includes(language));
  if (others.length === 0) return plan;
  const across = readInto(plan.words, plan.language.query ?? plan.language.catalog, others);
  const alternatives = readAlternativesInto(plan, plan.language.query ?? plan.language.catalog, others);
  return { ...plan, languages: [...plan.languages, ...others], forms: [...plan.forms, ...across, ...alternatives] };
}

function readQuery(query: string, deps: UnderstandDeps): QueryPlan {
  const found = tokens(query);
  const words = found.map((token) => token.word);
  const catalog = deps.catalogLanguage ?? languageData().detection.catalogFallback;
  const known = catalogWords(deps.vocabulary);
  const language = queryLanguage(words, catalog, known);
  // A query in another language is read through the lexicons, never corrected into the catalog's words.
  if (language !== catalog) return readForeign(query, found, { ...deps, language, catalog });
  const plan = readInCatalogLanguage(query, found, deps, catalog);
  if (plan.language.query !== null) return plan;
  const likeliest = likeliestLanguage(words, catalog, known);
  return likeliest ? readForeign(query, found, { ...deps, language: likeliest, catalog }) : plan;
}

function readInCatalogLanguage(query: string, found: Token[], deps: UnderstandDeps, catalog: string): QueryPlan {
  const words = found.map((token) => token.word);
  // An age counted in years or months ("5 year old") is read by the ages, not searched: its "5" is no "5 Sides".
  const ages = askedAges(query);
  const u: Understanding = {
    query,
    found,
    words,
    deps,
    catalog,
    ages,
    // A word a synonym rule knows is the shopper's language, not a typo ("couch" in a catalog that says "sofa").
    known: new Set(expand(words, deps.synonyms).flatMap(covered)),
    aged: new Set(
      ages?.counted ? found.flatMap((token, i) => (token.index >= ages.index && token.index < ages.index + ages.text.length ? [i] : [])) : [],
    ),
    forms: [],
    fixes: [],
    inJoined: new Set(),
  };
  // As typed first: neither word is then a typo ("soda" is no "sofa" beside "stream").
  joinNeighbours(u, words, false);
  const { primary, halvesRead } = correctWords(u);
  // Then as corrected: "nutri syystem" is "nutri system", which the catalog writes "nutrisystem".
  joinNeighbours(u, primary, true);

  // What a product is free of reads no synonyms: "fragrance-free lotion" asks for no perfume.
  const expansions = expand(
    primary.map((word, i) => (words[i + 1] === "free" ? "" : word)),
    deps.synonyms,
  );
  const replaced = new Set(expansions.filter((e) => e.replaces).flatMap(covered));
  const prefixes = codePrefixes(u);
  const either = eitherReadings(u, primary);
  const typed = typedForms(u, replaced, either.joiners, prefixes);
  const synonymForms = synonymFormsOf(u, expansions);
  const purposes = goesWith(primary);
  const goesWithForms = purposes.flatMap(({ at, kinds }) =>
    kinds.map((kind): Form => ({ start: at, end: at + 1, words: kind.split(" "), kind: "synonym", goesWith: true })),
  );
  return planOf(u, {
    typed,
    searched: [...typed, ...u.forms.filter((form) => !replaced.has(form.start)), ...synonymForms, ...either.forms, ...goesWithForms],
    synonyms: [
      ...expansions.map((e) => ({ from: primary.slice(e.start, e.end).join(" "), to: e.forms.map((form) => form.join(" ")) })),
      ...either.synonyms,
    ],
    goesWith: purposes.map(({ at, kinds }) => ({ from: primary[at]!, to: [...kinds] })),
    embedText: embedTextOf(u, primary, halvesRead),
  });
}

/** The indices of the query's words a run of them (an expansion, a translated phrase) stands for. */
export function covered(e: { start: number; end: number }): number[] {
  return Array.from({ length: e.end - e.start }, (_, j) => e.start + j);
}

/** Whether a word may be a typo: a word of letters, no code, stop word, age, quantity or whom, nor a synonym's. */
function correctable({ known, aged, words }: Understanding, token: Token, i: number): boolean {
  return (
    !known.has(i) &&
    !aged.has(i) &&
    !token.code &&
    /^\p{L}+$/u.test(token.word) &&
    !STOP_WORDS.has(token.word) &&
    !namesWhom(words, i) &&
    !isQuantity(words, i)
  );
}

/** Words [start, end) read as `to`: searched, and listed among the corrections. */
function correct(u: Understanding, start: number, end: number, to: string[], read: Pick<Form, "apart" | "guessed"> = {}): void {
  u.forms.push({
    start,
    end,
    words: to,
    kind: "correction",
    ...(read.apart && { apart: true }),
    ...(read.guessed && { guessed: true }),
  });
  u.fixes.push({ from: u.words.slice(start, end).join(" "), to: to.join(" ") });
}

/** Two neighbouring words the catalog writes as one, read as typed or (changedOnly) as corrected. */
function joinNeighbours(u: Understanding, read: readonly string[], changedOnly: boolean): void {
  const { found, words, known, inJoined } = u;
  const { vocabulary } = u.deps;
  if (!vocabulary) return;
  for (let i = 0; i + 1 < found.length; i++) {
    // A letter alone may be a stop word ("i pad"): joined, it is no longer one.
    const left = found[i]!;
    const leftJoins = correctable(u, left, i) || (/^\p{L}$/u.test(left.word) && !known.has(i) && !left.code);
    if (inJoined.has(i) || inJoined.has(i + 1) || !leftJoins || !correctable(u, found[i + 1]!, i + 1)) continue;
    if (changedOnly && read[i] === words[i] && read[i + 1] === words[i + 1]) continue;
    const word = joined(read[i]!, read[i + 1]!, vocabulary);
    if (!word) continue;
    correct(u, i, i + 2, [word]);
    inJoined.add(i).add(i + 1);
  }
}

/** What correcting the words one by one leaves for the rest of the plan. */
interface Corrected {
  /** Each word as the rest of the plan reads it: its best correction when the catalog lacks it. */
  primary: string[];
  /** The two English words an unknown word with no other correction splits into: what the sentence encoder reads for it. */
  halvesRead: Map<number, string>;
  /** How many words the catalog lacks were looked up so far. */
  looked: number;
  /**
   * The one-word terms of the synonyms, and of the lexicons reading the catalog's language into the others it holds
   * ("presure" is "pressure", a German page's "Hochdruckreiniger"), listed the first time a typo is looked for.
   */
  synonymTerms?: string[];
}

function correctWords(u: Understanding): Corrected {
  const corrected: Corrected = { primary: [...u.words], halvesRead: new Map(), looked: 0 };
  for (const [i, token] of u.found.entries()) correctWord(u, corrected, token, i);
  return corrected;
}

/** A word's corrections: the catalog's word with other accents, words an edit or two away, a synonym's word, or halves. */
function correctWord(u: Understanding, corrected: Corrected, token: Token, i: number): void {
  const { words, deps } = u;
  const { vocabulary } = deps;
  const { primary } = corrected;
  if (!vocabulary || !correctable(u, token, i) || u.inJoined.has(i)) return;
  // A shopper's query holds a typo or two; a long paste of unknown words is not worth 10 ms a word.
  const unknown = vocabulary.count(token.word) === 0;
  // The catalog's word with other accents is the word itself, common or not ("cafe" for café, "karcher" for Kärcher).
  const alike = unknown ? vocabulary.accentedAlike(token.word) : [];
  if (alike.length > 0) {
    primary[i] = alike[0]!;
    correct(u, i, i + 1, [alike[0]!]);
    return;
  }
  // A common English word the catalog lacks is what the shopper meant: nothing in the catalog is it.
  if (unknown && isCommonWord(token.word)) return;
  if (unknown && ++corrected.looked > MAX_UNKNOWN_WORDS) return;
  // An English word the catalog lacks is corrected one edit away at most ("pats" → pants, not "slippers" → sleepers).
  const englishWord = isEnglishWord(token.word);
  const english = unknown && englishWord;
  // Nor to a word the query holds already: "thigh high boots" is no "high high boots".
  const closest = corrections(token.word, vocabulary, { twoEdits: !english }).filter((to) => !words.includes(to));
  if (unknown && closest.length > 0) primary[i] = closest[0]!;
  for (const to of closest) correct(u, i, i + 1, [to], { guessed: english });
  // A typo of a word only the synonyms know ("rucksak" for rucksack, which the catalog calls a backpack) is that
  // word, which the synonyms then read.
  if (unknown && closest.length === 0 && !englishWord) {
    corrected.synonymTerms ??= [...singleWordTerms(deps.synonyms), ...lexiconWords(u.catalog, deps.catalogLanguages ?? [])];
    const term = closestTerm(token.word, corrected.synonymTerms);
    if (term !== null) {
      primary[i] = term;
      correct(u, i, i + 1, [term]);
      return;
    }
  }
  const halves = split(token.word, vocabulary);
  if (!halves) return;
  // An English word split is a phrase of the catalog's two words at best ("sofabed" as "sofa bed"), never pieces
  // no one would write apart: "lotion" is no "lot ion", "underwear" no "under wear" (a stop word drops out).
  const pieces = halves.every((half) => [...half].length < ENGLISH_HALF) || halves.some((half) => STOP_WORDS.has(half));
  if (englishWord && pieces) return;
  // An English word run together is a word of its own: "bookcase" is no book and no case, "housewarming" no house.
  const apart = !englishWord && halves.every((half) => isEnglishWord(half));
  correct(u, i, i + 1, halves, { apart });
  // The encoder reads "waterbottle" as noise, "water bottle" as a bottle.
  if (apart && unknown && closest.length === 0) corrected.halvesRead.set(i, halves.join(" "));
}

/**
 * A short word the catalog lacks, English lacks, and nothing corrects may be the letters of a code it writes with a
 * number ("spf" in "SPF50+", which Postgres reads as one word "spf50"): it is searched as a word's start. The first
 * few only: a pasted run of such words would each match every word they start.
 */
function codePrefixes(u: Understanding): Set<number> {
  const { vocabulary } = u.deps;
  const corrected = new Set(u.forms.map((form) => form.start));
  return new Set(
    u.found
      .flatMap((token, i) =>
        vocabulary !== null &&
        correctable(u, token, i) &&
        /^\p{L}{3,5}$/u.test(token.word) &&
        heldCount(token.word, vocabulary) === 0 &&
        !corrected.has(i) &&
        !isEnglishWord(token.word)
          ? [i]
          : [],
      )
      .slice(0, MAX_PREFIXES),
  );
}

/**
 * "vitamix vs blendtec", "canon or nikon camera": the words either side of "or" stand for each other, as synonyms
 * do, so that a product holding either holds the query (rather than an accessory naming both coming first). One word
 * a side: "ray ban or oakley" pairs "ban" and "oakley". `joiners`: the words joining them, not searched.
 */
function eitherReadings({ found, words, aged }: Understanding, primary: readonly string[]) {
  const forms: Form[] = [];
  const synonyms: QueryPlan["synonyms"] = [];
  const joiners = new Set<number>();
  const { either } = rules().productType;
  for (let i = 1; i + 1 < found.length; i++) {
    const [left, right] = [found[i - 1]!, found[i + 1]!];
    if (!either.includes(words[i]!) || [left, right].some((token) => STOP_WORDS.has(token.word) || either.includes(token.word))) continue;
    if (aged.has(i - 1) || aged.has(i + 1) || primary[i - 1] === primary[i + 1] || phrasesEitherSide(found, i)) continue;
    joiners.add(i);
    for (const [at, other] of [
      [i - 1, i + 1],
      [i + 1, i - 1],
    ] as const) {
      forms.push({ start: at, end: at + 1, words: [primary[other]!], kind: "synonym", either: true });
      synonyms.push({ from: primary[at]!, to: [primary[other]!] });
    }
  }
  return { forms, synonyms, joiners };
}

/**
 * Words on both sides beyond the pair ("pretend kitchen or play food"): the choice is between phrases, whose bounds one
 * word a side does not know ("kitchen" is no "play"), so it is searched as typed. One side open stays a pair of words:
 * "canon or nikon camera", "cheap kettle or toaster".
 */
function phrasesEitherSide(found: readonly Token[], i: number): boolean {
  const isWord = (token: Token | undefined) => token !== undefined && !STOP_WORDS.has(token.word) && !rules().productType.either.includes(token.word);
  return isWord(found[i - 2]) && isWord(found[i + 2]);
}

/** The words as typed, but those a synonym replaces, ages and either's joiners, and as written the other way (spacings). */
function typedForms(u: Understanding, replaced: ReadonlySet<number>, joiners: ReadonlySet<number>, prefixes: ReadonlySet<number>): Form[] {
  const { words, aged } = u;
  const typed: Form[] = words.flatMap((word, i) =>
    replaced.has(i) || aged.has(i) || joiners.has(i)
      ? []
      : [{ start: i, end: i + 1, words: [word], kind: "typed" as const, ...(prefixes.has(i) && { prefix: true }) }],
  );
  return [...typed, ...spacings(words).filter((form) => !replaced.has(form.start) && !aged.has(form.start))];
}

function synonymFormsOf(u: Understanding, expansions: readonly Expansion[]): Form[] {
  return expansions.flatMap((e) => {
    // Read from a guess (`primary` holds the first of a word's corrections), a synonym is one too: "racket" → jacket → shell.
    const guessed = u.forms.some((form) => form.guessed && form.start < e.end && e.start < form.end);
    return e.forms.map(
      (words): Form => ({ start: e.start, end: e.end, words: letterCompounds(words), kind: "synonym", ...(guessed && { guessed }) }),
    );
  });
}

/** The query for the sentence encoder: as typed, each word replaced by what the plan reads it as. */
function embedTextOf({ query, found, words }: Understanding, primary: readonly string[], halvesRead: ReadonlyMap<number, string>): string {
  let embedText = query;
  for (let i = found.length - 1; i >= 0; i--) {
    const token = found[i]!;
    const read = halvesRead.get(i) ?? primary[i]!;
    if (read !== words[i]) embedText = embedText.slice(0, token.index) + read + embedText.slice(token.index + token.length);
  }
  return embedText;
}

/** The plan of a query in the catalog's language, or of its typed words alone when most are in no language known. */
function planOf(
  { query, found, words, deps, catalog, ages, fixes }: Understanding,
  read: Pick<QueryPlan, "synonyms" | "goesWith" | "embedText"> & { typed: Form[]; searched: Form[] },
): QueryPlan {
  const held = (word: string) => (deps.vocabulary ? heldCount(word, deps.vocabulary) > 0 : false);
  const inLanguage = inCatalogLanguage(found, read.searched, catalog, held);
  // Most of it in no language known: nothing of it is guessed into the catalog's words ("plugh" is no typo of "plush").
  if (inLanguage.language.query === null) {
    return {
      words,
      forms: read.typed,
      corrections: [],
      synonyms: [],
      goesWith: [],
      embedText: query,
      ages,
      avoid: [...(deps.avoid ?? [])],
      ...inCatalogLanguage(found, read.typed, catalog, held),
    };
  }
  const abroad = readAbroad(found, read.searched, catalog, held);
  const readWords = new Set(abroad.translations.map((t) => t.from));
  return {
    words,
    forms: [...read.searched, ...abroad.forms],
    corrections: fixes,
    synonyms: read.synonyms,
    goesWith: read.goesWith,
    embedText: abroad.translations.reduce((text, t) => text.replace(new RegExp(escapeRegExp(t.from), "iu"), t.to[0]!), read.embedText),
    ages,
    avoid: [...(deps.avoid ?? [])],
    ...inLanguage,
    translations: [...inLanguage.translations, ...abroad.translations],
    unread: inLanguage.unread.filter((word) => !readWords.has(word)),
  };
}

/**
 * A synonym's words with a letter the stop list drops joined to the word after it, as catalogs hyphenate them: "t
 * shirt" is searched as "t-shirt" (T-Shirt), which as two words was any shirt, the "t" being no word to Postgres.
 */
export function letterCompounds(words: readonly string[]): string[] {
  const joined: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!;
    const next = words[k + 1];
    if (word.length === 1 && STOP_WORDS.has(word) && next !== undefined && /^\p{L}+$/u.test(next)) {
      joined.push(`${word}-${next}`);
      k++;
    } else joined.push(word);
  }
  return joined;
}

/**
 * A word and a number beside it written the other way, as typed all the same: "spf 50" and "16 gb" are also searched
 * as "spf50" and "16gb" (Postgres reads "SPF50+" as one word, which "spf" and "50" do not match), "16gb" also as the
 * phrase "16 gb". A tokenisation, not a reading, so not listed in the interpretation. A number is joined to the word
 * after it only when that is a unit ("2 person" is no "2person"), and a stop word never ("for 2"). A model typed
 * together is searched apart as the catalog writes it: "iphone5s" as "iphone 5s", "nintendo3ds" as "nintendo 3ds".
 */
function spacings(words: readonly string[]): Form[] {
  const letters = (word: string | undefined) => word !== undefined && /^\p{L}{2,}$/u.test(word) && !STOP_WORDS.has(word);
  const digits = (word: string | undefined) => word !== undefined && /^\p{N}+$/u.test(word);
  return words.flatMap((word, i): Form[] => {
    const next = words[i + 1];
    const joined: Form[] =
      (letters(word) && digits(next)) || (digits(word) && next !== undefined && isUnit(next))
        ? [{ start: i, end: i + 2, words: [word + next], kind: "typed" }]
        : [];
    const apart: Form[] = [];
    const wordApart = (...parts: string[]) => apart.push({ start: i, end: i + 1, words: parts, kind: "typed" });
    const model = /^(\p{L}{2,})(\p{N}+)(\p{L}*)$/u.exec(word);
    if (model) {
      const [, name, number, suffix] = model;
      // A short suffix is the model's ("5s", "3ds"), a longer one a word of its own ("6 plus").
      if (suffix!.length > 3) wordApart(name!, number!, suffix!);
      else wordApart(name!, number! + suffix!);
    } else {
      const numberFirst = /^(\p{N}+)(\p{L}{2,})$/u.exec(word);
      if (numberFirst) wordApart(numberFirst[1]!, numberFirst[2]!);
    }
    const compound: Form[] =
      next !== undefined && /^\p{L}+$/u.test(word) && /^\p{L}+$/u.test(next) && STOP_WORDS.has(word) !== STOP_WORDS.has(next)
        ? [{ start: i, end: i + 2, words: [`${word}-${next}`], kind: "typed", compound: true }]
        : [];
    return [...joined, ...apart, ...compound];
  });
}

/**
 * The words of a form as a tsquery operand: a phrase for several, both words anywhere for a word split apart
 * (`Form.apart`), a prefix match for a prefix form. Only letters and digits reach to_tsquery.
 */
function operand(form: Form): string {
  if (form.prefix) return `${form.words[0]!}:*`;
  if (form.words.length === 1) return form.words[0]!;
  return `(${form.words.join(form.apart ? " & " : " <-> ")})`;
}

/** Products with any form of any word: what full-text retrieval matches. Null when there is nothing to search. */
export function anyWordQuery(plan: QueryPlan): string | null {
  const operands = [...new Set(plan.forms.filter((form) => !form.compound).map(operand))];
  return operands.length > 0 ? operands.join(" | ") : null;
}

/** Each searched word's full-text clause (to_tsquery text): any of its forms, as typed, corrected or a synonym. */
export function wordClauses(plan: QueryPlan): { index: number; clause: string }[] {
  return plan.words.flatMap((_, index) => {
    const operands = [...new Set(plan.forms.filter((form) => !form.compound && form.start <= index && index < form.end).map(operand))];
    return operands.length === 0 ? [] : [{ index, clause: operands.length === 1 ? operands[0]! : `(${operands.join(" | ")})` }];
  });
}

/** Products with some form of every word (see retrieve.ts, everyWordFirst). */
export function everyWordQuery(plan: QueryPlan): string | null {
  const clauses = wordClauses(plan).map(({ clause }) => clause);
  return clauses.length > 0 ? [...new Set(clauses)].join(" & ") : null;
}

/** A plan that is the query's words alone: no corrections, no synonyms. */
export function literalPlan(query: string): QueryPlan {
  return understand(query, { vocabulary: null, synonyms: { byFirst: new Map(), rules: 0 } });
}
