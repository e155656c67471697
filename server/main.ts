/**
 * The server process: read config, open the database, build services and
 * app, listen, and shut down cleanly on SIGTERM/SIGINT.
 */
import { loadConfig, ConfigError } from "./config.js";
import { openDatabase, DataDirBusyError } from "./db/open.js";
import { createServices } from "./services.js";
import { buildApp } from "./app.js";
import { createEmbedder, createReranker } from "./search/providers.js";
import { checkEmbeddingModel, EmbeddingMismatchError } from "./search/reindex.js";
import { importRecords } from "./ingest/import.js";
import { readNdjson } from "./ingest/ndjson.js";
import { SAMPLE_CATALOG_PATH } from "./sample/index.js";
import { getMeta, setMeta } from "./catalog/repository.js";

const USAGE_FLUSH_MS = 30_000;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const database = await openDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolSize: config.DATABASE_POOL_SIZE,
    role: "server",
  });
  await database.migrate();
  const embedder = await createEmbedder(config);
  await checkEmbeddingModel(database.db, embedder);
  const reranker = createReranker(config, database.db);
  const services = createServices({
    database,
    embedder,
    reranker,
    rerankCandidates: config.RERANK_CANDIDATES,
    keyCacheTtlMs: config.KEY_CACHE_TTL_SECONDS * 1000,
  });
  const app = await buildApp({ services, prefixes: config.API_PREFIXES, logLevel: config.LOG_LEVEL });

  // A load cut short (the process stopped mid-import) is finished at the next start: the marker says so.
  const sampleState = await getMeta(database.db, "sample_catalog");
  if (config.SAMPLE_CATALOG && (sampleState === "loading" || (sampleState === null && (await services.catalog.stats()).products === 0))) {
    await setMeta(database.db, "sample_catalog", "loading");
    const summary = await importRecords({ db: database.db, embedder }, readNdjson(SAMPLE_CATALOG_PATH));
    await setMeta(database.db, "sample_catalog", "loaded");
    app.log.info({ imported: summary.imported, unchanged: summary.unchanged, failed: summary.failed }, "loaded the sample catalog into the empty catalog");
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
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing requests in flight");
    clearInterval(usageTimer);
    await app.close();
    await services.keys.flushUsage().catch(() => undefined);
    await database.close();
    await embedder.close();
    process.exit(0);
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
