/**
 * A real app on a real database, built through the composition root as the
 * server is: in-memory PGlite (or any DatabaseHandle the test opens),
 * migrated, loaded with records through the real importer, with a real API key.
 */
import type { FastifyInstance } from "fastify";
import type { Config } from "../../server/config.js";
import { createRoot, type Root } from "../../server/compose.js";
import type { Database } from "../../server/db/client.js";
import type { DatabaseHandle } from "../../server/db/open.js";
import { openTestDatabase } from "./database.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import type { Embedder } from "../../server/search/embedder.js";
import type { Reranker } from "../../server/search/reranker.js";
import type { Services } from "../../server/services.js";
import { FIXTURE, type TestRecord } from "./catalog.js";
import { testConfig } from "./config.js";
import { sharedEmbedder } from "./embedder.js";

export interface TestApp {
  app: FastifyInstance;
  root: Root;
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
    /** Settings beyond testConfig's. */
    config?: Partial<Config>;
    /** The reranker, built on the test's database; the default is RERANKER's default, `local`. */
    reranker?: (db: Database) => Reranker;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await openTestDatabase());
  let offset = 0;
  const root = createRoot(testConfig(options.config), {
    role: "server",
    database,
    embedder: await sharedEmbedder(),
    clock: () => new Date(Date.now() + offset),
    ...(options.reranker ? { reranker: options.reranker } : {}),
  });
  const services = await root.services();
  const records = options.records ?? FIXTURE;
  const lines = records.map((record, index) => parseLine("fixture", index + 1, JSON.stringify(record)));
  const summary = await importRecords({ db: database.db, embedder: await root.embedder() }, lines);
  if (summary.failed > 0) throw new Error(`fixture failed to import: ${JSON.stringify(summary.failures)}`);
  const { key } = await services.keys.issue({ name: "test", environment: "dev" });
  const app = await root.app();
  await app.ready();
  return {
    app,
    root,
    services,
    database,
    key,
    advance: (ms) => {
      offset += ms;
    },
    close: async () => {
      await root.close();
      await database.close();
    },
  };
}

/**
 * Another root on a database a test already holds (a second server on the same database, or one with other
 * settings); the caller closes the root, the database stays the test's.
 */
export async function rootOn(
  database: DatabaseHandle,
  options: { config?: Partial<Config>; clock?: () => Date; embedder?: Embedder } = {},
): Promise<Root> {
  return createRoot(testConfig(options.config), {
    role: "server",
    database,
    embedder: options.embedder ?? (await sharedEmbedder()),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
