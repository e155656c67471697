/**
 * What every stage of a search reads: the service's dependencies and the catalog facts it keeps (sizes, facet counts,
 * query vectors), built once by createSearchService.
 */
import type { Explain, Facet, Facets, Interpretation, Message, Product } from "../../../shared/schemas/index.js";
import type { Database } from "../../db/client.js";
import type { CursorCodec } from "../cursor.js";
import type { Embedder } from "../embedder.js";
import type { ExchangeRates } from "../exchange-rates.js";
import type { FacetScope } from "../facets.js";
import type { Reranker, RerankResult } from "../reranker.js";
import type { SynonymSet } from "../synonyms.js";
import type { QueryModel } from "./model-reading.js";

export interface SearchHitResult {
  product: Product;
  explain?: Explain;
}

export interface SearchResult {
  hits: SearchHitResult[];
  nextCursor?: string;
  facets?: Facets;
  interpretation?: Interpretation;
  messages?: Message[];
  /** Which reranker ordered the answer and how it went (e.g. for an `X-Rerank` header); absent when browsing. */
  rerank: { name: string; outcome: RerankResult["outcome"]; reason?: string };
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
  /** The relevance floor: a product no query word matches is kept only at this cosine similarity or above (SEARCH_MIN_SIMILARITY). */
  minSimilarity: number;
  /** The most products a search matches, and so pages through (SEARCH_MAX_RESULTS). */
  maxResults: number;
  queryCacheSize?: number;
  /** Synonyms applied to every query (SYNONYMS_FILE and the built-in set); none when absent. */
  synonyms?: SynonymSet;
  /** The operator's exchange rates (FX_RATES_FILE): price filters apply to prices in the other currencies they know. */
  exchangeRates?: ExchangeRates | null;
  /** Milliseconds since the epoch, for cursor ages. */
  now?: () => number;
  /** The catalog's version as this process's caches know it (CatalogService.version): browse facets are kept per version. */
  catalogVersion?: () => string | null | undefined;
  /** Told about every search; the service stays free of any metrics library. */
  observe?: (report: SearchReport) => void;
  /** A language model that reads queries (QUERY_ANALYSER=model); absent: the rules alone, offline. */
  queryModel?: QueryModel;
}

export interface SearchContext {
  deps: SearchDeps;
  /** The database this search reads (a replica in turn). */
  read(): Database;
  catalogSize(): Promise<number>;
  /** The query's sentence vector, kept per query. */
  embedQuery(query: string): Promise<number[]>;
  facetCounts(scope: FacetScope, asked: readonly Facet[]): Promise<Facets>;
  cursors(): Promise<CursorCodec>;
}
