/**
 * Any Postgres with pgvector (DATABASE_URL, its read replicas, or a running
 * server's embedded database over its unix socket) through postgres.js, with
 * deadlines of our own on every query and on the start of every transaction.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { withReplicas } from "drizzle-orm/pg-core";
import postgres from "postgres";
import * as schema from "./schema.js";
import type { Database } from "./client.js";
import { MIGRATIONS_FOLDER, type DatabaseHandle } from "./handle.js";
import { restoreDeferredIndexes } from "./deferred-indexes.js";
import { convertVectorsToHalf, keepFullPrecision } from "./halfvec.js";
import { DatabaseTimeoutError } from "./errors.js";

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
 * postgres.js fetches the array types on every new connection, in a promise it drops (porsager/postgres#1192): a
 * connection destroyed during that fetch, as a pool replaced at a deadline is, rejects that promise unhandled, which
 * ends the process. The types never change, so once a pool has them (its parsers then include array ones), its new
 * connections, and the pools that replace it, skip the fetch: only the first connection of a process still makes it.
 */
function skipTypeFetchOnceKnown(pool: Sql): void {
  if (pool.options.fetch_types && Object.values(pool.options.parsers).some((parser) => "array" in parser)) pool.options.fetch_types = false;
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
    // drizzle registers its type parsers on the pool it is given, and postgres.js the array types it fetched; the new
    // pool needs them too, and need not fetch the array types again.
    Object.assign(next.options.parsers, wedged.options.parsers);
    Object.assign(next.options.serializers, wedged.options.serializers);
    skipTypeFetchOnceKnown(wedged);
    next.options.fetch_types = wedged.options.fetch_types;
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
      skipTypeFetchOnceKnown(pool);
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
  // drizzle's postgres.js database, seen as the driver-neutral type every query takes.
  const primary = drizzle(pool.sql, { schema }) as unknown as Database;
  const replicaPools = (options.replicaUrls ?? []).map((url) => resilientPool(() => connect(options.max, url), timeouts.queryMs));
  const replicas = replicaPools.map((replica) => drizzle(replica.sql, { schema }) as unknown as Database);
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
    migrate: async (migrateOptions = {}) => {
      const single = connect(1);
      try {
        const db = drizzle(single, { schema });
        await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
        // An embedded database reached through its server's socket keeps full precision, as PGlite does (halfvec.ts).
        if (options.socketPath) await keepFullPrecision(db as unknown as Database);
        else await convertVectorsToHalf(db as unknown as Database, { concurrently: true, ...migrateOptions });
        // What a bulk load stopped before its end put off (deferred-indexes.ts).
        await restoreDeferredIndexes(db as unknown as Database, { unlessLoading: true });
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    longStatements: async (work) => {
      const single = connect(1);
      try {
        return await work(drizzle(single, { schema }) as unknown as Database);
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    close: async () => {
      await Promise.all([pool.end(5), ...replicaPools.map((replica) => replica.end(5))]);
    },
  };
}
