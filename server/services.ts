/**
 * Everything the API and the CLI call, built once from its dependencies.
 * Nothing here knows about HTTP or tRPC.
 */
import type { DatabaseHandle } from "./db/open.js";
import { createCatalogService, type CatalogService } from "./catalog/service.js";
import { createSearchService, type RetrievalMode, type SearchService } from "./search/service.js";
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
}

export function createServices(deps: ServiceDeps): Services {
  const db = deps.database.db;
  const clock = deps.clock ?? (() => new Date());
  return {
    catalog: createCatalogService({ db }),
    search: createSearchService({
      db,
      embedder: deps.embedder,
      reranker: deps.reranker ?? noneReranker,
      vectorSettingsInSession: deps.database.vectorSettingsInSession,
      ...(deps.retrieval ? { retrieval: deps.retrieval } : {}),
      ...(deps.rerankCandidates ? { rerankCandidates: deps.rerankCandidates } : {}),
    }),
    keys: createKeyService({ db, clock, cacheTtlMs: deps.keyCacheTtlMs ?? 30_000 }),
    health: createHealthService({ database: deps.database }),
  };
}
