/**
 * The server process: read the configuration, build the parts through the
 * composition root, onboard a first run, listen, keep caches in step with the
 * database, and shut down cleanly on SIGTERM/SIGINT.
 */
import { readFileSync } from "node:fs";
import { createRoot } from "./compose.js";
import { ConfigError, loadConfig } from "./config.js";
import { DataDirBusyError } from "./db/open.js";
import { listenForScrapes } from "./metrics/index.js";
import { issueFirstKey, keyWasShown, loadSampleCatalog, markKeyShown } from "./onboarding.js";
import { SAMPLE_CATALOG_PATH } from "./sample/index.js";
import { EmbeddingMismatchError } from "./search/reindex.js";
import { SynonymsError } from "./search/synonyms.js";

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

class PortBusyError extends Error {
  override readonly name = "PortBusyError";
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  // What a start is doing while it is slow (the first one loads a model and embeds a catalog): plain lines on
  // stderr, since the logger comes with the app, which needs the model.
  const say = (line: string) => {
    if (config.LOG_LEVEL !== "silent") process.stderr.write(`${line}\n`);
  };
  const root = createRoot(config, { role: "server" });
  // A mistake in SYNONYMS_FILE stops the start before the database and the model are opened.
  await root.synonyms();
  say("Starting: opening the database and loading the sentence encoder (a few seconds)…");
  const app = await root.app();
  const services = await root.services();

  const sampleSize = readFileSync(SAMPLE_CATALOG_PATH, "utf8").trim().split("\n").length;
  const sample = await loadSampleCatalog(root, (progress) => {
    const done = progress.imported + progress.updated + progress.unchanged + progress.failed;
    say(`Starting: loading the sample catalog into the empty catalog, ${done}/${sampleSize} products`);
  });
  if (sample)
    app.log.info(
      { imported: sample.imported, unchanged: sample.unchanged, failed: sample.failed },
      "loaded the sample catalog into the empty catalog",
    );

  // In the background: searches work meanwhile, just with colder caches.
  void (await root.reranker()).warm?.().catch((error: unknown) => app.log.warn({ err: error }, "reranker warm-up failed"));
  void services.search.warm().catch((error: unknown) => app.log.warn({ err: error }, "search warm-up failed"));
  const usageTimer = setInterval(() => void services.keys.flushUsage().catch(() => undefined), USAGE_FLUSH_MS).unref();
  const catalogTimer = setInterval(() => {
    void services.catalog.syncCache().catch(() => undefined);
    void services.keys.syncCache().catch(() => undefined);
  }, CATALOG_SYNC_MS).unref();
  const scrapes =
    config.METRICS_PORT === undefined
      ? undefined
      : await listenForScrapes({ metrics: root.metrics, host: config.HOST, port: config.METRICS_PORT, logLevel: config.LOG_LEVEL });

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

  // Only once the server listens, so a key is never shown for a server that did not start.
  const first = await issueFirstKey(root);
  const address = `http://${config.HOST}:${config.PORT}`;
  if (first) {
    // Printed once, on stdout and not through the logger, so it never lands in log storage.
    process.stdout.write(
      `\nNo API key existed, so one was issued (${first.id}). It is shown only now; keep it:\n\n  ${first.key}\n\n` +
        `Try:        curl -H "Authorization: <the key>" '${address}/api/v1/products/search?q=tent'\n` +
        `Read:       ${address}/docs\n` +
        `Issue more: npm run -s catalog -- keys issue --name NAME\n\n`,
    );
    await markKeyShown(root);
  } else if (!(await keyWasShown(root))) {
    // Keys exist (issued with the CLI, or by a first start that stopped before it could print one), none by this server.
    process.stdout.write(
      `\nAPI keys exist, but this server never printed one. Issue one (shown once):\n\n  npm run -s catalog -- keys issue --name NAME\n\nRead: ${address}/docs\n\n`,
    );
  }
  // The last line of a start: listening, onboarded, any first key printed above.
  app.log.info("ready");
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirBusyError ||
    error instanceof EmbeddingMismatchError ||
    error instanceof SynonymsError ||
    error instanceof PortBusyError
  ) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
