/**
 * The server process: read config, open the database, build services and
 * app, listen, and shut down cleanly on SIGTERM/SIGINT.
 */
import { loadConfig, ConfigError } from "./config.js";
import { openDatabase, DataDirBusyError } from "./db/open.js";
import { createServices } from "./services.js";
import { buildApp } from "./app.js";
import { resolveRateLimitStore } from "./api/http/ratelimit.js";
import { createEmbedder, createReranker } from "./search/providers.js";
import { checkEmbeddingModel, EmbeddingMismatchError } from "./search/reindex.js";
import { importRecords } from "./ingest/import.js";
import { readNdjson } from "./ingest/ndjson.js";
import { SAMPLE_CATALOG_PATH } from "./sample/index.js";
import { getMeta, setMeta } from "./catalog/repository.js";
import { createMetrics, listenForScrapes } from "./metrics/index.js";

const USAGE_FLUSH_MS = 30_000;
/**
 * How often the server checks whether an import changed the catalog, or an issue, revocation or rotation changed the keys
 * (from any process); bounds how stale a cached product or key can be.
 */
const CATALOG_SYNC_MS = 1_000;
/** How long SIGTERM/SIGINT waits for requests in flight before exiting anyway (with code 1). */
const SHUTDOWN_GRACE_MS = 10_000;
/** While shutting down, how often connections that have finished their last request are ended. */
const IDLE_SWEEP_MS = 50;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    replicaUrls: config.DATABASE_REPLICA_URLS,
    dataDir: config.DATA_DIR,
    poolSize: config.DATABASE_POOL_SIZE,
    role: "server",
  });
  await database.migrate();
  const embedder = await createEmbedder(config);
  await checkEmbeddingModel(database.db, embedder);
  const reranker = createReranker(config, database.read);
  const metrics = createMetrics();
  const services = createServices({
    database,
    embedder,
    reranker,
    rerankCandidates: config.RERANK_CANDIDATES,
    keyCacheTtlMs: config.KEY_CACHE_TTL_SECONDS * 1000,
    productCacheSize: config.PRODUCT_CACHE_SIZE,
    observeSearch: metrics.observeSearch,
  });
  const app = await buildApp({
    services,
    prefixes: config.API_PREFIXES,
    logLevel: config.LOG_LEVEL,
    rateLimit: {
      perMinute: config.RATE_LIMIT_PER_MINUTE,
      store: resolveRateLimitStore(config.RATE_LIMIT_STORE, database.kind),
      syncMs: config.RATE_LIMIT_SYNC_MS,
    },
    metrics,
    metricsOnApi: config.METRICS_PORT === undefined,
  });

  // A load cut short (the process stopped mid-import) is finished at the next start: the marker says so.
  const sampleState = await getMeta(database.db, "sample_catalog");
  if (config.SAMPLE_CATALOG && (sampleState === "loading" || (sampleState === null && (await services.catalog.stats()).products === 0))) {
    await setMeta(database.db, "sample_catalog", "loading");
    const summary = await importRecords({ db: database.db, embedder }, readNdjson(SAMPLE_CATALOG_PATH));
    await setMeta(database.db, "sample_catalog", "loaded");
    metrics.countImport(summary);
    app.log.info(
      { imported: summary.imported, unchanged: summary.unchanged, failed: summary.failed },
      "loaded the sample catalog into the empty catalog",
    );
  }
  if ((await services.keys.countUsable()) === 0) {
    const { key, record } = await services.keys.issue({ name: "first key", environment: "dev" });
    // Printed once, on stdout and not through the logger, so it never lands in log storage.
    process.stdout.write(
      `\nNo API key existed, so one was issued (${record.id}). It is shown only now; keep it:\n\n  ${key}\n\n` +
        `Try:        curl -H "Authorization: <the key>" 'http://${config.HOST}:${config.PORT}/api/v1/products/search?q=tent'\n` +
        `Issue more: npm run -s catalog -- keys issue --name NAME\n\n`,
    );
  }

  // In the background: searches work meanwhile, just with colder caches.
  void reranker.warm?.().catch((error: unknown) => app.log.warn({ err: error }, "reranker warm-up failed"));
  const usageTimer = setInterval(() => void services.keys.flushUsage().catch(() => undefined), USAGE_FLUSH_MS).unref();
  const catalogTimer = setInterval(() => {
    void services.catalog.syncCache().catch(() => undefined);
    void services.keys.syncCache().catch(() => undefined);
  }, CATALOG_SYNC_MS).unref();
  const scrapes =
    config.METRICS_PORT === undefined
      ? undefined
      : await listenForScrapes({ metrics, host: config.HOST, port: config.METRICS_PORT, logLevel: config.LOG_LEVEL });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: refusing new connections, finishing requests in flight");
    // A request that never ends must not keep the process (and the data dir's lock) forever.
    const deadline = setTimeout(() => {
      app.log.error({ signal, graceMs: SHUTDOWN_GRACE_MS }, "requests still in flight at the shutdown deadline; exiting anyway");
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    clearInterval(usageTimer);
    clearInterval(catalogTimer);
    let code = 0;
    try {
      // Stops listening at once, closes idle keep-alive connections, answers 503 to new requests
      // on busy ones, and resolves when every connection has ended. A keep-alive connection that
      // was busy at this moment stays open once its answer is sent (until the client's keep-alive
      // runs out), so connections are ended as they go idle.
      const closed = app.close();
      const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
      await closed.finally(() => clearInterval(sweep));
      await scrapes?.close();
      await services.keys.flushUsage().catch((error: unknown) => app.log.warn({ err: error }, "could not record key usage at shutdown"));
    } catch (error) {
      app.log.error({ err: error }, "error while closing the server");
      code = 1;
    }
    try {
      // Last, once nothing uses it: PGlite writes its files and the data dir's lock is released.
      await database.close();
    } catch (error) {
      app.log.error({ err: error }, "error while closing the database");
      code = 1;
    }
    await embedder.close().catch(() => undefined);
    clearTimeout(deadline);
    app.log.info({ signal, code }, "shut down");
    process.exit(code);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  await app.listen({ host: config.HOST, port: config.PORT });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirBusyError || error instanceof EmbeddingMismatchError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
