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
import { withReplicas } from "drizzle-orm/pg-core";
import postgres from "postgres";
import * as schema from "./schema.js";
import type { Database } from "./client.js";
import { acquireDataDir, type LockHolder } from "./lock.js";
import { serveOnSocket } from "./socket.js";
import { DatabaseTimeoutError } from "./errors.js";

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
  /**
   * For what only reads the catalog (lookups, search): selects go to the read
   * replicas in turn (drizzle's withReplicas), anything else to the primary.
   * `db` itself always means the primary: imports, keys, rate limits.
   */
  readonly read: Database;
  /**
   * A database for a read that needs a transaction of its own (vector search
   * on Postgres), which withReplicas would send to the primary: the next
   * replica in turn, or `db` when there are none.
   */
  reader(): Database;
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
  await client.exec(
    Object.entries(VECTOR_SESSION_SETTINGS)
      .map(([name, value]) => `SET ${name} = '${value}';`)
      .join("\n"),
  );
  const db = drizzlePglite(client, { schema }) as unknown as Database;
  const handle: DatabaseHandle = {
    db,
    kind: "pglite",
    vectorSettingsInSession: true,
    read: db,
    reader: () => db,
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS }),
    close: async () => {
      if (!client.closed) await client.close();
    },
  };
  return { handle, client };
}

/**
 * Deadlines for the postgres.js path. postgres.js has no query timeout of its
 * own, and a server-side `statement_timeout` does nothing for a database that
 * has stopped answering (a hung server, a dropped network): the socket stays
 * open and the query waits forever. So the client keeps its own deadlines.
 */
export interface PostgresTimeouts {
  /** Opening a connection: TCP, startup and authentication (postgres.js `connect_timeout`). */
  connectMs: number;
  /**
   * Each query, waiting for a free connection included, and the start of each
   * transaction must be answered within this. Past it the caller gets a
   * `DatabaseTimeoutError` (503 `unavailable`) and the pool, presumed wedged,
   * is replaced by a fresh one, so nothing waits on a dead socket afterwards.
   */
  queryMs: number;
}

/** The server: a lookup answers in milliseconds, so a database silent for 5 s is down. */
export const SERVER_TIMEOUTS: PostgresTimeouts = { connectMs: 5_000, queryMs: 5_000 };
/** The operator CLI (import, reindex, keys): bigger statements, a person waiting. */
export const CLI_TIMEOUTS: PostgresTimeouts = { connectMs: 10_000, queryMs: 60_000 };

/** Reconnect delays after failed connections: 50 ms doubling to at most 1 s, jittered, so recovery is quick. */
function backoff(attempt: number): number {
  return Math.min(0.05 * 2 ** attempt, 1) * (0.5 + Math.random() / 2);
}

type Sql = postgres.Sql;
type TransactionSql = postgres.TransactionSql;

/**
 * `pool.unsafe()` (every query drizzle runs) with the deadline applied. The
 * query object is returned as is, so `.values()` and the rest still work;
 * only its `then` (which is what sends it) races the deadline.
 */
function deadlineQuery<Q extends PromiseLike<unknown>>(query: Q, ms: number, onTimeout: (error: DatabaseTimeoutError) => void): Q {
  const send = query.then.bind(query);
  const raced = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const error = new DatabaseTimeoutError(`no answer to a query within ${ms} ms`, ms);
        reject(error);
        onTimeout(error);
      }, ms);
      send(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  let result: Promise<unknown> | null = null;
  // postgres.js sends a query when it is first awaited: replacing `then` is how the deadline starts with it.
  // biome-ignore lint/suspicious/noThenProperty: the query must stay awaitable, now with the deadline
  Object.defineProperty(query, "then", {
    value: (onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) => {
      result ??= raced();
      return result.then(onFulfilled, onRejected);
    },
  });
  return query;
}

/** `sql` whose `unsafe` queries carry the deadline; everything else passes through. */
function withQueryDeadline<S extends Sql | TransactionSql>(sql: S, ms: number, onTimeout: (error: DatabaseTimeoutError) => void): S {
  return new Proxy(sql, {
    get(target, property, receiver) {
      if (property === "unsafe") {
        return (...args: Parameters<Sql["unsafe"]>) => deadlineQuery(target.unsafe(...args), ms, onTimeout);
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

/**
 * `pool.begin(fn)` with deadlines: the transaction must start (get a
 * connection and BEGIN) within `ms`, and each of its statements must be
 * answered within `ms`; otherwise the caller is rejected at once, without
 * waiting for a ROLLBACK that a silent database would never answer.
 */
function deadlineBegin(pool: Sql, args: unknown[], ms: number, wedged: () => void): Promise<unknown> {
  const fn = args.pop() as (sql: TransactionSql) => unknown;
  const options = args as [] | [string];
  return new Promise((resolve, reject) => {
    let state: "waiting" | "running" | "settled" = "waiting";
    const settle = (outcome: () => void) => {
      if (state === "settled") return;
      state = "settled";
      clearTimeout(timer);
      outcome();
    };
    const abandon = (error: DatabaseTimeoutError) => {
      settle(() => reject(error));
      wedged();
    };
    const timer = setTimeout(() => {
      if (state === "waiting") abandon(new DatabaseTimeoutError(`no transaction started within ${ms} ms`, ms));
    }, ms);
    const body = (sql: TransactionSql) => {
      if (state === "settled") throw new DatabaseTimeoutError(`no transaction started within ${ms} ms`, ms); // too late: roll back
      state = "running";
      clearTimeout(timer);
      return fn(withQueryDeadline(sql, ms, abandon));
    };
    (options.length === 1 ? pool.begin(options[0], body) : pool.begin(body)).then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/** A query that fails at once, unsent, shaped like postgres.js's (drizzle calls `.values()` and awaits). */
function failedQuery(error: Error): ReturnType<Sql["unsafe"]> {
  const failed = {
    values: () => failed,
    // biome-ignore lint/suspicious/noThenProperty: it must be awaitable like a postgres.js query
    then: (onFulfilled?: (value: never) => unknown, onRejected?: (reason: unknown) => unknown) => Promise.reject(error).then(onFulfilled, onRejected),
  };
  return failed as unknown as ReturnType<Sql["unsafe"]>;
}

/**
 * A postgres.js pool behind a stable `Sql` facade with query deadlines. When a
 * deadline passes, the pool is replaced: the old one is destroyed (its queued
 * and in-flight queries fail as unavailable) and new queries go to fresh
 * connections, so the service recovers by itself when the database answers
 * again. For one deadline after that, new queries fail at once instead of
 * each waiting out its own: a request that runs several queries answers 503
 * within one deadline, and a burst of requests does not pile up.
 */
function resilientPool(make: () => Sql, queryMs: number): { sql: Sql; end: (timeoutS: number) => Promise<void> } {
  let current = make();
  let failFastUntil = 0;
  const retiring = new Set<Promise<void>>();
  const replace = (wedged: Sql) => {
    if (wedged !== current) return; // already replaced by another query's deadline
    failFastUntil = performance.now() + queryMs;
    const next = make();
    // drizzle registers its type parsers on the pool it is given; the new pool needs them too.
    Object.assign(next.options.parsers, wedged.options.parsers);
    Object.assign(next.options.serializers, wedged.options.serializers);
    current = next;
    const ending = wedged.end({ timeout: 0 }).catch(() => undefined);
    retiring.add(ending);
    void ending.finally(() => retiring.delete(ending));
  };
  const failingFast = () => performance.now() < failFastUntil;
  const recentTimeout = () =>
    new DatabaseTimeoutError(`the database missed a ${queryMs} ms deadline moments ago; not waiting on it again yet`, queryMs);
  const facade = new Proxy(current, {
    get(_target, property) {
      const pool = current;
      if (property === "unsafe") {
        return (...args: Parameters<Sql["unsafe"]>) =>
          failingFast() ? failedQuery(recentTimeout()) : deadlineQuery(pool.unsafe(...args), queryMs, () => replace(pool));
      }
      if (property === "begin") {
        return (...args: unknown[]) => (failingFast() ? Promise.reject(recentTimeout()) : deadlineBegin(pool, args, queryMs, () => replace(pool)));
      }
      return Reflect.get(pool, property, pool) as unknown;
    },
  });
  return {
    sql: facade,
    end: async (timeoutS) => {
      await Promise.all([current.end({ timeout: timeoutS }), ...retiring]);
    },
  };
}

/**
 * Any Postgres with pgvector (or a PGlite socket) through postgres.js. With
 * `replicaUrls`, catalog reads go to the read replicas in turn (see `read`)
 * and everything else to the primary; each replica has a pool of its own,
 * with the same deadlines.
 */
export function openPostgres(options: {
  url?: string;
  socketPath?: string;
  replicaUrls?: readonly string[];
  max: number;
  timeouts?: PostgresTimeouts;
}): DatabaseHandle {
  const timeouts = options.timeouts ?? SERVER_TIMEOUTS;
  const connect = (max: number, url = options.url): Sql => {
    const common = {
      max,
      onnotice: () => undefined,
      connect_timeout: timeouts.connectMs / 1000,
      idle_timeout: 60,
      backoff,
    };
    return options.socketPath
      ? postgres({ ...common, path: options.socketPath, user: "postgres", database: "template1" })
      : postgres(url ?? "", common);
  };
  const pool = resilientPool(() => connect(options.max), timeouts.queryMs);
  const primary = drizzlePostgres(pool.sql, { schema }) as unknown as Database;
  const replicaPools = (options.replicaUrls ?? []).map((url) => resilientPool(() => connect(options.max, url), timeouts.queryMs));
  const replicas = replicaPools.map((replica) => drizzlePostgres(replica.sql, { schema }) as unknown as Database);
  let turn = 0;
  const nextReplica = () => replicas[turn++ % replicas.length] ?? primary;
  const [firstReplica, ...moreReplicas] = replicas;
  return {
    db: primary,
    read: firstReplica ? (withReplicas(primary, [firstReplica, ...moreReplicas], nextReplica) as Database) : primary,
    reader: nextReplica,
    kind: "postgres",
    vectorSettingsInSession: false,
    // On its own connection and without the query deadline: building an index on a big table takes its time.
    migrate: async () => {
      const single = connect(1);
      try {
        await migratePostgres(drizzlePostgres(single, { schema }), { migrationsFolder: MIGRATIONS });
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    close: async () => {
      await Promise.all([pool.end(5), ...replicaPools.map((replica) => replica.end(5))]);
    },
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
  /** Read replicas of DATABASE_URL (the server only; the CLI writes). */
  replicaUrls?: readonly string[];
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
  if (options.databaseUrl) {
    const timeouts = options.role === "server" ? SERVER_TIMEOUTS : CLI_TIMEOUTS;
    const replicaUrls = options.role === "server" ? (options.replicaUrls ?? []) : [];
    return openPostgres({ url: options.databaseUrl, replicaUrls, max: options.poolSize, timeouts });
  }

  mkdirSync(options.dataDir, { recursive: true });
  const socketPath = options.role === "server" ? socketPathFor(options.dataDir) : null;
  const lock = acquireDataDir(options.dataDir, options.role === "server" ? "the catalog server" : "the catalog CLI", socketPath);
  if (!lock.acquired) {
    if (options.role === "cli" && lock.holder.socket) {
      return openPostgres({ socketPath: lock.holder.socket, max: 1, timeouts: CLI_TIMEOUTS });
    }
    throw new DataDirBusyError(options.dataDir, lock.holder);
  }
  try {
    const { handle, client } = await openPglite(options.dataDir);
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
