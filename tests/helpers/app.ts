/**
 * A real app on a real database: in-memory PGlite (or any DatabaseHandle the
 * test opens), migrated, loaded with records through the real importer, with
 * a real API key.
 */
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../server/app.js";
import { openPglite, type DatabaseHandle } from "../../server/db/open.js";
import { createServices, type Services } from "../../server/services.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { sharedEmbedder } from "./embedder.js";
import type { Database } from "../../server/db/client.js";
import type { Reranker } from "../../server/search/reranker.js";
import { createLocalReranker } from "../../server/search/rerankers/local.js";
import { FIXTURE, type TestRecord } from "./catalog.js";
import { createMetrics } from "../../server/metrics/index.js";

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  database: DatabaseHandle;
  key: string;
  /** Moves the services' clock (key expiry) forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function createTestApp(
  options: {
    records?: readonly TestRecord[];
    database?: DatabaseHandle;
    prefixes?: string[];
    keyCacheTtlMs?: number;
    productCacheSize?: number;
    /** The reranker, built on the test's database; the default is the production default, `local`. */
    reranker?: (db: Database) => Reranker;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await openPglite()).handle;
  await database.migrate();
  const embedder = await sharedEmbedder();
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);
  const reranker = (options.reranker ?? ((db) => createLocalReranker({ db })))(database.db);
  // Wired as server/main.ts wires them, so /metrics shows search stages too.
  const metrics = createMetrics();
  const services = createServices({
    database,
    embedder,
    reranker,
    clock,
    keyCacheTtlMs: options.keyCacheTtlMs ?? 30_000,
    ...(options.productCacheSize === undefined ? {} : { productCacheSize: options.productCacheSize }),
    observeSearch: metrics.observeSearch,
  });
  const records = options.records ?? FIXTURE;
  const lines = records.map((record, index) => parseLine("fixture", index + 1, JSON.stringify(record)));
  const summary = await importRecords({ db: database.db, embedder }, lines);
  if (summary.failed > 0) throw new Error(`fixture failed to import: ${JSON.stringify(summary.failures)}`);
  const { key } = await services.keys.issue({ name: "test", environment: "dev" });
  const app = await buildApp({ services, metrics, prefixes: options.prefixes ?? ["/api/v1", "/v1"], logLevel: "silent" });
  await app.ready();
  return {
    app,
    services,
    database,
    key,
    advance: (ms) => {
      offset += ms;
    },
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}
