/**
 * Opens the catalog database: embedded PGlite in DATA_DIR by default, or any
 * Postgres with pgvector through postgres.js when DATABASE_URL is set. Both
 * give the same drizzle `Database` and run the same migrations.
 *
 * An embedded data dir belongs to one process. A server that owns it also
 * serves its database on a unix socket inside the data dir, so the operator
 * CLI reaches the running server's database instead of opening the files twice.
 *
 * This module decides and takes ownership; the drivers are in pglite.ts and
 * postgres.ts, the data dir's lock, socket and modes in lock.ts, socket.ts
 * and permissions.ts.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import type { DatabaseHandle } from "./handle.js";
import { acquireDataDir, type LockHolder } from "./lock.js";
import { createPrivateDir, restrictToOwner } from "./permissions.js";
import { openPglite, sharedBuffersFor } from "./pglite.js";
import { warnOnStderr } from "../warnings.js";
import { CLI_TIMEOUTS, openPostgres, SERVER_TIMEOUTS } from "./postgres.js";
import { serveOnSocket } from "./socket.js";

// What callers open or type a database with, from the one module they import.
export { ping, type DatabaseHandle, type DatabaseKind } from "./handle.js";
export { openPglite, sharedBuffersFor } from "./pglite.js";
export { CLI_TIMEOUTS, openPostgres, SERVER_TIMEOUTS, type PostgresTimeouts } from "./postgres.js";

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

/** A unix socket path must fit in ~104 bytes; long data dirs get a private temp dir instead. */
function socketPathFor(dataDir: string): string {
  const inDir = join(resolve(dataDir), ".catalog.sock");
  if (inDir.length < 100) return inDir;
  const dir = mkdtempSync(join(tmpdir(), "catalog-"));
  return join(dir, ".catalog.sock");
}

export interface OpenOptions {
  databaseUrl: string | undefined;
  /** Read replicas of DATABASE_URL (the server only; the CLI writes). */
  replicaUrls?: readonly string[];
  dataDir: string;
  /** The embedded database's page cache (PGLITE_SHARED_BUFFERS_MB); unset: sized to the data dir (sharedBuffersFor). */
  pgliteSharedBuffersMb?: number | undefined;
  poolSize: number;
  /** `server` shares its embedded database on a socket; `cli` reaches a running server's. */
  role: "server" | "cli";
  /** How long a client of the server's socket may keep the embedded database to itself (see socket.ts); tests shorten it. */
  socketHoldLimitMs?: number;
  /** Told what an operator should know (a loose data dir tightened, a socket client cut off); default: a line on stderr. */
  warn?: (message: string) => void;
}

/**
 * Opens whichever database the configuration names, taking ownership of an
 * embedded data dir or, for the CLI, connecting to the server that owns it.
 */
export async function openDatabase(options: OpenOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const timeouts = options.role === "server" ? SERVER_TIMEOUTS : CLI_TIMEOUTS;
    const replicaUrls = options.role === "server" ? (options.replicaUrls ?? []) : [];
    return openPostgres({ url: options.databaseUrl, replicaUrls, max: options.poolSize, timeouts });
  }

  const warn = options.warn ?? warnOnStderr;
  const existed = createPrivateDir(options.dataDir);
  const socketPath = options.role === "server" ? socketPathFor(options.dataDir) : null;
  const lock = acquireDataDir(options.dataDir, options.role === "server" ? "the catalog server" : "the catalog CLI", socketPath);
  if (!lock.acquired) {
    if (options.role === "cli" && lock.holder.socket) {
      return openPostgres({ socketPath: lock.holder.socket, max: 1, timeouts: CLI_TIMEOUTS });
    }
    throw new DataDirBusyError(options.dataDir, lock.holder);
  }
  try {
    const loose = restrictToOwner(options.dataDir);
    if (existed && loose > 0) {
      warn(
        `DATA_DIR ${options.dataDir} was open to other users (${loose} files or folders readable or writable by group or others); ` +
          `restricted them to the owner`,
      );
    }
    const sharedBuffersMb = options.pgliteSharedBuffersMb ?? sharedBuffersFor(options.dataDir);
    const { handle, client } = await openPglite(options.dataDir, { sharedBuffersMb });
    // The files PGlite writes into a new data dir, which it makes 0666 (see permissions.ts).
    restrictToOwner(options.dataDir);
    if (!socketPath) {
      return {
        ...handle,
        close: async () => {
          await handle.close();
          lock.release();
        },
      };
    }
    rmSync(socketPath, { force: true });
    const socket = await serveOnSocket(client, socketPath, {
      warn,
      ...(options.socketHoldLimitMs ? { holdLimitMs: options.socketHoldLimitMs } : {}),
    });
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
