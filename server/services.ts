/**
 * Everything the API and the CLI call, built once from its dependencies.
 * Nothing here knows about HTTP or tRPC. Built by the composition root (compose.ts).
 */
import type { Config } from "./config.js";
import type { DatabaseHandle } from "./db/open.js";
import { createCatalogService, type CatalogService } from "./catalog/service.js";
import { createSearchService, type RetrievalMode, type SearchReport, type SearchService } from "./search/service.js";
import { createKeyService, type KeyService } from "./auth/service.js";
import { createHealthService, type HealthService } from "./health.js";
import type { Embedder } from "./search/embedder.js";
import type { Reranker } from "./search/reranker.js";
import type { QueryModel } from "./search/pipeline/model-reading.js";
import type { SynonymSet } from "./search/synonyms.js";
import type { ExchangeRates } from "./search/exchange-rates.js";
import type { Fetcher } from "./fetch/fetcher.js";
import { createLiveLookup, type LiveLookupService } from "./fetch/live.js";
import { importLimits } from "./ingest/limits.js";
import { createGroupService, type GroupService } from "./matching/offers.js";

export interface Services {
  catalog: CatalogService;
  search: SearchService;
  /** Live lookup: pages of the operator's merchant hosts fetched when the catalog does not hold them (LIVE_LOOKUP_HOSTS). */
  live: LiveLookupService;
  keys: KeyService;
  health: HealthService;
  /** Product groups: a product's offers at every merchant. */
  groups: GroupService;
}

export interface ServiceDeps {
  database: DatabaseHandle;
  embedder: Embedder;
  reranker: Reranker;
  /** Synonyms applied to every search (SYNONYMS_FILE and SYNONYMS_BUILTIN). */
  synonyms: SynonymSet;
  /** The operator's exchange rates (FX_RATES_FILE), or null: price filters never convert. */
  exchangeRates: ExchangeRates | null;
  /** The key service's clock (expiry, its cache) and the product cache's. */
  clock: () => Date;
  settings: Pick<
    Config,
    | "RERANK_CANDIDATES"
    | "KEY_CACHE_TTL_SECONDS"
    | "PRODUCT_CACHE_SIZE"
    | "SEARCH_MIN_SIMILARITY"
    | "SEARCH_MAX_RESULTS"
    | "LIVE_LOOKUP_HOSTS"
    | "LIVE_LOOKUP_TIMEOUT_MS"
    | "IMPORT_MAX_LINE_BYTES"
    | "IMPORT_MAX_PAGE_BYTES"
    | "IMPORT_MAX_STRIPPED_HTML_BYTES"
    | "EXTRACT_BUDGET_MS"
  >;
  /** The live lookups' fetcher; null while LIVE_LOOKUP_HOSTS is unset (nothing is fetched). */
  fetcher: Fetcher | null;
  /** The language model that reads queries (QUERY_ANALYSER=model); absent: the rules alone. */
  queryModel?: QueryModel;
  /** Anything but `hybrid` is for measuring each half of retrieval (bench/relevance.ts). */
  retrieval?: RetrievalMode;
  /** Told each search's stage timings and rerank outcome (metrics). */
  observeSearch?: (report: SearchReport) => void;
  /** This process's cluster worker id (server/cluster.ts), named by /health. */
  worker?: number;
}

/** The services that need no embedder: what the CLI's key and stats commands use without loading a model. */
export type BaseServices = Omit<Services, "search" | "live">;

export function createBaseServices(deps: Pick<ServiceDeps, "database" | "clock" | "settings" | "worker">): BaseServices {
  const { database, clock, settings } = deps;
  return {
    catalog: createCatalogService({ db: database.read, primary: database.db, cacheSize: settings.PRODUCT_CACHE_SIZE, now: () => clock().getTime() }),
    keys: createKeyService({ db: database.db, clock, cacheTtlMs: settings.KEY_CACHE_TTL_SECONDS * 1000 }),
    health: createHealthService({ database, ...(deps.worker === undefined ? {} : { worker: deps.worker }) }),
    groups: createGroupService({ db: database.read }),
  };
}

/** Search and live lookup on top of the base services. */
export function createServices(base: BaseServices, deps: ServiceDeps): Services {
  const { database } = deps;
  return {
    ...base,
    live: createLiveLookup({
      db: database.db,
      embedder: deps.embedder,
      fetcher: deps.fetcher,
      limits: importLimits(deps.settings),
      catalog: base.catalog,
      hosts: deps.settings.LIVE_LOOKUP_HOSTS,
      timeoutMs: deps.settings.LIVE_LOOKUP_TIMEOUT_MS,
    }),
    search: createSearchService({
      db: database.read,
      reader: database.reader,
      embedder: deps.embedder,
      reranker: deps.reranker,
      synonyms: deps.synonyms,
      exchangeRates: deps.exchangeRates,
      vectorSettingsInSession: database.vectorSettingsInSession,
      rerankCandidates: deps.settings.RERANK_CANDIDATES,
      minSimilarity: deps.settings.SEARCH_MIN_SIMILARITY,
      maxResults: deps.settings.SEARCH_MAX_RESULTS,
      now: () => deps.clock().getTime(),
      catalogVersion: base.catalog.version,
      ...(deps.retrieval ? { retrieval: deps.retrieval } : {}),
      ...(deps.observeSearch ? { observe: deps.observeSearch } : {}),
      ...(deps.queryModel ? { queryModel: deps.queryModel } : {}),
    }),
  };
}
