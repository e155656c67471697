/**
 * Search: embed the query, retrieve by full text and by vector within the
 * brand scope, fuse by reciprocal rank, rerank the top, return records.
 */
import type { Database } from "../db/client.js";
import { findProductsByIds } from "../catalog/repository.js";
import { catalogSizeEvery } from "./catalog-size.js";
import { brandHost as toBrandHost } from "../../shared/url.js";
import type { Product, SearchParams } from "../../shared/schemas/index.js";
import type { Embedder } from "./embedder.js";
import type { Reranker, RerankResult } from "./reranker.js";
import { LruCache } from "../cache.js";
import { reciprocalRankFusion } from "./fuse.js";
import { fullTextRanked, vectorRanked } from "./retrieve.js";

export interface SearchResult {
  products: Product[];
  /** Which reranker ordered the answer and how it went (e.g. for an `X-Rerank` header). */
  rerank: { name: string; outcome: RerankResult["outcome"]; reason?: string };
}

export interface SearchService {
  search(params: SearchParams): Promise<SearchResult>;
}

/** What one search reports to an observer (metrics): seconds per stage and how reranking went. */
export interface SearchReport {
  stages: Record<"embed" | "retrieve" | "rerank", number>;
  rerank: SearchResult["rerank"];
}

/** Which retrievals run; anything but `hybrid` exists for measuring each half (bench/relevance.ts). */
export type RetrievalMode = "hybrid" | "fulltext" | "vector";

export interface SearchDeps {
  db: Database;
  /** The database each search reads from (a read replica in turn, see DatabaseHandle); `db` when absent. */
  reader?: () => Database;
  embedder: Embedder;
  reranker: Reranker;
  retrieval?: RetrievalMode;
  /** False when each vector search must set pgvector's settings itself (see DatabaseHandle). */
  vectorSettingsInSession?: boolean;
  /** How many fused candidates the reranker sees (at least `limit`): RERANK_CANDIDATES. */
  rerankCandidates: number;
  queryCacheSize?: number;
  /** Told about every search; the service stays free of any metrics library. */
  observe?: (report: SearchReport) => void;
}

/** The encoder's time grows with length; a shopper's intent is in the first words, and full text still sees all. */
const EMBEDDED_QUERY_CHARS = 200;
/** Each retrieval returns at least this many, so fusion has something to agree on even for small limits. */
const MIN_RETRIEVAL = 50;
/** From this many products, full text tries the products with every word first (see fullTextRanked). */
const EVERY_WORD_FIRST_FROM = 50_000;
/** How long a count of the catalog is trusted for that choice. */
const CATALOG_SIZE_TTL_MS = 60_000;

export function createSearchService(deps: SearchDeps): SearchService {
  const { db, embedder, reranker } = deps;
  const queryVectors = new LruCache<string, Promise<number[]>>(deps.queryCacheSize ?? 1000);
  const catalogSize = catalogSizeEvery(db, CATALOG_SIZE_TTL_MS);

  function embedQuery(fullQuery: string): Promise<number[]> {
    const query = fullQuery.slice(0, EMBEDDED_QUERY_CHARS);
    const key = query.toLowerCase();
    let vector = queryVectors.get(key);
    if (!vector) {
      vector = embedder.embed([query]).then(([v]) => v ?? []);
      vector.catch(() => undefined);
      queryVectors.set(key, vector);
    }
    return vector;
  }

  return {
    async search(params) {
      // Postgres text cannot hold NUL; it carries no meaning in a query anyway.
      const q = params.q.replaceAll("\u0000", " ");
      const scope = params.brand_url === undefined ? null : toBrandHost(params.brand_url);
      const rerankCount = Math.max(params.limit, deps.rerankCandidates);
      const depth = Math.max(rerankCount, MIN_RETRIEVAL);
      const mode = deps.retrieval ?? "hybrid";
      const read = deps.reader?.() ?? db;
      const started = performance.now();
      const queryVector = mode === "fulltext" ? undefined : await embedQuery(q);
      const embedded = performance.now();
      const everyWordFirst = mode !== "vector" && (await catalogSize()) >= EVERY_WORD_FIRST_FROM;
      const [lexical, semantic] = await Promise.all([
        mode === "vector" ? [] : fullTextRanked(read, q, scope, depth, { everyWordFirst }),
        queryVector ? vectorRanked(read, queryVector, scope, depth, { settingsInSession: deps.vectorSettingsInSession ?? false }) : [],
      ]);
      const fused = reciprocalRankFusion([lexical, semantic]);
      const candidates = await findProductsByIds(read, fused.slice(0, rerankCount), params.include_raw_data);
      const similarities = new Map(semantic.map((item) => [item.id, item.score]));
      const retrieved = performance.now();
      const reranked = await reranker.rerank(q, candidates, queryVector ? { queryVector, similarities } : {});
      const order = repairOrder(reranked.ids, candidates);
      const rerank = { name: reranker.name, outcome: reranked.outcome, ...(reranked.reason ? { reason: reranked.reason } : {}) };
      const seconds = (from: number, to: number) => (to - from) / 1000;
      deps.observe?.({
        stages: { embed: seconds(started, embedded), retrieve: seconds(embedded, retrieved), rerank: seconds(retrieved, performance.now()) },
        rerank,
      });
      return { products: order.slice(0, params.limit), rerank };
    },
  };
}

/** Keeps the reranker's order for ids it knows, once each; candidates it left out follow in retrieval order. */
function repairOrder(ids: readonly string[], candidates: readonly Product[]): Product[] {
  const byId = new Map(candidates.map((candidate) => [candidate.id, candidate]));
  const seen = new Set<string>();
  const ordered: Product[] = [];
  for (const id of [...ids, ...candidates.map((c) => c.id)]) {
    const product = byId.get(id);
    if (product && !seen.has(id)) {
      seen.add(id);
      ordered.push(product);
    }
  }
  return ordered;
}
