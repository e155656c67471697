/**
 * The default reranker: no network, a few milliseconds. It rescores the fused
 * candidates with what retrieval alone cannot weigh together, reading each of
 * the query's words in all its forms (as typed, corrected, or a synonym; see
 * understand.ts), a typed word counting more than the others:
 *
 * - BM25F over the stemmed words of name, brands and description (Postgres's
 *   own tsvectors, with document frequencies from the catalog), so rare words
 *   count more and the name counts most;
 * - how much of the query the product covers, anywhere (the description
 *   counts where the name is silent: a rain shell whose description says
 *   "waterproof" and "hiking"), whether query words
 *   appear side by side in the name (phrases, numbers with units: "16 gb"),
 *   and whether the name holds the whole query in its order ("Tea Cup with
 *   Saucer" for "tea cup saucer");
 * - whether the product is of the kind the query asks for: the head of its name or category against
 *   the query's head word (product-type.ts), so a jacket beats waterproof
 *   gaiters for "waterproof jacket"; without a category, the query's head word
 *   anywhere in the name counts too;
 * - whether the product is only an accessory of what was asked for ("case
 *   *for* iPhone" for "iphone");
 * - whether its description states ages that leave out those the query asks
 *   for (ages.ts: the 3-to-6 play kitchen for "toys for toddlers");
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
import { LruCache, refreshedEvery } from "../../cache.js";
import { countProducts } from "../../catalog/repository.js";
import { hasLatinLetter, lexemeQuery, parseTsvector, wordsIn } from "../lexical.js";
import { stemsIn } from "../browse.js";
import { type AgeRange, excludes, productAges } from "../ages.js";
import { categoryHeads, compoundHeadOf, readName } from "../product-type.js";
import { rules } from "../rules/index.js";
import type { Reranker, RerankContext, RerankResult } from "../reranker.js";
import { vectorLiteral } from "../pipeline/retrieve.js";
import { CATEGORY_SEPARATOR, categoryKey } from "../../catalog/structured.js";
import { type FrequencyTable, wordFrequenciesOf } from "../statistics.js";
import { literalPlan, nothingRead, type QueryPlan } from "../understand.js";
import { DEFAULT_WEIGHTS, type LocalWeights, rankScored, type Scored } from "./ranking.js";
import { features, freeOf, toDocument } from "./local-features.js";
import { type Query, type QueryContext, queryOf } from "./local-query.js";

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
function accessoryOf(asked: readonly string[], name: string, categorised: boolean): number {
  const { accessoryMarkers, companionMarkers } = rules().productType;
  const marking = categorised ? [...accessoryMarkers, ...companionMarkers] : accessoryMarkers;
  if (asked.some((word) => marking.includes(word))) return 0;
  const tokens = wordsIn(name);
  const marker = tokens.findIndex((token) => marking.includes(token));
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

/** What one local reranker's steps share: its database, its weights, the catalog's statistics and the caches. */
interface LocalContext extends QueryContext {
  db: Database;
  /** The document frequencies of every word of the catalog, or of its commonest (see statistics.ts). */
  table: FrequencyTable;
  /** Words a partial table leaves out (catalogs with more than MAX_LEXEMES words), counted on demand. */
  counted: LruCache<string, number>;
  stemCache: LruCache<string, string[]>;
}

/** Document frequencies of the lexemes, from the table or, for those a partial table lacks, one query for all. */
async function documentFrequencies(
  { db, table, counted }: Pick<LocalContext, "db" | "table" | "counted">,
  lexemes: readonly string[],
): Promise<Map<string, number>> {
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
async function stems({ db, stemCache }: LocalContext, keys: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const key of keys) {
    const cached = stemCache.get(key);
    if (cached) found.set(key, cached);
  }
  const unknown = [...new Set(keys.filter((key) => !found.has(key)))];
  const read = await stemsIn(
    db,
    unknown.map((key) => {
      const [language, text] = key.split(STEM_KEY);
      return { language: language!, text: text! };
    }),
  );
  unknown.forEach((key, i) => {
    found.set(key, read[i]!);
    stemCache.set(key, read[i]!);
  });
  return found;
}

/** Each candidate's stored document, the language it is indexed in, and its similarity to the query where retrieval left it unknown. */
async function rowsOf(db: Database, candidates: readonly Product[], context: RerankContext) {
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
  return new Map(rows.map((row) => [row.id, row]));
}

/** The candidates as read for one query: their rows, the kinds they name, and the stems of theirs and the query's texts. */
interface CandidateReading {
  plan: QueryPlan;
  candidates: readonly Product[];
  byId: Awaited<ReturnType<typeof rowsOf>>;
  /** The kinds each candidate's name and category name. */
  kinds: string[][];
  /** The language a candidate is indexed in. */
  langOf: (candidate: Product) => string;
  stemOf: (language: string, text: string) => string[];
  /** The query's texts (its forms, and the words it avoids) stemmed in the catalog's language. */
  stemmed: Map<string, string[]>;
  /** A form's distinct stems in the plan's languages, the catalog's first; one reading when they agree. */
  readings: (words: readonly string[]) => string[][];
}

/**
 * Every form of the query in each of its languages, and each candidate's kinds and category in the candidate's own
 * language, stemmed in one query.
 */
async function readCandidates(
  local: LocalContext,
  plan: QueryPlan,
  candidates: readonly Product[],
  context: RerankContext,
): Promise<CandidateReading> {
  const byId = await rowsOf(local.db, candidates, context);
  const catalog = plan.language.catalog;
  const langOf = (candidate: Product) => byId.get(candidate.id)?.lang ?? catalog;
  const named = candidates.map((candidate) => readName(candidate.name));
  const kinds = candidates.map((candidate, index) => {
    const own = [...named[index]!.kinds, ...categoryHeads(candidate.category)];
    return [...own, ...(langOf(candidate) === "en" ? own.flatMap(compoundHeadOf) : [])];
  });
  const queryTexts = [...plan.forms.map((form) => form.words.join(" ")), ...plan.avoid];
  const found = await stems(local, [
    ...plan.languages.flatMap((language) => queryTexts.map((text) => stemKey(language, text))),
    ...candidates.flatMap((candidate, index) => [...kinds[index]!, candidate.category ?? ""].map((text) => stemKey(langOf(candidate), text))),
  ]);
  const stemOf = (language: string, text: string) => found.get(stemKey(language, text)) ?? [];
  const readings = (words: readonly string[]) => {
    const text = words.join(" ");
    const distinct = new Map([catalog, ...plan.languages].map((language) => [stemOf(language, text).join(" "), stemOf(language, text)]));
    return [...distinct.values()].map((lexemes) => [...new Set(lexemes)]).filter((lexemes) => lexemes.length > 0);
  };
  const stemmed = new Map(queryTexts.map((text) => [text, stemOf(catalog, text)]));
  return { plan, candidates, byId, kinds, langOf, stemOf, stemmed, readings };
}

/** Each candidate as a Document, with its similarity to the query (none for a page the encoder cannot read). */
function documentsOf(parsed: Query, reading: CandidateReading, known: ReadonlyMap<string, number>) {
  const { plan, candidates, byId, kinds, langOf, stemOf } = reading;
  const readsWritten = parsed.clauses.some((clause) => clause.forms.some((form) => form.written !== undefined));
  const latinQuery = plan.words.some(hasLatinLetter);
  const unread = plan.language.query === null && nothingRead(plan);
  return candidates.map((candidate, index) => {
    const row = byId.get(candidate.id);
    const language = langOf(candidate);
    const document = toDocument(parseTsvector(row?.doc ?? ""), {
      category: new Set(stemOf(language, candidate.category ?? "")),
      kinds: new Set(kinds[index]!.flatMap((kind) => stemOf(language, kind))),
      // Read only when a query word has a `written` form (asWritten, ownWord); most queries have none.
      words: readsWritten ? new Set(wordsIn(`${candidate.name} ${candidate.brands.join(" ")} ${candidate.category ?? ""}`)) : new Set(),
      descWords: readsWritten ? new Set(wordsIn(candidate.desc)) : new Set(),
    });
    // Field by field, so that a name with a Latin letter (nearly every one) settles it without copying the description.
    // A query of words in no language known, none held or corrected, reads nothing: the encoder puts such words near
    // pages in a language it does not read as readily as near anything (understand.ts nothingRead).
    // The local encoder's vocabulary is English: it reads a page with no Latin letter as it reads any word it does not
    // know, so gibberish is as similar to a Chinese page (0.55-0.59) as words are to a page they describe.
    const unreadable =
      unread || (latinQuery && ![candidate.name, ...candidate.brands, candidate.category ?? "", candidate.desc].some(hasLatinLetter));
    return {
      document,
      cosine: unreadable ? 0 : (known.get(candidate.id) ?? (row?.cosine || 0)),
    };
  });
}

/** Per-candidate features, in candidate order. */
async function scoreCandidates(local: LocalContext, query: string, candidates: readonly Product[], context: RerankContext = {}): Promise<Scored[]> {
  const plan = context.plan ?? literalPlan(query);
  const reading = await readCandidates(local, plan, candidates, context);
  const parsed = await queryOf(local, plan, reading.stemmed, reading.readings);
  const documents = documentsOf(parsed, reading, context.similarities ?? new Map<string, number>());
  const averageLength = { name: 0, brands: 0, desc: 0 };
  for (const { document } of documents) {
    for (const field of ["name", "brands", "desc"] as const) averageLength[field] += document.length[field] / documents.length;
  }
  const avoided = plan.avoid.flatMap((word) => reading.stemmed.get(word) ?? []);
  return documents.map(({ document, cosine }, index) => {
    const candidate = candidates[index]!;
    // Spelt as filters and facets spell categories, so "Outdoor" and " outdoor  " are one department.
    const department = categoryKey(candidate.category ?? "").split(CATEGORY_SEPARATOR)[0] || null;
    return {
      ...features(parsed, document, averageLength, cosine, local.weights),
      // Its name holds a word the shopper does not want ("Aria ANC *Wireless* Headphones" for "headphones not
      // wireless"); or, counting for it, it says it is free of one (the "Caffeine-free" rooibos for "tea without caffeine").
      avoided: avoided.some((lexeme) => (document.terms.get(lexeme)?.tf.name ?? 0) > 0)
        ? 1
        : plan.avoid.some((word) => freeOf(document, word) !== undefined)
          ? -1
          : 0,
      accessory: accessoryOf(plan.words, candidate.name, department !== null),
      ages: plan.ages && excludesAges(candidate, plan.ages) ? 1 : 0,
      department,
    };
  });
}

/** The candidates reranked; what a price or stock constraint left out (`beside`) is judged with them, then left out. */
async function rerank(local: LocalContext, query: string, candidates: readonly Product[], context: RerankContext = {}): Promise<RerankResult> {
  if (candidates.length === 0) return { ids: [], outcome: "reranked" };
  // What a price or stock constraint left out is judged with the rest, so that the floor knows the kind asked is
  // sold: a running vest is no answer to "rain jacket under $100" (it was the best of what the price left).
  const beside = context?.beside ?? [];
  const judged = [...candidates, ...beside];
  const scored = await scoreCandidates(local, query, judged, context);
  const left = new Set(beside.map((product) => product.id));
  const order = rankScored(
    scored,
    judged.map((candidate) => candidate.id),
    local.weights,
  ).filter((item) => !left.has(item.id));
  return {
    ids: order.map((o) => o.id),
    outcome: "reranked",
    scores: new Map(order.map((o) => [o.id, o.score])),
    unrelated: new Set(order.filter((o) => o.unrelated).map((o) => o.id)),
    weak: order.some((o) => !o.unrelated) && order.every((o) => o.unrelated || o.weak),
  };
}

export function createLocalReranker(deps: LocalRerankerDeps): Reranker & {
  scoreCandidates: (query: string, candidates: readonly Product[], context?: RerankContext) => Promise<Scored[]>;
} {
  const { db } = deps;
  const ttl = deps.statsTtlMs ?? 10 * 60_000;
  const now = deps.clock ?? (() => performance.now());
  const shared = {
    db,
    weights: deps.weights ?? DEFAULT_WEIGHTS,
    table: wordFrequenciesOf(db, { checkMs: STATS_CHECK_MS, minAgeMs: ttl, now }),
    counted: new LruCache<string, number>(50_000, { ttlMs: ttl, now }),
    catalogSize: refreshedEvery(() => countProducts(db), ttl, now),
    stemCache: new LruCache<string, string[]>(STEMMED_TEXTS),
  };
  const local: LocalContext = { ...shared, documentFrequencies: (lexemes) => documentFrequencies(shared, lexemes) };
  return {
    name: "local",
    scoreCandidates: (query, candidates, context) => scoreCandidates(local, query, candidates, context),
    /** The document frequencies of every word of the catalog, read once (see statistics.ts), and its size. */
    async warm(): Promise<void> {
      await Promise.all([local.table(), local.catalogSize()]);
    },
    close: () => local.table.settled(),
    rerank: (query, candidates, context) => rerank(local, query, candidates, context),
  };
}
