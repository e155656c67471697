/**
 * The server process: read the configuration, build the parts through the
 * composition root, onboard a first run, listen, keep caches in step with the
 * database, and shut down cleanly on SIGTERM/SIGINT. With DATABASE_URL and
 * WEB_CONCURRENCY above 1 this file runs as a cluster: the primary migrates
 * and onboards once, then keeps that many workers (server/cluster.ts), each a
 * whole server without the onboarding.
 */
import cluster from "node:cluster";
import type { FastifyInstance } from "fastify";
import { readFileSync } from "node:fs";
import { analyzeIfDue } from "./catalog/analyze.js";
import { createRoot, type MigrationProgress, type Root } from "./compose.js";
import { clusterWorkerId, primaryLog, superviseWorkers } from "./cluster.js";
import { type Config, ConfigError, loadConfig, serverProcesses } from "./config.js";
import { DataDirBusyError } from "./db/open.js";
import { answerClusterScrapes, clusterScrape, listenForScrapes, scrapeOf } from "./metrics/index.js";
import { issueFirstKey, keyWasShown, loadSampleCatalog, markKeyShown, writeKeyFile } from "./onboarding.js";
import { SAMPLE_CATALOG_PATH } from "./sample/index.js";
import { type StartProgress, startProgress } from "./start-progress.js";
import { redactingStream, resolveLogFormat } from "./api/http/logging.js";
import { EmbeddingMismatchError } from "./search/reindex.js";
import { RulesError } from "./search/rules/files.js";

/** How often last-used times of keys are written (batched: one write per interval, not per request). */
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
/** The cluster's primary waits this much beyond a worker's own grace before killing it. */
const CLUSTER_GRACE_MARGIN_MS = 2_000;

class PortBusyError extends Error {
  override readonly name = "PortBusyError";
}

/** The start's progress in the logs' format (start-progress.ts); a cluster worker's would only repeat the primary's. */
function progressOf(config: Config, worker: number | undefined): StartProgress {
  return startProgress({ format: resolveLogFormat(config.LOG_FORMAT), level: worker === undefined ? config.LOG_LEVEL : "silent" });
}

type Log = (fields: Record<string, unknown>, msg: string) => void;

/** First run: an empty catalog gets the sample catalog (once, by the single server or the cluster's primary). */
async function onboardCatalog(root: Root, progress: StartProgress, log: Log): Promise<void> {
  const sampleSize = readFileSync(SAMPLE_CATALOG_PATH, "utf8").trim().split("\n").length;
  const doing = "loading the sample catalog into the empty catalog";
  const began = performance.now();
  const sample = await loadSampleCatalog(root, (summary) => {
    const done = summary.imported + summary.updated + summary.unchanged + summary.failed;
    progress.count("sample_catalog", doing, done, sampleSize, "products");
  });
  if (!sample) return;
  progress.finished("sample_catalog", doing, performance.now() - began);
  log({ imported: sample.imported, unchanged: sample.unchanged, failed: sample.failed }, "loaded the sample catalog into the empty catalog");
}

/**
 * Only once the server listens, so a key is never shown for a server that did not start. At a terminal it is printed
 * there, once, not through the logger. Otherwise stdout is where the logs go (a file, a collector), which must never
 * hold a key: it is written to a file only its owner can read, and the logs say where.
 */
async function onboardKey(root: Root, address: string, log: Log): Promise<void> {
  const first = await issueFirstKey(root);
  const issueMore = "npm run -s catalog -- keys issue --name NAME";
  if (first && process.stdout.isTTY) {
    process.stdout.write(
      `\nNo API key existed, so one was issued (${first.id}). It is shown only now; keep it:\n\n  ${first.key}\n\n` +
        `Try:        curl -H "Authorization: <the key>" '${address}/api/v1/products/search?q=tent'\n` +
        `Read:       ${address}/docs\n` +
        `Search:     ${address}/search (a page for people; it asks for the key once)\n` +
        `Issue more: ${issueMore}\n\n`,
    );
    await markKeyShown(root);
  } else if (first) {
    const keyFile = writeKeyFile(root.config.DATA_DIR, first.key);
    log(
      { key_id: first.id, key_file: keyFile, docs: `${address}/docs`, search: `${address}/search` },
      `No API key existed, so one was issued (${first.id}) into key_file, readable only by this user: keep the key elsewhere and delete the file. Issue more: ${issueMore}`,
    );
    await markKeyShown(root);
  } else if (!(await keyWasShown(root))) {
    // Keys exist (issued with the CLI, or by a first start that stopped before it could print one), none by this server.
    const text = `API keys exist, but this server never printed one. Issue one (shown once): ${issueMore}`;
    if (process.stdout.isTTY) process.stdout.write(`\n${text.replace(": npm", ":\n\n  npm")}\n\nRead: ${address}/docs\n\n`);
    else log({ docs: `${address}/docs` }, text);
  }
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const worker = clusterWorkerId();
  if (worker !== undefined) return serve(config, { worker });
  const processes = serverProcesses(config);
  // A worker of another's cluster (PM2's cluster mode) cannot fork workers of its own: it serves alone, as a single server.
  if (processes.count > 1 && cluster.isPrimary) return runPrimary(config, processes.count);
  return serve(config, processes.note ? { note: processes.note } : {});
}

/** Converting a catalog stored before to half-precision vectors, once, after an upgrade (db/halfvec.ts). */
function vectorProgress(progress: StartProgress): MigrationProgress {
  const doing = "converting the catalog's vectors to half precision";
  return {
    onProgress: (done, total) => progress.count("vectors", doing, done, total, "products"),
    onIndexing: (rows) => progress.say(`${doing}: building their index (${rows} products)…`, { step: "vectors", rows }),
  };
}

/**
 * The cluster's primary: migrations and the sample catalog once, before any worker starts (not N times racing);
 * then the workers; the first key once they all listen; /metrics on METRICS_PORT summed over them.
 */
async function runPrimary(config: Config, count: number): Promise<void> {
  const progress = progressOf(config, undefined);
  // The primary's lines in the workers' format: plain at a terminal, JSON otherwise, redacted either way.
  const out = redactingStream(process.stdout, resolveLogFormat(config.LOG_FORMAT));
  const log = primaryLog(config.LOG_LEVEL, (line) => out.write(line));
  progress.say(`Starting ${count} server processes (WEB_CONCURRENCY): first the database's migrations and first-run checks, once…`, {
    processes: count,
  });
  // It only migrates, loads the sample catalog and issues the first key: a small pool.
  const root = createRoot(
    { ...config, DATABASE_POOL_SIZE: Math.min(2, config.DATABASE_POOL_SIZE) },
    { role: "server", migrationProgress: vectorProgress(progress) },
  );
  await root.synonyms();
  await progress.step("database", "opening the database and applying its migrations", () => root.database());
  await onboardCatalog(root, progress, log.info);
  const scrapes =
    config.METRICS_PORT === undefined
      ? undefined
      : await listenForScrapes({ scrape: clusterScrape(), host: config.HOST, port: config.METRICS_PORT, logLevel: config.LOG_LEVEL });
  const workersReady = performance.now();
  progress.say(`Starting: ${count} server processes, each opening the database and loading the sentence encoder…`, { processes: count });
  const code = await superviseWorkers({
    count,
    log,
    graceMs: SHUTDOWN_GRACE_MS + CLUSTER_GRACE_MARGIN_MS,
    onReady: async (port) => {
      progress.finished("workers", `starting ${count} server processes`, performance.now() - workersReady);
      progress.close();
      await onboardKey(root, `http://${config.HOST}:${port}`, log.info);
      await root.close();
      log.info({ processes: count, startup_ms: Math.round(progress.elapsedMs()) }, "ready");
    },
  });
  await scrapes?.close();
  await root.close();
  log.info({ code }, "shut down");
  process.exit(code);
}

/** The slow parts of a start, each a step of its progress; the database and the encoder at once (neither waits on the other). */
async function openParts(root: Root, progress: StartProgress): Promise<FastifyInstance> {
  await Promise.all([
    progress.step("database", "opening the database and applying its migrations", () => root.database()),
    progress.step("encoder", "loading the sentence encoder", () => root.embedder()),
  ]);
  return progress.step("app", "preparing search (reranker, catalog checks) and the HTTP app", () => root.app());
}

/** One server: the whole service, or one of a cluster's workers (which the primary has onboarded). */
async function serve(config: Config, options: { worker?: number; note?: string }): Promise<void> {
  const { worker } = options;
  // N workers saying the same start-up lines would only repeat the primary's.
  const progress = progressOf(config, worker);
  const root = createRoot(config, { role: "server", ...(worker === undefined ? { migrationProgress: vectorProgress(progress) } : { worker }) });
  // A worker's counters are scraped through the primary, which adds them up: from the start, since a worker that
  // does not answer holds up every scrape (until prom-client gives up, after 5 s).
  if (worker !== undefined) answerClusterScrapes(root.metrics);
  // A mistake in RULES_DIR, SYNONYMS_FILE or FX_RATES_FILE stops the start before the database and the model are opened.
  await root.synonyms();
  await root.exchangeRates();
  const app = await openParts(root, progress);
  const services = await root.services();
  if (options.note) app.log.warn(options.note);
  if (worker === undefined) await onboardCatalog(root, progress, (fields, msg) => app.log.info(fields, msg));
  progress.close();

  // In the background: searches work meanwhile, just with colder caches (and, once, a catalog imported before
  // statistics were gathered after imports, with slower plans).
  if (worker === undefined) {
    void analyzeIfDue((await root.database()).db).catch((error: unknown) => app.log.warn({ err: error }, "analyzing the catalog failed"));
  }
  void (await root.reranker()).warm?.().catch((error: unknown) => app.log.warn({ err: error }, "reranker warm-up failed"));
  void services.search.warm().catch((error: unknown) => app.log.warn({ err: error }, "search warm-up failed"));
  const usageTimer = setInterval(() => void services.keys.flushUsage().catch(() => undefined), USAGE_FLUSH_MS).unref();
  const catalogTimer = setInterval(() => {
    void services.catalog.syncCache().catch(() => undefined);
    void services.keys.syncCache().catch(() => undefined);
  }, CATALOG_SYNC_MS).unref();
  const scrapes =
    config.METRICS_PORT === undefined || worker !== undefined
      ? undefined
      : await listenForScrapes({ scrape: scrapeOf(root.metrics), host: config.HOST, port: config.METRICS_PORT, logLevel: config.LOG_LEVEL });

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
      await scrapes?.close();
      // Stops listening at once, closes idle keep-alive connections, answers 503 to new requests on busy ones, and
      // resolves when every connection has ended; then key usage is written and, last, the database closes (PGlite
      // writes its files and the data dir's lock is released). A keep-alive connection that was busy when closing
      // began stays open once its answer is sent (until the client's keep-alive runs out), so connections are ended
      // as they go idle.
      const closed = root.close();
      const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
      await closed.finally(() => clearInterval(sweep));
    } catch (error) {
      app.log.error({ err: error }, "error while shutting down");
      code = 1;
    }
    clearTimeout(deadline);
    app.log.info({ signal, code }, "shut down");
    process.exit(code);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  try {
    await app.listen({ host: config.HOST, port: config.PORT });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      await root.close();
      throw new PortBusyError(
        `Port ${config.PORT} on ${config.HOST} is already in use. Stop what is using it, or start on another port: PORT=3001 npm start`,
      );
    }
    throw error;
  }

  // A worker's first key and "ready" are the primary's to say, once for all of them.
  if (worker !== undefined) return;
  await onboardKey(root, `http://${config.HOST}:${config.PORT}`, (fields, msg) => app.log.info(fields, msg));
  // The last line of a start: listening, onboarded, any first key printed above; how long the whole start took.
  app.log.info({ startup_ms: Math.round(progress.elapsedMs()) }, "ready");
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirBusyError ||
    error instanceof EmbeddingMismatchError ||
    error instanceof RulesError ||
    error instanceof PortBusyError
  ) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
