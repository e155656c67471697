/**
 * Everything the API and the CLI call, built once from its dependencies.
 * Nothing here knows about HTTP or tRPC.
 */
import type { DatabaseHandle } from "./db/open.js";
import { createCatalogService, DEFAULT_PRODUCT_CACHE, type CatalogService } from "./catalog/service.js";
import { createSearchService, type RetrievalMode, type SearchReport, type SearchService } from "./search/service.js";
import { createKeyService, type KeyService } from "./auth/service.js";
import { createHealthService, type HealthService } from "./health.js";
import type { Embedder } from "./search/embedder.js";
import { noneReranker, type Reranker } from "./search/reranker.js";

export interface Services {
  catalog: CatalogService;
  search: SearchService;
  keys: KeyService;
  health: HealthService;
}

export interface ServiceDeps {
  database: DatabaseHandle;
  embedder: Embedder;
  reranker?: Reranker;
  retrieval?: RetrievalMode;
  rerankCandidates?: number;
  clock?: () => Date;
  keyCacheTtlMs?: number;
  /** Products kept in memory (see catalog/service.ts); default 10,000. */
  productCacheSize?: number;
  /** Told each search's stage timings and rerank outcome (metrics). */
  observeSearch?: (report: SearchReport) => void;
}

export function createServices(deps: ServiceDeps): Services {
  const db = deps.database.db;
  const clock = deps.clock ?? (() => new Date());
  return {
    catalog: createCatalogService({
      db: deps.database.read,
      cache: { ...DEFAULT_PRODUCT_CACHE, ...(deps.productCacheSize === undefined ? {} : { size: deps.productCacheSize }) },
      now: () => clock().getTime(),
    }),
    search: createSearchService({
      db: deps.database.read,
      reader: deps.database.reader,
      embedder: deps.embedder,
      reranker: deps.reranker ?? noneReranker,
      vectorSettingsInSession: deps.database.vectorSettingsInSession,
      ...(deps.retrieval ? { retrieval: deps.retrieval } : {}),
      ...(deps.rerankCandidates ? { rerankCandidates: deps.rerankCandidates } : {}),
      ...(deps.observeSearch ? { observe: deps.observeSearch } : {}),
    }),
    keys: createKeyService({ db, clock, cacheTtlMs: deps.keyCacheTtlMs ?? 30_000 }),
    health: createHealthService({ database: deps.database }),
  };
}
