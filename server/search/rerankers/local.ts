/**
 * The default reranker: no network, a few milliseconds. It rescores the fused
 * candidates with what retrieval alone cannot weigh together, reading each of
 * the query's words in all its forms (as typed, corrected, or a synonym; see
 * understand.ts), a typed word counting more than the others:
 *
 * - BM25F over the stemmed words of name, brands and description (Postgres's
 *   own tsvectors, with document frequencies from the catalog), so rare words
 *   count more and the name counts most;
 * - how much of the query the name covers, and how much the product covers
 *   anywhere (the description counts where the name is silent: a rain shell
 *   whose description says "waterproof" and "hiking"), whether query words
 *   appear side by side in the name (phrases, numbers with units: "16 gb"),
 *   and whether the name holds the whole query in its order ("Tea Cup with
 *   Saucer" for "tea cup saucer");
 * - whether the name holds the query's last word, and whether the product is
 *   of the kind the query asks for: the head of its name or category against
 *   the query's head word (product-type.ts), so a jacket beats waterproof
 *   gaiters for "waterproof jacket"; without a category, the query's head word
 *   anywhere in the name counts too;
 * - whether the product is only an accessory of what was asked for ("case
 *   *for* iPhone" for "iphone");
 * - whether its description states ages that leave out those the query asks
 *   for (ages.ts: the 3-to-6 play kitchen for "toys for toddlers"), and
 *   whether its name is for the other sex than the query names (sexes.ts);
 * - the sentence-encoder similarity of query and product.
 *
 * This module computes the features; ranking.ts weighs them and applies the
 * relevance floor. Weights were tuned on the dev queries of bench/relevance.ts
 * and the sample-catalog set of bench/sample-queries.json only.
 */
import { inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { products } from "../../db/schema.js";
import type { Product } from "../../../shared/schemas/index.js";
import { LruCache } from "../../cache.js";
import { lexemeQuery, parseTsvector, type Field, type Term, wordsIn } from "../lexical.js";
import { type AgeRange, excludes, productAges } from "../ages.js";
import { otherSex, sexesAsked, sexesOf } from "../sexes.js";
import { otherSpecies, speciesIn } from "../species.js";
import { bedSizesAsked, otherBedSize } from "../bed-sizes.js";
import { isEnglishWord, MEANT_STOP_WORDS } from "../common-words.js";
import {
  categoryHeads,
  describesUse,
  describesWhom,
  isPackaging,
  isQuantity,
  isVague,
  isWhom,
  purposeAfter,
  queryHead,
  readName,
} from "../product-type.js";
import { derived } from "../rules/index.js";
import type { Reranker, RerankContext, RerankResult } from "../reranker.js";
import { vectorLiteral } from "../retrieve.js";
import { catalogSizeEvery } from "../catalog-size.js";
import { CATEGORY_SEPARATOR, categoryKey } from "../../catalog/structured.js";
import { wordFrequenciesOf } from "../statistics.js";
import { type Form, literalPlan, type QueryPlan } from "../understand.js";
import { DEFAULT_WEIGHTS, type LocalWeights, rankScored, type Scored, takingTurns } from "./ranking.js";

interface Document {
  terms: Map<string, { tf: Record<Field, number>; positions: number[]; everywhere: { position: number; field: Field }[] }>;
  /** Positions holding a word, and those holding a hyphenated compound ("pour-ov"): a stop word leaves a gap (StemmedForm's `compound`). */
  occupied: Set<number>;
  /** Position → how many words the compound there joins (Postgres puts its parts at the positions after it). */
  hyphenated: Map<number, number>;
  length: Record<Field, number>;
  /** Lexemes of the category path. */
  category: Set<string>;
  /** Lexemes of the kinds its name and category name. */
  kinds: Set<string>;
  /** The words of its name, brands and category as written, lower-cased (StemmedForm's `written`). */
  words: Set<string>;
  /** The words of its description as written, lower-cased. */
  descWords: Set<string>;
  /**
   * Words it says it is free of ("Fragrance-free", "BPA-free"), as written, with how often in each field: Postgres
   * also indexes the word alone ("fragranc"), which says the opposite of what the product is.
   */
  freeOf: Map<string, Record<Field, number>>;
  /** How often each field holds each stop word the query means (StemmedForm's `unindexed`), as written. */
  unindexed: Map<string, Record<Field, number>>;
}

/**
 * Letters of the Latin script. The local sentence encoder's vocabulary is English: it reads a page with no such letter
 * as it reads any word it does not know, so gibberish is as similar to a Chinese page (0.55-0.59) as words are to a
 * page they describe. Its similarity between a query written in Latin letters and such a page is no evidence.
 */
const LATIN = /\p{Script=Latin}/u;

/** The most parts a hyphenated compound is looked back for ("all-in-one": 3). */
const MAX_COMPOUND_PARTS = 4;

/** A word and "free" hyphenated, as Postgres stems the pair: "fragrance-free" → "fragrance-fre". */
const FREE_OF = "-fre";

/** How often a document says it is free of a word, as written or in the singular ("fragrances" of "Fragrance-free"). */
function freeOf(document: Document, word: string): Record<Field, number> | undefined {
  return document.freeOf.get(word) ?? document.freeOf.get(word.replace(/s$/u, ""));
}

function toDocument(terms: readonly Term[], parts: Omit<Document, "terms" | "length" | "freeOf" | "occupied" | "hyphenated">): Document {
  const document: Document = {
    terms: new Map(),
    length: { name: 0, brands: 0, desc: 0 },
    freeOf: new Map(),
    occupied: new Set(),
    hyphenated: new Map(),
    ...parts,
  };
  for (const term of terms) {
    // The category is read whole, as the document's `category`, not as one more field of BM25F.
    if (term.field === "category") continue;
    if (term.lexeme.endsWith(FREE_OF)) {
      const free = term.lexeme.slice(0, -FREE_OF.length);
      const counts = document.freeOf.get(free) ?? { name: 0, brands: 0, desc: 0 };
      counts[term.field]++;
      document.freeOf.set(free, counts);
    }
    let entry = document.terms.get(term.lexeme);
    if (!entry) {
      entry = { tf: { name: 0, brands: 0, desc: 0 }, positions: [], everywhere: [] };
      document.terms.set(term.lexeme, entry);
    }
    entry.tf[term.field]++;
    if (term.field === "name") entry.positions.push(term.position);
    entry.everywhere.push({ position: term.position, field: term.field });
    document.occupied.add(term.position);
    if (term.lexeme.includes("-")) document.hyphenated.set(term.position, term.lexeme.split("-").length);
    document.length[term.field]++;
  }
  return document;
}

/** One of a query word's forms, stemmed: a product holds it when it holds every lexeme. */
interface StemmedForm {
  lexemes: string[];
  weight: number;
  /** A typo's correction, not the word as typed or a synonym. */
  corrected: boolean;
  /** Held as its lexeme, or by any code made of it and a number (understand.ts's prefix forms: "spf" in "spf50"). */
  prefix?: boolean;
  /** The word as the query writes it, for a form of one word: what a product's "…-free" would name. */
  word?: string;
  /**
   * A stop word that names a thing ("*down* jacket"; MEANT_STOP_WORDS): the index holds it nowhere, so it is read in
   * the products' words as written (Document's `unindexed`), its one "lexeme" the word itself.
   */
  unindexed?: boolean;
  /**
   * For a word the stemmer cut a suffix off that makes another word ("light*ing*" → light, "comfort*er*" → comfort),
   * the word as written in both numbers (`forms`), and the stem's own words ("light", "lights"). Name, brands and
   * category hold the word only as written, since the stem names another thing ("Light Roast" coffee is no lighting,
   * a bed no bedding). Found as the stem's own word anywhere it counts as the description does ("hikes" for
   * "hiking"); found only inside another word ("*organ*ic" for "organizer"), as `credit.stem`. For a word saying a
   * doing ("insulating", "cancelling"), `verb` is the stem, whose other forms of the doing count as its own words
   * ("insulated", "cancellation").
   */
  written?: { forms: string[]; stem: string[]; verb?: string };
  /**
   * For a compound of a word and a stop word (understand.ts's `compound`: "pour-over"), the word's lexeme and which
   * side the stop word stands: a product writing the two apart ("Wreck It Ralph") holds it too, as the word with a
   * gap on that side, where the index dropped the stop word; not the gap a compound's stop word leaves ("On-Ear" is
   * no "over ear").
   */
  compound?: { lexeme: string; stopBefore: boolean };
}

/** A query word with lexemes in some form (stop words have none), and its weight in the query. */
interface Clause {
  forms: StemmedForm[];
  idf: number;
  /** A word before the query's head word, not a number nor its unit: the sort of the kind asked ("*office* chair"). */
  sort: boolean;
  /** A word after the head word saying how it is sold ("knife *set*"): it names a kind asked only beside the head word. */
  sold: boolean;
  /** A word after the head word's preposition of purpose: what the product is for ("cushion for the *sofa*"), no kind asked. */
  target: boolean;
  /** A word before the head word, not a quantity, with no "and" between them: the sort, or what it goes with ("*knife* sharpener"). */
  before: boolean;
  /** The catalog holds the word as typed, and it is read as a commoner word too ("glade" as blade): Scored's `typedHeld`. */
  alsoRead: boolean;
  /** For a target word, the kinds that go with it (understand.ts's `goesWith` forms): Scored's `fitted`. */
  fits: StemmedForm[];
}

/** Words joining two kinds asked ("dining table *and* chairs"): the first is no sort of the second. */
/** The words of product-type.json the local reranker reads as sets. */
const markers = derived(({ productType }) => ({
  joinsKinds: new Set(productType.joinsKinds),
  accessory: new Set(productType.accessoryMarkers),
  companion: new Set([...productType.accessoryMarkers, ...productType.companionMarkers]),
}));

interface Query {
  clauses: Clause[];
  /** Index in `clauses` of the word naming the kind of product asked for. */
  head: number | undefined;
  /** The query says "free" ("fragrance free soap"): then a product free of a word holds it as asked. */
  freeAsked: boolean;
  /** The query describes what the product is to do (describesUse): its head word says what that is. */
  use: boolean;
  /** Its head word is English and the catalog holds it in no form (Scored's `headUnsold`). */
  headUnsold: boolean;
}

/** Raw features of one candidate (all but `accessory`, `ages`, `sex`, `bedSize` and `avoided`). */
function features(
  query: Query,
  document: Document,
  averageLength: Record<Field, number>,
  cosine: number,
  weights: LocalWeights,
): Omit<Scored, "department" | "otherAnimal"> {
  const norms = {} as Record<Field, number>;
  for (const field of ["name", "brands", "desc"] as const) {
    norms[field] = 1 - weights.b + weights.b * (document.length[field] / Math.max(1, averageLength[field]));
  }
  // How often the document holds a lexeme in a field, and for a prefix form any code it starts too ("spf" of "spf50").
  const frequency = (form: StemmedForm, lexeme: string, field: Field) => {
    let count = form.unindexed ? (document.unindexed.get(lexeme)?.[field] ?? 0) : (document.terms.get(lexeme)?.tf[field] ?? 0);
    // "Fragrance-free" holds no fragrance: the word alone, which Postgres indexes too, counts only elsewhere.
    if (!query.freeAsked && form.word !== undefined && count > 0) {
      const free = freeOf(document, form.word);
      count = Math.max(0, count - (free?.[field] ?? 0));
    }
    if (form.compound && lexeme !== form.compound.lexeme) count += apart(form.compound, field);
    if (!form.prefix) return count;
    for (const [term, entry] of document.terms) if (term.startsWith(lexeme) && /^\p{N}/u.test(term.slice(lexeme.length))) count += entry.tf[field];
    return count;
  };
  // The compound's word standing alone with the gap of a stop word beside it: not a part of another compound, whose
  // gaps are its own stop words ("On-Ear" → on-ear, ·, ear; "Roll-Out" → roll-out, roll, ·).
  const apart = ({ lexeme, stopBefore }: NonNullable<StemmedForm["compound"]>, field: Field) => {
    const gap = stopBefore ? -1 : 1;
    const spots = document.terms.get(lexeme)?.everywhere ?? [];
    return spots.filter(
      ({ position, field: at }) => at === field && position + gap >= 1 && !document.occupied.has(position + gap) && !partOfCompound(position),
    ).length;
  };
  const partOfCompound = (position: number) => {
    for (let start = position - 1; start >= position - MAX_COMPOUND_PARTS; start--) {
      const parts = document.hyphenated.get(start);
      if (parts !== undefined && start + parts >= position) return true;
    }
    return false;
  };
  const stemIn = (form: StemmedForm, field: Field) => form.lexemes.every((lexeme) => frequency(form, lexeme, field) > 0);
  const asWritten = (form: StemmedForm) => form.written?.forms.some((word) => document.words.has(word)) ?? true;
  const holds = (form: StemmedForm, field: Field) => stemIn(form, field) && (field === "desc" || asWritten(form));
  const inCategory = (form: StemmedForm) => form.lexemes.every((lexeme) => document.category.has(lexeme));
  // The stem as a word of its own ("light", "hikes"), or only inside another word ("*organ*ic" for "organizer").
  const ownWord = ({ written }: StemmedForm) => {
    if (written === undefined) return true;
    const { verb } = written;
    return (
      [...written.forms, ...written.stem].some((word) => document.words.has(word) || document.descWords.has(word)) ||
      (verb !== undefined && [...document.words, ...document.descWords].some((word) => doingOf(word, verb)))
    );
  };
  const namesKind = (forms: readonly StemmedForm[], typed = false) =>
    forms.some(
      (form) =>
        (!typed || !form.corrected) &&
        document.kinds.has(form.lexemes.at(-1)!) &&
        asWritten(form) &&
        // A form of several words names the kind its last word names when the name holds them all ("*throw blanket*"),
        // or the category does ("Toys > *Soft Toys*" for "stuffed animal", through its synonym "soft toy").
        (form.lexemes.length === 1 || holds(form, "name") || inCategory(form)),
    );
  let bm25 = 0;
  let inName = 0;
  let anywhere = 0;
  let total = 0;
  const sorts: Scored["sorts"] = [];
  const headClause = query.head === undefined ? undefined : query.clauses[query.head];
  let headHeld = true;
  // It holds every word of the query that weighs, in some form, somewhere.
  let heldAll = true;
  let typedHeld = true;
  // What holding a kind that goes with a target word adds to `anywhere` (Scored's `fitted`); undefined when none does.
  let fitted: number | undefined;
  for (const clause of query.clauses) {
    total += clause.idf;
    let best = 0;
    let name = 0;
    let any = 0;
    let typedAny = false;
    for (const form of clause.forms) {
      let tf = 0;
      for (const field of ["name", "brands", "desc"] as const) {
        const count = Math.min(...form.lexemes.map((lexeme) => frequency(form, lexeme, field)));
        tf += (weights.fields[field] * count) / norms[field];
      }
      best = Math.max(best, (form.weight * tf) / (weights.k1 + tf));
      if (holds(form, "name")) name = Math.max(name, form.weight);
      const credit =
        holds(form, "name") || holds(form, "brands")
          ? 1
          : inCategory(form) && asWritten(form)
            ? weights.credit.category
            : inCategory(form) || stemIn(form, "desc") || stemIn(form, "name") || stemIn(form, "brands")
              ? ownWord(form)
                ? weights.credit.desc
                : weights.credit.stem
              : 0;
      any = Math.max(any, form.weight * credit);
      if (credit > 0 && !form.corrected) typedAny = true;
    }
    bm25 += clause.idf * best;
    inName += clause.idf * name;
    anywhere += clause.idf * any;
    if (clause.sort) sorts.push({ held: any > 0 });
    if (clause === headClause) headHeld = any > 0;
    if (clause.idf > 0 && any === 0) heldAll = false;
    if (clause.alsoRead && !typedAny) typedHeld = false;
    if (namesKind(clause.fits)) fitted = (fitted ?? 0) + clause.idf * Math.max(0, weights.forms.synonym - any);
  }
  // Neighbouring query words side by side in the name, in any of their forms.
  let pairs = 0;
  let adjacent = 0;
  const positions = (lexeme: string | undefined) => (lexeme === undefined ? [] : (document.terms.get(lexeme)?.positions ?? []));
  for (let i = 1; i < query.clauses.length; i++) {
    pairs++;
    const left = query.clauses[i - 1]!.forms.flatMap((form) => positions(form.lexemes.at(-1)));
    const right = query.clauses[i]!.forms.flatMap((form) => positions(form.lexemes[0]));
    if (left.some((p) => right.some((q) => q - p > 0 && q - p <= 1))) adjacent++;
  }
  // The whole query in the name, in its order, each word at most one word after the one before ("dresses for women",
  // "Screen Protector for Samsung"): phrase counts pairs side by side; this, the query read as one.
  let ends: number[] = [];
  for (const [k, clause] of query.clauses.entries()) {
    if (k > 0 && ends.length === 0) break;
    const next = new Set<number>();
    for (const form of clause.forms) {
      for (const start of positions(form.lexemes[0])) {
        if (k === 0 || ends.some((end) => start - end >= 1 && start - end <= 2)) next.add(start + form.lexemes.length - 1);
      }
    }
    ends = [...next];
  }
  const last = query.clauses.at(-1);
  const head = last?.forms.some((form) => holds(form, "name")) ? 1 : 0;
  // The kind of product: the query's head word among the kinds the name and category name, or else another query word.
  const names = (clause: Clause | undefined, typed = false) => (clause ? namesKind(clause.forms, typed) : false);
  // A set is of a kind asked when it is a set of what was asked: the tea tasting set for "tea set", not a mask set.
  const asked = (clause: Clause, typed = false) => !clause.target && (!clause.sold || headHeld) && names(clause, typed);
  const ofKindAsked = names(headClause);
  const type = ofKindAsked ? 1 : query.clauses.some((clause) => asked(clause)) ? 0.5 : 0;
  // Asked for by what it is to do, a product holding the word saying what ("something to keep drinks *cold* on a camping
  // trip") is an answer before one that shares only where it is used ("camping trip": a sleeping bag).
  const usesHead = query.use && headClause !== undefined && headHeld;
  return {
    bm25,
    coverage: total > 0 ? inName / total : 0,
    coverageAll: total > 0 ? anywhere / total : 0,
    phrase: pairs > 0 ? adjacent / pairs : 0,
    sequence: query.clauses.length > 1 && ends.length > 0 ? 1 : 0,
    cosine,
    head,
    type,
    // Without a category, the kind is only guessed from the name's last noun, which names often bury under sizes and
    // colours ("… Grappling Headgear Black M"): the query's head word anywhere in the name is evidence of it too.
    headNamed: document.category.size === 0 && headClause?.forms.some((form) => holds(form, "name")) ? 1 : 0,
    accessory: 0,
    ages: 0,
    sex: 0,
    bedSize: 0,
    avoided: 0,
    use: usesHead ? 1 : 0,
    // A kind reached only through a guessed correction ("dress" read as "press") is no evidence that the catalog has what was asked.
    kindAsked: query.clauses.some((clause) => asked(clause, true)),
    sorts,
    headHeld,
    isTarget: !ofKindAsked && query.clauses.some((clause) => clause.target && names(clause)),
    goesWith: !ofKindAsked && !headHeld && query.clauses.some((clause) => clause.before && names(clause)),
    // Only beside every other word: the Hi-Lite high chair holds "lites" as typed, the Christmas lights hold the rest.
    typedHeld: !query.clauses.some((clause) => clause.alsoRead) || (typedHeld && heldAll),
    headUnsold: query.headUnsold,
    ...(fitted !== undefined && !ofKindAsked && total > 0 && { fitted: (anywhere + fitted) / total }),
  };
}

/** How often each field of the product holds each of the words, as written ("down" in "Summit Down Jacket"). */
function countsOf(words: readonly string[], product: Product): Map<string, Record<Field, number>> {
  const fields = { name: wordsIn(product.name), brands: wordsIn(product.brands.join(" ")), desc: wordsIn(product.desc) };
  const count = (within: readonly string[], word: string) => within.filter((each) => each === word).length;
  return new Map(words.map((word) => [word, { name: count(fields.name, word), brands: count(fields.brands, word), desc: count(fields.desc, word) }]));
}

/** What follows a stem in the word's own forms ("shoe|s", "dress|es", "candl|e"), as against a suffix making another word. */
const INFLECTIONS = ["", "s", "es", "e"];

/** StemmedForm's `written`, for a one-word form whose stem lost a suffix making another word; else undefined. */
function writtenOf(words: readonly string[], lexemes: readonly string[]): StemmedForm["written"] {
  const word = words.length === 1 ? words[0]! : "";
  const stem = lexemes.length === 1 ? lexemes[0]! : "";
  if (!stem || !word.startsWith(stem) || INFLECTIONS.includes(word.slice(stem.length))) return undefined;
  // The stemmer writes a final y as i ("happi"): its own words are "happy" and "happies" too.
  const bases = stem.endsWith("i") ? [stem, `${stem.slice(0, -1)}y`] : [stem];
  return {
    forms: word.endsWith("s") ? [word, word.slice(0, -1)] : [word, `${word}s`],
    // A plural in -ings names things, not the doing ("stockings", "paintings", "fittings"): the stem's own word is
    // another thing (a stock, a paint), found only as inside another word. "hiking" is the doing, and "hikes" says it.
    stem: word.endsWith("ings") ? [] : bases.flatMap((base) => INFLECTIONS.map((ending) => base + ending)),
    ...(DOING.test(word.slice(stem.length)) && { verb: stem }),
  };
}

/**
 * What follows a stem in the forms saying a doing: -ing, -ed and -ion, after a doubled consonant ("cancel|ling") or
 * the -at- the stemmer cut ("insul|ated", "insul|ation"). Not -ings (things), -er (a thing that does it: "organizer",
 * whose stem is also organic's) nor -ic or -al.
 */
const DOING = /^[a-z]?(?:at)?(?:ing|ed|ion|ions)$/;

/** Whether a word is a form of the doing whose stem is given ("insulated" of insul, "cancellation" of cancel). */
function doingOf(word: string, stem: string): boolean {
  return word.startsWith(stem) && DOING.test(word.slice(stem.length));
}

/** Whether the ages a product suits (productAges: what its text states, a name for grown-ups, a stage named) leave out every age asked. */
function excludesAges(candidate: Product, asked: AgeRange): boolean {
  const stated = productAges(candidate.name, candidate.desc, candidate.category ?? null);
  return stated !== null && excludes(stated, asked);
}

/**
 * 1 when every query word the name holds comes after "for"/"fits"/"compatible" ("Leather Case for iPhone 6"), or,
 * for a product whose category says what it is, after "with" ("Dollhouse with 18 Furniture Pieces" is no furniture),
 * and the query itself has no such word. Without a category "with" does not count: such names often sell the pair
 * ("Camera with Lens"), and the name is all there is to go by.
 */
function accessoryOf(query: string, name: string, categorised: boolean): number {
  const { accessory, companion } = markers();
  const marking = categorised ? companion : accessory;
  const asked = wordsIn(query);
  if (asked.some((word) => marking.has(word))) return 0;
  const tokens = wordsIn(name);
  const marker = tokens.findIndex((token) => marking.has(token));
  if (marker < 0) return 0;
  const stems = new Set(asked.filter((word) => word.length > 2).map((word) => word.slice(0, 4)));
  const hits = tokens.flatMap((token, index) => (stems.has(token.slice(0, 4)) ? [index] : []));
  return hits.length > 0 && hits.every((index) => index > marker) ? 1 : 0;
}

export interface LocalRerankerDeps {
  db: Database;
  weights?: LocalWeights;
  /** The catalog's size, and the table of document frequencies, are read again after an import at most this often. */
  statsTtlMs?: number;
  clock?: () => number;
}

/** Texts whose stems are kept (query words, candidates' categories and kinds), a few hundred bytes each. */
const STEMMED_TEXTS = 20_000;

/** Between a language and a text in a key of the stems' cache: no text holds it (Postgres text cannot hold NUL). */
const STEM_KEY = "\u0000";
const stemKey = (language: string, text: string) => `${language}${STEM_KEY}${text.replaceAll(STEM_KEY, " ")}`;

/** How often the statistics check whether an import changed the catalog. */
const STATS_CHECK_MS = 5_000;

export function createLocalReranker(deps: LocalRerankerDeps): Reranker & { scoreCandidates: typeof scoreCandidates } {
  const { db } = deps;
  const weights = deps.weights ?? DEFAULT_WEIGHTS;
  const ttl = deps.statsTtlMs ?? 10 * 60_000;
  const now = deps.clock ?? (() => performance.now());
  const table = wordFrequenciesOf(db, { checkMs: STATS_CHECK_MS, minAgeMs: ttl, now });
  /** Words a partial table leaves out (catalogs with more than MAX_LEXEMES words), counted on demand. */
  const counted = new LruCache<string, number>(50_000, { ttlMs: ttl, now });
  const catalogSize = catalogSizeEvery(db, ttl, now);
  const stemCache = new LruCache<string, string[]>(STEMMED_TEXTS);

  /** The document frequencies of every word of the catalog, read once (see statistics.ts), and its size. */
  async function warm(): Promise<void> {
    await Promise.all([table(), catalogSize()]);
  }

  /** Document frequencies of the lexemes, from the table or, for those a partial table lacks, one query for all. */
  async function documentFrequencies(lexemes: readonly string[]): Promise<Map<string, number>> {
    const known = await table();
    const frequencies = new Map<string, number>();
    const missing: string[] = [];
    for (const lexeme of lexemes) {
      const cached = known.frequency(lexeme) ?? counted.get(lexeme);
      if (cached === undefined) missing.push(lexeme);
      else frequencies.set(lexeme, cached);
    }
    if (missing.length > 0) {
      const counts = Object.fromEntries(
        missing.map((lexeme, i) => [
          `n${i}`,
          sql<number>`count(*) filter (where ${products.search} @@ ${lexemeQuery(lexeme)}::tsquery)`.mapWith(Number),
        ]),
      );
      // One index scan over the union of the lexemes, counted per lexeme.
      const [row] = await db
        .select(counts)
        .from(products)
        .where(sql`${products.search} @@ ${missing.map(lexemeQuery).join(" | ")}::tsquery`);
      missing.forEach((lexeme, i) => {
        const n = row?.[`n${i}`] ?? 0;
        counted.set(lexeme, n);
        frequencies.set(lexeme, n);
      });
    }
    return frequencies;
  }

  /**
   * Lexemes of each text in a language (its text-search configuration, as the stored documents are read; keys are
   * `stemKey(language, text)`): from memory for texts seen before (categories and kinds recur across searches, and a
   * text's stems never change), the rest in one query.
   */
  async function stems(keys: readonly string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    for (const key of keys) {
      const cached = stemCache.get(key);
      if (cached) found.set(key, cached);
    }
    const unknown = [...new Set(keys.filter((key) => !found.has(key)))];
    if (unknown.length > 0) {
      const list = (part: 0 | 1) =>
        sql.join(
          unknown.map((key) => sql`${key.split(STEM_KEY)[part]!}`),
          sql`, `,
        );
      const [row] = await db
        .select({ stems: sql<string[] | null>`array_agg(to_tsvector(search_config(l), t)::text order by i)` })
        .from(sql`unnest(array[${list(1)}]::text[], array[${list(0)}]::text[]) with ordinality as u(t, l, i)`);
      const vectors = row?.stems ?? [];
      unknown.forEach((key, i) => {
        const lexemes = parseTsvector(vectors[i] ?? "")
          .sort((a, b) => a.position - b.position)
          .map((term) => term.lexeme);
        found.set(key, lexemes);
        stemCache.set(key, lexemes);
      });
    }
    return found;
  }

  /**
   * The plan's words with their stemmed forms and weights; words with no lexemes in any form (stop words) are left out.
   * `stemmed` reads a text in the catalog's language, `readings` in each of the plan's (a form of a query in another
   * language is held as its own language's stems, or the catalog's).
   */
  async function queryOf(
    plan: QueryPlan,
    stemmed: ReadonlyMap<string, string[]>,
    readings: (words: readonly string[]) => string[][],
  ): Promise<Query> {
    const lexemes = (words: readonly string[]) => [...new Set(stemmed.get(words.join(" ")) ?? [])];
    // What goes with a target word is no form of it: it only answers for it (Clause's `fits`).
    const searched = plan.forms.filter((form) => !form.goesWith);
    const all = [...new Set(searched.flatMap((form) => readings(form.words).flat()))];
    const n = await catalogSize();
    const frequencies = await documentFrequencies(all);
    const idfOf = (frequency: number) => Math.log(1 + (n - frequency + 0.5) / (frequency + 0.5));
    const idf = (lexeme: string) => idfOf(frequencies.get(lexeme) ?? 0);
    type Word = Omit<Clause, "sort" | "sold" | "target" | "before" | "fits"> & { heldAnywhere: boolean };
    const held = (form: { lexemes: readonly string[] }) => form.lexemes.every((lexeme) => (frequencies.get(lexeme) ?? 0) > 0);
    // Each compound form some product holds, with its word and side; one no product holds ("jacket-for") says nothing
    // of the stop word in it.
    const heldCompounds = new Map<Form, NonNullable<StemmedForm["compound"]>>();
    for (const form of searched) {
      if (!form.compound) continue;
      const found = lexemes(form.words);
      const lexeme = found.find((l) => !l.includes("-"));
      if (lexeme !== undefined && held({ lexemes: found }))
        heldCompounds.set(form, { lexeme, stopBefore: lexemes([plan.words[form.start]!]).length === 0 });
    }
    const byWord = plan.words.map((_, i): Word[] => {
      const forms = searched
        .filter((form) => form.start <= i && i < form.end)
        .flatMap((form) => {
          const compound = heldCompounds.get(form);
          return form.compound && compound === undefined
            ? []
            : readings(form.words).map((found) => ({
                lexemes: found,
                words: form.words,
                weight: form.kind === "typed" || form.kind === "translation" || form.either ? 1 : weights.forms[form.kind],
                kind: form.kind,
                written: form.prefix ? undefined : writtenOf(form.words, found),
                prefix: form.prefix === true,
                apart: form.apart === true,
                compound,
                alternative: form.alternative === true,
              }));
        });
      if (forms.length === 0) {
        // A stop word the query means ("*down* jacket") is read as written; it weighs as set below (`meantIdf`).
        const word = plan.words[i]!;
        return MEANT_STOP_WORDS.has(word)
          ? [{ forms: [{ lexemes: [word], weight: 1, corrected: false, unindexed: true }], idf: 0, heldAnywhere: true, alsoRead: false }]
          : [];
      }
      // The word's weight in the query: as typed when the catalog holds it, else its commonest form the catalog holds.
      const typed = forms.find((form) => form.kind === "typed" && held(form));
      const weighed = typed ? [typed] : forms.filter(held);
      const only = weighed.length === 1 ? weighed[0]! : undefined;
      // A word the catalog holds only as two English words it splits into ("waterbottle") is scored as those two typed
      // apart: each a word of its own, the last naming the kind ("water bottle"), wherever each stands in the product.
      if (only?.apart && only.lexemes.length === only.words.length) {
        return only.lexemes.map((lexeme, k) => {
          const written = writtenOf([only.words[k]!], [lexeme]);
          return {
            forms: [{ lexemes: [lexeme], weight: only.weight, corrected: true, word: only.words[k]!, ...(written && { written }) }],
            idf: idf(lexeme),
            heldAnywhere: true,
            alsoRead: false,
          };
        });
      }
      // A compound weighs as its word: the stop word beside it is no rarer a word than that ("Cables *To Go*" holds
      // "to go" as a "to-go" mug does, and weighed as rare as "to-go" it outweighed the mugs for "travel mug to go").
      const rarest = (form: (typeof forms)[number]) => (form.compound ? idf(form.compound.lexeme) : Math.max(...form.lexemes.map(idf)));
      const clauseIdf = weighed.length > 0 ? Math.min(...weighed.map(rarest)) : idfOf(0);
      return [
        {
          forms: forms.map(({ lexemes: l, words, weight, kind, written, prefix, compound }) => ({
            lexemes: l,
            weight,
            corrected: kind === "correction",
            ...(written && { written }),
            ...(prefix && { prefix }),
            ...(compound && { compound }),
            ...(words.length === 1 && { word: words[0]! }),
          })),
          idf: clauseIdf,
          heldAnywhere: weighed.length > 0,
          alsoRead: typed !== undefined && forms.some((form) => form.alternative),
        },
      ];
    });
    // A preposition in a compound before the word it qualifies ("*slip on* sneakers"); last, it may be the preposition
    // it reads as ("mug *to go*").
    const inCompound = (i: number) => [...heldCompounds.keys()].some((form) => form.start <= i && i < form.end && form.end < plan.words.length);
    // A word neither the catalog nor English has ("dutch *ovn*", too short to correct; a model code the catalog lacks)
    // names no kind anyone sells: the kind is read from the other words.
    const head = queryHead(
      plan.words,
      (i) => byWord[i]!.some((word) => word.heldAnywhere) || (byWord[i]!.length > 0 && isEnglishWord(plan.words[i]!)),
      inCompound,
    );
    const purpose = head === undefined ? undefined : purposeAfter(plan.words, head, inCompound);
    const vague = plan.words.map((_, i) => isVague(plan.words, i));
    const plain = byWord.flatMap((words, i) => (vague[i] ? [] : words.map((word) => word.idf)));
    const vagueIdf = plain.length > 0 ? weights.vague * Math.min(...plain) : undefined;
    // The index does not count a stop word's products: one the query means weighs as its commonest other word.
    const meant = (word: Word) => word.forms.some((form) => form.unindexed);
    const indexedIdf = byWord.flat().flatMap((word) => (meant(word) || !word.heldAnywhere ? [] : [word.idf]));
    const meantIdf = indexedIdf.length > 0 ? Math.min(...indexedIdf) : idfOf(0);
    // Whom it is for, in words no product holds ("gift for *dad*"), counts for nothing: no product says it suits a dad,
    // and weighed as the rarest of words it left the gift box under the floor.
    // Nor do the words saying which person ("gift for a *new* dad"): "New Zealand wool" put the rug first.
    const unsaid = (i: number) => (isWhom(plan.words, i) && !byWord[i]!.some((word) => word.heldAnywhere)) || describesWhom(plan.words, i);
    const clauses = byWord.flatMap((words, i): Clause[] =>
      words.map((word, k) => ({
        forms: word.forms,
        idf: unsaid(i) ? 0 : meant(word) ? meantIdf : vague[i] && vagueIdf !== undefined ? Math.min(word.idf, vagueIdf) : word.idf,
        // The first of a split head word is the sort of the kind its last names ("*water*bottle").
        sort: head !== undefined && (i < head || (i === head && k < words.length - 1)) && !isQuantity(plan.words, i),
        sold: head !== undefined && i > head && isPackaging(plan.words[i]!),
        target: purpose !== undefined && i > purpose,
        fits:
          purpose !== undefined && i > purpose
            ? plan.forms
                .filter((form) => form.goesWith && form.start === i)
                .map((form) => ({ lexemes: lexemes(form.words), weight: weights.forms.synonym, corrected: false }))
                .filter((form) => form.lexemes.length > 0)
            : [],
        before:
          head !== undefined &&
          i < head &&
          !isQuantity(plan.words, i) &&
          !plan.words.slice(i + 1, head).some((word) => markers().joinsKinds.has(word)),
        alsoRead: word.alsoRead,
      })),
    );
    return {
      clauses,
      head: head === undefined ? undefined : byWord.slice(0, head + 1).flat().length - 1,
      freeAsked: plan.words.includes("free"),
      use: describesUse(plan.words),
      headUnsold: head !== undefined && !byWord[head]!.some((word) => word.heldAnywhere) && isEnglishWord(plan.words[head]!),
    };
  }

  /** Per-candidate features, in candidate order. */
  async function scoreCandidates(query: string, candidates: readonly Product[], context: RerankContext = {}): Promise<Scored[]> {
    const plan = context.plan ?? literalPlan(query);
    const ids = candidates.map((c) => c.id);
    const known = context.similarities ?? new Map<string, number>();
    // Only candidates that vector retrieval did not rank need their similarity computed.
    const unknown = ids.filter((id) => !known.has(id));
    const vector = context.queryVector && unknown.length > 0 ? vectorLiteral(context.queryVector) : null;
    const rows = await db
      .select({
        id: products.id,
        doc: sql<string>`${products.search}::text`,
        lang: products.searchLang,
        cosine: vector
          ? sql<number>`case when ${inArray(products.id, unknown)} then 1 - (${products.embedding} <=> ${vector}) else 0 end`.mapWith(Number)
          : sql<number>`0`.mapWith(Number),
      })
      .from(products)
      .where(inArray(products.id, ids));
    // Every form of the query in each of its languages, and each candidate's kinds and category in the candidate's own
    // language, stemmed in one query.
    const named = candidates.map((candidate) => readName(candidate.name));
    const kinds = candidates.map((candidate, index) => [...named[index]!.kinds, ...categoryHeads(candidate.category)]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const catalog = plan.language.catalog;
    const langOf = (candidate: Product) => byId.get(candidate.id)?.lang ?? catalog;
    const queryTexts = [...plan.forms.map((form) => form.words.join(" ")), ...plan.avoid];
    const found = await stems([
      ...plan.languages.flatMap((language) => queryTexts.map((text) => stemKey(language, text))),
      ...candidates.flatMap((candidate, index) => [...kinds[index]!, candidate.category ?? ""].map((text) => stemKey(langOf(candidate), text))),
    ]);
    const stemOf = (language: string, text: string) => found.get(stemKey(language, text)) ?? [];
    const stemmed = new Map(queryTexts.map((text) => [text, stemOf(catalog, text)]));
    // A form's distinct stems in the plan's languages, the catalog's first; one reading when they agree.
    const readings = (words: readonly string[]) => {
      const text = words.join(" ");
      const distinct = new Map([catalog, ...plan.languages].map((language) => [stemOf(language, text).join(" "), stemOf(language, text)]));
      return [...distinct.values()].map((lexemes) => [...new Set(lexemes)]).filter((lexemes) => lexemes.length > 0);
    };
    const parsed = await queryOf(plan, stemmed, readings);
    const readsWritten = parsed.clauses.some((clause) => clause.forms.some((form) => form.written !== undefined));
    const meantWords = parsed.clauses.flatMap((clause) => clause.forms.filter((form) => form.unindexed).map((form) => form.lexemes[0]!));
    const latinQuery = LATIN.test(query);
    const documents = candidates.map((candidate, index) => {
      const row = byId.get(candidate.id);
      const language = langOf(candidate);
      const document = toDocument(parseTsvector(row?.doc ?? ""), {
        category: new Set(stemOf(language, candidate.category ?? "")),
        kinds: new Set(kinds[index]!.flatMap((kind) => stemOf(language, kind))),
        // Read only when a query word has a `written` form (asWritten, ownWord); most queries have none.
        words: readsWritten ? new Set(wordsIn(`${candidate.name} ${candidate.brands.join(" ")} ${candidate.category ?? ""}`)) : new Set(),
        descWords: readsWritten ? new Set(wordsIn(candidate.desc)) : new Set(),
        unindexed: meantWords.length > 0 ? countsOf(meantWords, candidate) : new Map(),
      });
      // Field by field, so that a name with a Latin letter (nearly every one) settles it without copying the description.
      const unreadable =
        latinQuery && ![candidate.name, ...candidate.brands, candidate.category ?? "", candidate.desc].some((text) => LATIN.test(text));
      return { document, cosine: unreadable ? 0 : (known.get(candidate.id) ?? (row?.cosine || 0)) };
    });
    const averageLength = { name: 0, brands: 0, desc: 0 };
    for (const { document } of documents) {
      for (const field of ["name", "brands", "desc"] as const) averageLength[field] += document.length[field] / documents.length;
    }
    const avoided = plan.avoid.flatMap((word) => stemmed.get(word) ?? []);
    const sexes = sexesAsked(query);
    const animals = speciesIn(query);
    const bedSizes = bedSizesAsked(query);
    // The two alternatives a query joins by "or" (understand.ts pairs their forms), as stemmed: which one a product holds.
    const either = plan.forms.filter((form) => form.either).slice(0, 2);
    const sides = either.length === 2 ? [either[1]!, either[0]!].map((form) => stemmed.get(form.words.join(" ")) ?? []) : [];
    const sideOf = (document: Document) => {
      const holding = sides.flatMap((lexemes, side) => (lexemes.length > 0 && lexemes.every((lexeme) => document.terms.has(lexeme)) ? [side] : []));
      return holding.length === 1 ? holding[0] : undefined;
    };
    return documents.map(({ document, cosine }, index) => {
      const candidate = candidates[index]!;
      // Spelt as filters and facets spell categories, so "Outdoor" and " outdoor  " are one department.
      const department = categoryKey(candidate.category ?? "").split(CATEGORY_SEPARATOR)[0] || null;
      return {
        ...features(parsed, document, averageLength, cosine, weights),
        // Its name holds a word the shopper does not want ("Aria ANC *Wireless* Headphones" for "headphones not
        // wireless"); or, counting for it, it says it is free of one (the "Caffeine-free" rooibos for "tea without caffeine").
        avoided: avoided.some((lexeme) => (document.terms.get(lexeme)?.tf.name ?? 0) > 0)
          ? 1
          : plan.avoid.some((word) => freeOf(document, word) !== undefined)
            ? -1
            : 0,
        accessory: accessoryOf(query, candidate.name, department !== null),
        ages: plan.ages && excludesAges(candidate, plan.ages) ? 1 : 0,
        sex: otherSex(sexes, sexesOf(candidate.name, candidate.category, candidate.desc)) ? 1 : 0,
        bedSize: otherBedSize(bedSizes, candidate.name) ? 1 : 0,
        otherAnimal: otherSpecies(animals, candidate),
        side: sideOf(document),
        department,
      };
    });
  }

  return {
    name: "local",
    scoreCandidates,
    warm,
    close: () => table.settled(),
    async rerank(query, candidates, context): Promise<RerankResult> {
      if (candidates.length === 0) return { ids: [], outcome: "reranked" };
      // What a price or stock constraint left out is judged with the rest, so that the floor knows the kind asked is
      // sold: a running vest is no answer to "rain jacket under $100" (it was the best of what the price left).
      const beside = context?.beside ?? [];
      const judged = [...candidates, ...beside];
      const scored = await scoreCandidates(query, judged, context);
      const left = new Set(beside.map((product) => product.id));
      const order = takingTurns(
        rankScored(
          scored,
          judged.map((candidate) => candidate.id),
          weights,
        ).filter((item) => !left.has(item.id)),
      );
      return {
        ids: order.map((o) => o.id),
        outcome: "reranked",
        scores: new Map(order.map((o) => [o.id, o.score])),
        unrelated: new Set(order.filter((o) => o.unrelated).map((o) => o.id)),
        weak: order.some((o) => !o.unrelated) && order.every((o) => o.unrelated || o.weak),
      };
    },
  };
}
