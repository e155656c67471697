/**
 * The floors of bench:million: the SQL a service call issued, captured as postgres.js sent it, then replayed straight
 * to the database on plain connections of its own (no drizzle, no service code, no encoder, no HTTP): what the same
 * queries cost the database alone.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Database } from "../server/db/client.js";
import type { DatabaseHandle } from "../server/db/handle.js";
import * as schema from "../server/db/schema.js";

export interface Statement {
  query: string;
  params: unknown[];
}

/** A database handle on one connection that records every statement sent while `recording` is on. */
export function capturingHandle(url: string): DatabaseHandle & { record<T>(call: () => Promise<T>): Promise<{ value: T; statements: Statement[] }> } {
  let sink: Statement[] | null = null;
  const client = postgres(url, {
    max: 1,
    onnotice: () => undefined,
    debug: (_connection, query, params) => sink?.push({ query, params: [...(params as unknown[])] }),
  });
  const db = drizzle(client, { schema }) as unknown as Database;
  return {
    db,
    read: db,
    reader: () => db,
    kind: "postgres",
    vectorSettingsInSession: false,
    migrate: async () => undefined,
    longStatements: (work) => work(db),
    close: () => client.end({ timeout: 5 }),
    async record(call) {
      const statements: Statement[] = [];
      sink = statements;
      try {
        return { value: await call(), statements };
      } finally {
        sink = null;
      }
    },
  };
}

/** A plain connection that replays captured statements in order; answers the milliseconds the replay took. */
export function replayer(url: string) {
  const client = postgres(url, { max: 1, onnotice: () => undefined });
  return {
    async replay(statements: readonly Statement[]): Promise<number> {
      const started = performance.now();
      for (const { query, params } of statements) await client.unsafe(query, params as postgres.ParameterOrJSON<never>[]);
      return performance.now() - started;
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** `connections` plain connections each replaying the calls in turn for `seconds`: calls answered a second. */
export async function replayConcurrently(
  url: string,
  calls: readonly (readonly Statement[])[],
  connections: number,
  seconds: number,
): Promise<number> {
  const clients = Array.from({ length: connections }, () => replayer(url));
  const until = performance.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        await client.replay(calls[next++ % calls.length]!);
        done++;
      }
    }),
  );
  await Promise.all(clients.map((client) => client.close()));
  return done / seconds;
}
