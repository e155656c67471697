/**
 * The default reranker: no network, a few milliseconds. It rescores the fused
 * candidates with what retrieval alone cannot weigh together:
 *
 * - BM25F over the stemmed words of name, brands and description (Postgres's
 *   own tsvectors, with document frequencies from the catalog), so rare words
 *   count more and the name counts most;
 * - how much of the query the name covers, and whether query words appear
 *   side by side in it (phrases, and numbers with their units: "16 gb");
 * - whether the name holds the query's last word (in shopper queries, usually
 *   the kind of product: "wine *rack*"), and whether the product is only an
 *   accessory of what was asked for ("case *for* iPhone" for "iphone");
 * - the sentence-encoder similarity of query and product.
 *
 * Weights were tuned on the dev queries of bench/relevance.ts only.
 */
import { inArray, sql } from "drizzle-orm";
import type { Database } from "../../db/client.js";
import { products } from "../../db/schema.js";
import type { Product } from "../../../shared/schemas/index.js";
import { LruCache } from "../../cache.js";
import { lexemeQuery, parseTsvector, type Field, type Term } from "../lexical.js";
import type { Reranker, RerankContext, RerankResult } from "../reranker.js";
import { vectorLiteral } from "../retrieve.js";
import { catalogSizeEvery } from "../catalog-size.js";

/** One value per signal; `accessory` is 1 when the product is only an accessory of what was asked for. */
export type Features = Record<"bm25" | "coverage" | "phrase" | "cosine" | "head" | "accessory", number>;

/** A weight per feature (`accessory`'s is subtracted), and BM25F's own parameters. */
export type LocalWeights = Features & {
  /** Field weights inside BM25F. */
  fields: Record<Field, number>;
  k1: number;
  b: number;
};

/** Tuned with `npm run bench:tune-local` (RERANK_CANDIDATES=100) on the dev queries; see README "Search quality". */
export const DEFAULT_WEIGHTS: LocalWeights = {
  bm25: 1,
  coverage: 2,
  phrase: 0.25,
  cosine: 2,
  head: 1,
  accessory: 0.5,
  fields: { name: 5, brands: 2, desc: 1 },
  k1: 1.2,
  b: 0.5,
};

interface Document {
  terms: Map<string, { tf: Record<Field, number>; positions: number[] }>;
  length: Record<Field, number>;
}

function toDocument(terms: readonly Term[]): Document {
  const document: Document = { terms: new Map(), length: { name: 0, brands: 0, desc: 0 } };
  for (const term of terms) {
    let entry = document.terms.get(term.lexeme);
    if (!entry) {
      entry = { tf: { name: 0, brands: 0, desc: 0 }, positions: [] };
      document.terms.set(term.lexeme, entry);
    }
    entry.tf[term.field]++;
    if (term.field === "name") entry.positions.push(term.position);
    document.length[term.field]++;
  }
  return document;
}

/** The query's distinct lexemes in order of first appearance, with their positions. */
function queryTerms(text: string): Term[] {
  const seen = new Set<string>();
  return parseTsvector(text)
    .sort((a, b) => a.position - b.position)
    .filter((term) => !seen.has(term.lexeme) && seen.add(term.lexeme));
}

/** Raw features of one candidate; exported for tuning (bench/relevance). */
function features(
  query: readonly Term[],
  document: Document,
  idf: ReadonlyMap<string, number>,
  averageLength: Record<Field, number>,
  cosine: number,
  weights: LocalWeights,
): Features {
  let bm25 = 0;
  let covered = 0;
  let total = 0;
  for (const term of query) {
    const weight = idf.get(term.lexeme) ?? 0;
    total += weight;
    const entry = document.terms.get(term.lexeme);
    if (!entry) continue;
    let tf = 0;
    for (const field of ["name", "brands", "desc"] as const) {
      const norm = 1 - weights.b + weights.b * (document.length[field] / Math.max(1, averageLength[field]));
      tf += (weights.fields[field] * entry.tf[field]) / norm;
    }
    bm25 += (weight * tf) / (weights.k1 + tf);
    if (entry.tf.name > 0) covered += weight;
  }
  let pairs = 0;
  let adjacent = 0;
  for (let i = 1; i < query.length; i++) {
    pairs++;
    const left = document.terms.get(query[i - 1]!.lexeme)?.positions ?? [];
    const right = document.terms.get(query[i]!.lexeme)?.positions ?? [];
    if (left.some((p) => right.some((q) => q - p > 0 && q - p <= 1))) adjacent++;
  }
  const last = query.at(-1);
  const head = last && (document.terms.get(last.lexeme)?.tf.name ?? 0) > 0 ? 1 : 0;
  return { bm25, coverage: total > 0 ? covered / total : 0, phrase: pairs > 0 ? adjacent / pairs : 0, cosine, head, accessory: 0 };
}

const ACCESSORY_MARKERS = new Set(["for", "fits", "compatible"]);

/**
 * 1 when every query word the name holds comes after "for"/"fits"/"compatible"
 * ("Leather Case for iPhone 6") and the query itself has no such word.
 */
function accessoryOf(query: string, name: string): number {
  const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const asked = words(query);
  if (asked.some((word) => ACCESSORY_MARKERS.has(word))) return 0;
  const tokens = words(name);
  const marker = tokens.findIndex((token) => ACCESSORY_MARKERS.has(token));
  if (marker < 0) return 0;
  const stems = new Set(asked.filter((word) => word.length > 2).map((word) => word.slice(0, 4)));
  const hits = tokens.flatMap((token, index) => (stems.has(token.slice(0, 4)) ? [index] : []));
  return hits.length > 0 && hits.every((index) => index > marker) ? 1 : 0;
}

export function combine(f: Features, maxBm25: number, weights: LocalWeights): number {
  return (
    weights.bm25 * (maxBm25 > 0 ? f.bm25 / maxBm25 : 0) +
    weights.coverage * f.coverage +
    weights.phrase * f.phrase +
    weights.cosine * f.cosine +
    weights.head * f.head -
    weights.accessory * f.accessory
  );
}

/** How many of the most common words `warm` loads; rarer ones are counted on demand. */
const WARM_WORDS = 20_000;

export interface LocalRerankerDeps {
  db: Database;
  weights?: LocalWeights;
  /** Document frequencies change only with imports; they are reused for this long. */
  statsTtlMs?: number;
  clock?: () => number;
}

export function createLocalReranker(deps: LocalRerankerDeps): Reranker & { scoreCandidates: typeof scoreCandidates } {
  const { db } = deps;
  const weights = deps.weights ?? DEFAULT_WEIGHTS;
  const ttl = deps.statsTtlMs ?? 10 * 60_000;
  const now = deps.clock ?? (() => performance.now());
  const df = new LruCache<string, number>(50_000, { ttlMs: ttl, now });
  const catalogSize = catalogSizeEvery(db, ttl, now);

  /**
   * Loads the document frequencies of the catalog's most common words in one
   * pass (ts_stat), so searches only count rare words, which the GIN index
   * answers quickly. Common words are the slow ones to count one by one.
   */
  async function warm(): Promise<void> {
    const rows = await db
      .select({ word: sql<string>`word`, ndoc: sql<number>`ndoc`.mapWith(Number) })
      .from(sql`ts_stat('select search from products')`)
      .orderBy(sql`ndoc desc`)
      .limit(WARM_WORDS);
    for (const row of rows) df.set(row.word, row.ndoc);
    await catalogSize();
  }

  /** Document frequencies of the lexemes, from the cache or, for those it lacks, one query for all. */
  async function documentFrequencies(lexemes: readonly string[]): Promise<Map<string, number>> {
    const frequencies = new Map<string, number>();
    const missing: string[] = [];
    for (const lexeme of lexemes) {
      const cached = df.get(lexeme);
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
        df.set(lexeme, n);
        frequencies.set(lexeme, n);
      });
    }
    return frequencies;
  }

  /** Per-candidate features, in candidate order. */
  async function scoreCandidates(query: string, candidates: readonly Product[], context: RerankContext = {}) {
    const ids = candidates.map((c) => c.id);
    const known = context.similarities ?? new Map<string, number>();
    // Only candidates that vector retrieval did not rank need their similarity computed.
    const unknown = ids.filter((id) => !known.has(id));
    const vector = context.queryVector && unknown.length > 0 ? vectorLiteral(context.queryVector) : null;
    const rows = await db
      .select({
        id: products.id,
        doc: sql<string>`${products.search}::text`,
        cosine: vector
          ? sql<number>`case when ${inArray(products.id, unknown)} then 1 - (${products.embedding} <=> ${vector}) else 0 end`.mapWith(Number)
          : sql<number>`0`.mapWith(Number),
        // The query's own words, stemmed the same way; computed once, the same on every row.
        query: sql<string>`(select to_tsvector('english', ${query})::text)`,
      })
      .from(products)
      .where(inArray(products.id, ids));
    const terms = queryTerms(rows[0]?.query ?? "");
    const n = await catalogSize();
    const frequencies = await documentFrequencies(terms.map((term) => term.lexeme));
    const idf = new Map(
      terms.map((term) => {
        const frequency = frequencies.get(term.lexeme) ?? 0;
        return [term.lexeme, Math.log(1 + (n - frequency + 0.5) / (frequency + 0.5))];
      }),
    );
    const byId = new Map(
      rows.map((row) => [row.id, { document: toDocument(parseTsvector(row.doc)), cosine: known.get(row.id) ?? (row.cosine || 0) }]),
    );
    const documents = ids.map((id) => byId.get(id) ?? { document: toDocument([]), cosine: 0 });
    const averageLength = { name: 0, brands: 0, desc: 0 };
    for (const { document } of documents) {
      for (const field of ["name", "brands", "desc"] as const) averageLength[field] += document.length[field] / documents.length;
    }
    return documents.map(({ document, cosine }, index) => ({
      ...features(terms, document, idf, averageLength, cosine, weights),
      accessory: accessoryOf(query, candidates[index]!.name),
    }));
  }

  return {
    name: "local",
    scoreCandidates,
    warm,
    async rerank(query, candidates, context): Promise<RerankResult> {
      if (candidates.length < 2) return { ids: candidates.map((c) => c.id), outcome: "reranked" };
      const scored = await scoreCandidates(query, candidates, context);
      const maxBm25 = Math.max(0, ...scored.map((f) => f.bm25));
      const order = candidates
        .map((candidate, index) => ({ id: candidate.id, index, score: combine(scored[index]!, maxBm25, weights) }))
        // Ties keep retrieval order.
        .sort((a, b) => b.score - a.score || a.index - b.index);
      return { ids: order.map((o) => o.id), outcome: "reranked", scores: new Map(order.map((o) => [o.id, o.score])) };
    },
  };
}
