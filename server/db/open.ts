/**
 * Opens the catalog database: embedded PGlite in DATA_DIR by default, or any
 * Postgres with pgvector through postgres.js when DATABASE_URL is set. Both
 * give the same drizzle `Database` and run the same migrations.
 *
 * An embedded data dir belongs to one process. A server that owns it also
 * serves its database on a unix socket inside the data dir, so the operator
 * CLI reaches the running server's database instead of opening the files twice.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import * as schema from "./schema.js";
import type { Database } from "./client.js";
import { acquireDataDir, type LockHolder } from "./lock.js";
import { serveOnSocket } from "./socket.js";

const MIGRATIONS = fileURLToPath(new URL("../../drizzle", import.meta.url));

export type DatabaseKind = "pglite" | "postgres";

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: DatabaseKind;
  /**
   * Whether VECTOR_SESSION_SETTINGS hold for every query: true for PGlite (one
   * session, set at open); false for a pool of Postgres connections (poolers
   * may drop startup options), where each vector search sets them locally.
   */
  readonly vectorSettingsInSession: boolean;
  /** Applies pending migrations from `drizzle/`. */
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export class DataDirBusyError extends Error {
  override readonly name = "DataDirBusyError";
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by ${holder.role} (pid ${holder.pid}, since ${holder.startedAt}). ` +
        `Stop it first, or point DATA_DIR elsewhere.`,
    );
  }
}

/**
 * Session settings for vector search. HNSW returns at most `ef_search` rows,
 * and under a filter can return fewer than asked; the iterative scan keeps
 * searching until the LIMIT is met (results in relaxed order, re-sorted by
 * the caller). Set per session where possible so a search needs no transaction.
 */
export const VECTOR_SESSION_SETTINGS: Record<string, string> = {
  "hnsw.ef_search": "100",
  "hnsw.iterative_scan": "relaxed_order",
  "hnsw.max_scan_tuples": "50000",
};

/** In-memory or on-disk PGlite with pgvector, in this process. */
export async function openPglite(dataDir?: string): Promise<{ handle: DatabaseHandle; client: PGlite }> {
  const client = await PGlite.create(dataDir ? { dataDir, extensions: { vector } } : { extensions: { vector } });
  await client.exec(Object.entries(VECTOR_SESSION_SETTINGS).map(([name, value]) => `SET ${name} = '${value}';`).join("\n"));
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  const handle: DatabaseHandle = {
    db,
    kind: "pglite",
    vectorSettingsInSession: true,
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS }),
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
  return { handle, client };
}

/** Any Postgres with pgvector (or a PGlite socket) through postgres.js. */
export function openPostgres(options: { url?: string; socketPath?: string; max: number }): DatabaseHandle {
  const common = {
    max: options.max,
    onnotice: () => undefined,
    connect_timeout: 10,
    idle_timeout: 60,
  };
  const client = options.socketPath
    ? postgres({ ...common, path: options.socketPath, user: "postgres", database: "template1" })
    : postgres(options.url ?? "", common);
  const db = drizzlePostgres(client, { schema }) as unknown as Database;
  return {
    db,
    kind: "postgres",
    vectorSettingsInSession: false,
    migrate: () => migratePostgres(drizzlePostgres(client, { schema }), { migrationsFolder: MIGRATIONS }),
    close: () => client.end({ timeout: 5 }),
  };
}

/** A unix socket path must fit in ~104 bytes; long data dirs get a private temp dir instead. */
function socketPathFor(dataDir: string): string {
  const inDir = join(resolve(dataDir), ".catalog.sock");
  if (inDir.length < 100) return inDir;
  const dir = mkdtempSync(join(tmpdir(), "catalog-"));
  return join(dir, ".catalog.sock");
}

export interface OpenOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize: number;
  /** `server` shares its embedded database on a socket; `cli` reaches a running server's. */
  role: "server" | "cli";
}

/**
 * Opens whichever database the configuration names, taking ownership of an
 * embedded data dir or, for the CLI, connecting to the server that owns it.
 */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres({ url: options.databaseUrl, max: options.poolSize });

  mkdirSync(options.dataDir, { recursive: true });
  const socketPath = options.role === "server" ? socketPathFor(options.dataDir) : null;
  const lock = acquireDataDir(options.dataDir, options.role === "server" ? "the catalog server" : "the catalog CLI", socketPath);
  if (!lock.acquired) {
    if (options.role === "cli" && lock.holder.socket) {
      return openPostgres({ socketPath: lock.holder.socket, max: 1 });
    }
    throw new DataDirBusyError(options.dataDir, lock.holder);
  }
  try {
    const { handle, client } = await openPglite(options.dataDir);
    if (!socketPath) return { ...handle, close: async () => (await handle.close(), lock.release()) };
    rmSync(socketPath, { force: true });
    const socket = await serveOnSocket(client, socketPath);
    chmodSync(socketPath, 0o600);
    return {
      ...handle,
      close: async () => {
        await socket.close();
        rmSync(socketPath, { force: true });
        await handle.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Cheap round trip used by /health. */
export async function ping(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
