/**
 * The database a test file runs on: in-memory PGlite, or, in the suite's Postgres half (vitest.config.ts), a fresh
 * database of its own on the real Postgres that TEST_POSTGRES_URL names, dropped when the file closes it.
 */
import postgres from "postgres";
import { inject } from "vitest";
import { CLI_TIMEOUTS, type DatabaseHandle, openPglite, openPostgres } from "../../server/db/open.js";
import { createPostgresDatabase } from "./postgres-database.js";

export type TestDatabase = { kind: "pglite" } | { kind: "postgres"; url: string };

declare module "vitest" {
  export interface ProvidedContext {
    testDatabase: TestDatabase;
  }
}

/** Which half of the suite this file runs in (read per call: a worker may run files of both halves). */
export function testDatabase(): TestDatabase {
  return inject("testDatabase") ?? { kind: "pglite" };
}

/**
 * A new database for one test file: in-memory PGlite, or a database of its own on real Postgres (the CLI's deadlines:
 * a loaded CI machine may take more than the server's 5 s over a migration or a big import). A PGlite one starts
 * migrated, as a copy of the worker's template (migratedPglite); migrating it again, as the composition root does,
 * finds nothing to do. Starting from an empty database is what migrations.test.ts and openRawTestDatabase are for.
 */
export async function openTestDatabase(options: { max?: number } = {}): Promise<DatabaseHandle> {
  const target = testDatabase();
  if (target.kind === "pglite") return (await openPglite(undefined, { loadDataDir: await migratedPglite() })).handle;
  return (await openPostgresTestDatabase(target.url, options.max ?? 4)).handle;
}

let template: Promise<Blob> | null = null;

/**
 * An empty catalog database, migrated by the real migrator, as PGlite dumps its data dir: made once per worker (the
 * files a worker runs share its modules) and read-only, so every file's database is a copy of the same bytes.
 * Loading a copy takes ~0.4 s; opening a new PGlite (initdb) and migrating it took ~1.7 s, for each of the ~110
 * databases a run opens (docs/testing.md).
 */
export function migratedPglite(): Promise<Blob> {
  template ??= (async () => {
    const { handle, client } = await openPglite();
    try {
      await handle.migrate();
      // Written out, so that each copy starts without replaying the write-ahead log.
      await client.exec("CHECKPOINT");
      return await client.dumpDataDir("none");
    } finally {
      await handle.close();
    }
  })();
  return template;
}

async function openPostgresTestDatabase(serverUrl: string, max: number): Promise<{ handle: DatabaseHandle; url: string }> {
  const created = await createPostgresDatabase(serverUrl);
  const handle = openPostgres({ url: created.url, max, timeouts: CLI_TIMEOUTS });
  return {
    url: created.url,
    handle: {
      ...handle,
      close: async () => {
        await handle.close();
        await created.drop();
      },
    },
  };
}

/** A test database with raw SQL beside drizzle, and migrations applied from a folder of the test's. */
export interface RawTestDatabase {
  handle: DatabaseHandle;
  /** Raw SQL, the rows as they are stored. */
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  /** Applies the migrations of `folder` (a copy of drizzle/ whose journal ends early). */
  migrateFrom(folder: string): Promise<void>;
}

export async function openRawTestDatabase(): Promise<RawTestDatabase> {
  const target = testDatabase();
  if (target.kind === "pglite") {
    const { handle, client } = await openPglite();
    return {
      handle,
      query: async <T>(text: string, params?: unknown[]) => ({ rows: (await client.query<T>(text, params)).rows }),
      migrateFrom: async (folder) => {
        const { migrate } = await import("drizzle-orm/pglite/migrator");
        const { drizzle } = await import("drizzle-orm/pglite");
        await migrate(drizzle(client), { migrationsFolder: folder });
      },
    };
  }
  const { handle, url } = await openPostgresTestDatabase(target.url, 2);
  const raw = postgres(url, { max: 1, onnotice: () => undefined });
  return {
    handle: {
      ...handle,
      close: async () => {
        await raw.end();
        await handle.close();
      },
    },
    query: async <T>(text: string, params?: unknown[]) => ({
      rows: (await raw.unsafe(text, params as postgres.ParameterOrJSON<never>[])) as unknown as T[],
    }),
    migrateFrom: async (folder) => {
      const { migrate } = await import("drizzle-orm/postgres-js/migrator");
      const { drizzle } = await import("drizzle-orm/postgres-js");
      await migrate(drizzle(raw), { migrationsFolder: folder });
    },
  };
}
