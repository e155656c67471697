/**
 * The composition root: the one place that turns the configuration into parts
 * (database → embedder and reranker → services → app). The server, the CLI,
 * the test helpers and the benchmarks all build through it. Each part is made
 * the first time it is asked for, so a command that needs only the database
 * never loads the sentence encoder; `close()` closes what the root made, in
 * reverse order (the app, then pending key usage is written, then the encoder
 * and the database), and leaves parts that were handed in to their owner.
 */
import type { FastifyInstance } from "fastify";
import { createAdmission } from "./api/admission.js";
import { buildApp } from "./app.js";
import { backfillStructured } from "./catalog/backfill.js";
import { rateLimitStore, resolveRateLimitStore } from "./api/http/ratelimit.js";
import { admissionSettings, type Config } from "./config.js";
import type { Database } from "./db/client.js";
import type { MigrateOptions } from "./db/handle.js";
import { type DatabaseHandle, openDatabase } from "./db/open.js";
import { createFetcher, fetchSettings } from "./fetch/fetcher.js";
import { liveLookupPermit } from "./fetch/live.js";
import { createMetrics, type Metrics } from "./metrics/index.js";
import type { Embedder } from "./search/embedder.js";
import { createEmbedder, createQueryModel, createReranker } from "./search/providers.js";
import { checkEmbeddingModel } from "./search/reindex.js";
import { loadSynonyms, type SynonymSet } from "./search/synonyms.js";
import { loadRules, useRules } from "./search/rules/index.js";
import { type ExchangeRates, loadExchangeRates } from "./search/exchange-rates.js";
import type { Reranker } from "./search/reranker.js";
import type { RetrievalMode } from "./search/service.js";
import { type BaseServices, createBaseServices, createServices, type Services } from "./services.js";

/** What a start or a command says while a catalog stored before is converted to half-precision vectors. */
export type MigrationProgress = Pick<MigrateOptions, "onProgress" | "onIndexing">;

export interface RootOptions {
  /** `server` owns an embedded data dir (and shares it on a socket); `cli` reaches a running server's. */
  role: "server" | "cli";
  /** An open database instead of the one the configuration names (tests: in-memory PGlite). Its owner closes it. */
  database?: DatabaseHandle;
  /** An embedder instead of the configured one (tests share one per worker). Its owner closes it. */
  embedder?: Embedder;
  /** A reranker instead of RERANKER's, built on the catalog database. */
  reranker?: (db: Database) => Reranker;
  /** The services' clock (key expiry, caches) and the rate-limit windows'; tests move it. */
  clock?: () => Date;
  /** Anything but `hybrid` is for measuring each half of retrieval (bench/relevance.ts). */
  retrieval?: RetrievalMode;
  /**
   * A cluster worker (server/cluster.ts): its id goes into /health and every log line, and the database is taken as
   * migrated, since the primary migrated it before forking (N workers need not each check).
   */
  worker?: number;
  /** How far converting a catalog stored before to half-precision vectors has got (db/halfvec.ts), when it runs. */
  migrationProgress?: MigrationProgress;
}

export interface Root {
  readonly config: Config;
  readonly metrics: Metrics;
  /** Opened and migrated. */
  database(): Promise<DatabaseHandle>;
  embedder(): Promise<Embedder>;
  reranker(): Promise<Reranker>;
  /**
   * SYNONYMS_FILE and the built-in set, read and checked (a mistake throws a RulesError naming the line), after the
   * rules (RULES_DIR and the built-in folder: a RulesError naming each file and line), which it installs.
   */
  synonyms(): Promise<SynonymSet>;
  /** FX_RATES_FILE read and checked (a mistake throws a RulesError), or null without one. */
  exchangeRates(): Promise<ExchangeRates | null>;
  /** The services that need no embedder (keys, catalog lookups, health). */
  base(): Promise<BaseServices>;
  /** Every service, on an embedder whose model made the catalog's vectors (or it refuses, naming the fix). */
  services(): Promise<Services>;
  /** The HTTP app, not yet listening. */
  app(): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export function createRoot(config: Config, options: RootOptions): Root {
  const clock = options.clock ?? (() => new Date());
  const metrics = createMetrics();
  const closers: (() => Promise<void>)[] = [];

  /** A part made once, on first use. */
  function once<T>(make: () => Promise<T>): () => Promise<T> {
    let made: Promise<T> | undefined;
    return () => {
      made ??= make();
      return made;
    };
  }

  const database = once(async () => {
    const handle =
      options.database ??
      (await openDatabase({
        databaseUrl: config.DATABASE_URL,
        replicaUrls: config.DATABASE_REPLICA_URLS,
        dataDir: config.DATA_DIR,
        pgliteSharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
        // The CLI's: a bulk load's two writes in flight and the next batch's read against what is stored.
        poolSize: options.role === "server" ? config.DATABASE_POOL_SIZE : 3,
        role: options.role,
      }));
    if (!options.database) closers.push(() => handle.close());
    if (options.worker === undefined) {
      await handle.migrate(options.migrationProgress ?? {});
      // Columns a migration added are filled from what import stored (a no-op once done).
      await backfillStructured(handle.db);
    }
    return handle;
  });

  const embedder = once(async () => {
    if (options.embedder) return options.embedder;
    const made = await createEmbedder(config);
    closers.push(() => made.close());
    return made;
  });

  const reranker = once(async () => {
    const { read } = await database();
    const made = options.reranker ? options.reranker(read) : createReranker(config, read);
    closers.push(async () => made.close?.());
    return made;
  });

  // The rules (built-in and RULES_DIR) are read and installed with the synonyms, which are rules too: one early step.
  const synonyms = once(async () => {
    useRules(loadRules({ dir: config.RULES_DIR }));
    return loadSynonyms({ builtin: config.SYNONYMS_BUILTIN, file: config.SYNONYMS_FILE, dir: config.RULES_DIR });
  });
  const exchangeRates = once(async () => loadExchangeRates(config.FX_RATES_FILE));

  const base = once(async () => {
    const built = createBaseServices({
      database: await database(),
      clock,
      settings: config,
      ...(options.worker === undefined ? {} : { worker: options.worker }),
    });
    // Last-used times are written in batches; the last batch before the database closes.
    closers.push(() => built.keys.flushUsage());
    return built;
  });

  const services = once(async () => {
    // Before anything slow: a mistake in the synonyms or rates file stops a start at once.
    const rules = await synonyms();
    const rates = await exchangeRates();
    const [handle, encoder] = await Promise.all([database(), embedder()]);
    await checkEmbeddingModel(handle.db, encoder);
    // One fetcher for every live lookup, so one host's politeness (a request at a time, its delay) holds across requests.
    const fetcher =
      config.LIVE_LOOKUP_HOSTS.length > 0 ? createFetcher(fetchSettings(config), { permit: liveLookupPermit(config.LIVE_LOOKUP_HOSTS) }) : null;
    if (fetcher) closers.push(async () => fetcher.close());
    const queryModel = createQueryModel(config);
    return createServices(await base(), {
      database: handle,
      embedder: encoder,
      reranker: await reranker(),
      synonyms: rules,
      exchangeRates: rates,
      clock,
      settings: config,
      fetcher,
      ...(queryModel ? { queryModel } : {}),
      ...(options.retrieval ? { retrieval: options.retrieval } : {}),
      observeSearch: metrics.observeSearch,
    });
  });

  const app = once(async () => {
    const [built, handle] = await Promise.all([services(), database()]);
    const now = () => clock().getTime();
    const store = rateLimitStore({
      kind: resolveRateLimitStore(config.RATE_LIMIT_STORE, handle.kind),
      shared: built.keys.rateLimitStore,
      syncMs: config.RATE_LIMIT_SYNC_MS,
      now,
    });
    const admission = createAdmission(admissionSettings(config), metrics.admission);
    metrics.watchAdmission(admission.state);
    const fastify = await buildApp({
      services: built,
      config,
      metrics,
      rateLimitStore: store,
      now,
      admission,
      ...(options.worker === undefined ? {} : { worker: options.worker }),
    });
    closers.push(() => fastify.close());
    return fastify;
  });

  return {
    config,
    metrics,
    database,
    embedder,
    reranker,
    synonyms,
    exchangeRates,
    base,
    services,
    app,
    async close() {
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
}
