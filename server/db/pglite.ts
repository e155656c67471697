/** Embedded PGlite with pgvector and unaccent, in this process: in memory, or on disk in a data dir. */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { PGlite, type QueryOptions, type Results } from "@electric-sql/pglite";
import { unaccent } from "@electric-sql/pglite/contrib/unaccent";
import { vector } from "@electric-sql/pglite-pgvector";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import * as schema from "./schema.js";
import type { Database } from "./client.js";
import { MIGRATIONS_FOLDER, type DatabaseHandle } from "./handle.js";
import { restoreDeferredIndexes } from "./deferred-indexes.js";
import { keepFullPrecision } from "./halfvec.js";
import { VECTOR_SESSION_SETTINGS } from "./vector-settings.js";
import { PGLITE_SHARED_BUFFERS_AUTO } from "../config.js";

/** The extensions the migrations create: pgvector (0000) and unaccent, which folds accents in full text (0016). */
export const PGLITE_EXTENSIONS = { vector, unaccent };

export interface PgliteOptions {
  /**
   * Postgres's page cache in MiB (PGLITE_SHARED_BUFFERS_MB; PGlite's own default when absent). Held from the start,
   * not as pages are read. A page outside it is read from the data dir through PGlite's file system, which costs
   * ~15 µs of CPU a page: a vector search at 100,000 products reads ~1,300 of them when the index does not fit.
   */
  sharedBuffersMb?: number;
  /**
   * A data dir as PGlite's `dumpDataDir` wrote it, to start from instead of an empty one (in memory only). The tests
   * load one migrated copy per worker: loading it takes ~0.4 s, making and migrating a new one ~1.7 s.
   */
  loadDataDir?: Blob;
}

/**
 * A page cache that holds the data dir's tables and indexes as they are at start (`base/`), in MiB rounded up to
 * 64, within PGLITE_SHARED_BUFFERS_AUTO: a small catalog keeps PGlite's default, and at 100,000 products (~900 MiB)
 * a search stops reading pages from the files (measured in docs/performance.md, "Where a search's time goes").
 */
export function sharedBuffersFor(dataDir: string): number {
  let bytes = 0;
  const add = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) add(path);
      else if (entry.isFile()) bytes += statSync(path).size;
    }
  };
  try {
    add(join(dataDir, "base"));
  } catch (error) {
    // A new data dir has no tables yet.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // a cast: fs errors carry their code untyped
  }
  const mb = Math.ceil(bytes / 2 ** 20 / 64) * 64;
  return Math.min(PGLITE_SHARED_BUFFERS_AUTO.maxMb, Math.max(PGLITE_SHARED_BUFFERS_AUTO.minMb, mb));
}

/**
 * PGlite runs a query on this thread and hands its answer back as a resolved promise, so the next query (this
 * search's, or the other searches') started in the same turn of the event loop: while searches had queries left,
 * sockets were not read, lookups were not answered and new searches did not reach admission. At 32 connections on
 * the sample catalog the loop stood still for 215 ms at the median (nodejs_eventloop_lag_p50_seconds) and searches
 * waited seconds before the server saw them. Each query now starts on a later turn (setImmediate runs after the
 * poll phase), which costs one loop turn, microseconds when idle. Every query drizzle sends goes through `query`;
 * `exec` (start-up settings, migrations) and the socket bridge's protocol calls are left as they are.
 */
function startEachQueryOnANewTurn(client: PGlite): void {
  const query = client.query.bind(client);
  client.query = async <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> => {
    await nextTurn();
    return query<T>(text, params, options);
  };
}

export async function openPglite(dataDir?: string, options: PgliteOptions = {}): Promise<{ handle: DatabaseHandle; client: PGlite }> {
  const startParams =
    options.sharedBuffersMb === undefined ? {} : { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${options.sharedBuffersMb}MB`] };
  const client = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    extensions: PGLITE_EXTENSIONS,
    ...startParams,
  });
  await client.exec(
    Object.entries(VECTOR_SESSION_SETTINGS)
      .map(([name, value]) => `SET ${name} = '${value}';`)
      .join("\n"),
  );
  startEachQueryOnANewTurn(client);
  // drizzle's PGlite database, seen as the driver-neutral type every query takes.
  const db = drizzle(client, { schema }) as unknown as Database;
  const handle: DatabaseHandle = {
    db,
    kind: "pglite",
    vectorSettingsInSession: true,
    read: db,
    reader: () => db,
    migrate: async () => {
      await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
      await keepFullPrecision(db);
      await restoreDeferredIndexes(db, { unlessLoading: true });
    },
    longStatements: (work) => work(db),
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
  return { handle, client };
}
