/**
 * Per-key rate limits: fixed one-minute windows counted in cost units
 * (each operation declares its cost; a lookup costs 1). The counters sit behind a small store
 * interface: in the database by default, so every server on one database
 * shares a key's limit; in memory for a single instance that wants no write
 * per request.
 */
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client.js";
import { rateLimits } from "../db/schema.js";

const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitStore {
  /**
   * Adds `cost` to the key's counter for the window starting at `windowStart`
   * (a counter from an older window starts over) and returns the counter as
   * it now stands. A store that already counts a later window (another
   * server's clock is ahead) adds to that one and says so in `windowStart`.
   */
  consume(keyId: string, windowStart: number, cost: number): Promise<{ used: number; windowStart: number }>;
}

/** Counters in this process only: right for one instance, wrong behind a load balancer. */
export function createMemoryRateLimitStore(): RateLimitStore {
  const counters = new Map<string, { windowStart: number; used: number }>();
  let newestWindow = 0;
  return {
    async consume(keyId, windowStart, cost) {
      if (windowStart > newestWindow) {
        // A new window: forget every counter from older ones, so the map never outgrows the active keys.
        newestWindow = windowStart;
        for (const [id, counter] of counters) if (counter.windowStart < windowStart) counters.delete(id);
      }
      const counter = counters.get(keyId);
      if (!counter || counter.windowStart < windowStart) {
        counters.set(keyId, { windowStart, used: cost });
        return { used: cost, windowStart };
      }
      counter.used += cost;
      return { used: counter.used, windowStart: counter.windowStart };
    },
  };
}

/**
 * Counters in the `rate_limits` table: one upsert per request, atomic under
 * concurrency (the row lock serialises writers), on PGlite and Postgres alike.
 */
export function createDatabaseRateLimitStore(db: DbOrTx): RateLimitStore {
  // Built once: the hot path only binds three parameters.
  const upsert = db
    .insert(rateLimits)
    .values({ keyId: sql.placeholder("keyId"), windowStart: sql.placeholder("windowStart"), used: sql.placeholder("cost") })
    .onConflictDoUpdate({
      target: rateLimits.keyId,
      set: {
        used: sql`case when excluded.window_start > ${rateLimits.windowStart} then excluded.used else ${rateLimits.used} + excluded.used end`,
        windowStart: sql`greatest(${rateLimits.windowStart}, excluded.window_start)`,
      },
    })
    .returning({ used: rateLimits.used, windowStart: rateLimits.windowStart })
    .prepare("rate_limit_consume");
  return {
    async consume(keyId, windowStart, cost) {
      const [row] = await upsert.execute({ keyId, windowStart, cost });
      if (!row) throw new Error("upsert into rate_limits returned no row");
      return row;
    },
  };
}

/**
 * A shared store written at most once per `syncMs` per key instead of once
 * per request: this process counts locally and adds what it counted to the
 * shared counter when the interval has passed, learning the other servers'
 * use in the same round trip, behind the answers. A key's first request in a window always asks
 * the shared store, so a key spent elsewhere is refused at once. The price:
 * behind N servers a key can overrun its limit by what it spends on the
 * other N-1 within one interval (and use counted in the last interval before
 * a key goes quiet reaches the others with its next request).
 */
export function createBatchedRateLimitStore(shared: RateLimitStore, options: { syncMs: number; now?: () => number }): RateLimitStore {
  const now = options.now ?? Date.now;
  interface KeyState {
    windowStart: number;
    /** The shared count as of the last sync (this server's synced use included). */
    shared: number;
    /** Counted here, on its way to the shared counter. */
    sending: number;
    /** Counted here since. */
    pending: number;
    syncedAt: number;
    /** The sync in flight; requests that arrive before the window's first one answered wait for it. */
    syncing: Promise<void> | null;
    synced: boolean;
  }
  const keys = new Map<string, KeyState>();
  let newestWindow = 0;

  async function sync(keyId: string, state: KeyState): Promise<void> {
    state.sending = state.pending;
    state.pending = 0;
    state.syncedAt = now();
    try {
      const counted = await shared.consume(keyId, state.windowStart, state.sending);
      state.windowStart = counted.windowStart;
      state.shared = counted.used;
      state.synced = true;
    } catch (error) {
      state.pending += state.sending; // counted again at the next sync
      throw error;
    } finally {
      state.sending = 0;
      state.syncing = null;
    }
  }

  return {
    async consume(keyId, windowStart, cost) {
      if (windowStart > newestWindow) {
        newestWindow = windowStart;
        for (const [id, old] of keys) if (old.windowStart < windowStart) keys.delete(id);
      }
      let state = keys.get(keyId);
      if (!state || state.windowStart < windowStart) {
        state = { windowStart, shared: 0, sending: 0, pending: 0, syncedAt: 0, syncing: null, synced: false };
        keys.set(keyId, state);
      }
      state.pending += cost;
      if (!state.syncing && now() - state.syncedAt >= options.syncMs) {
        state.syncing = sync(keyId, state);
        // Only a key's first request in a window waits for the shared count; later syncs run behind
        // the answers, so a slow database does not hold up requests (a failed one is retried next time).
        if (state.synced) state.syncing.catch(() => undefined);
        else await state.syncing;
      } else if (state.syncing && !state.synced) {
        await state.syncing.catch(() => undefined);
      }
      return { used: state.shared + state.sending + state.pending, windowStart: state.windowStart };
    },
  };
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The quota per window, in cost units. */
  limit: number;
  /** Units left in this window (never below 0). */
  remaining: number;
  /** Whole seconds until the window ends (at least 1). */
  resetSeconds: number;
  windowSeconds: number;
}

/** Charges `cost` to a key and says whether the request fits its limit. */
export async function consumeRateLimit(
  store: RateLimitStore,
  input: { keyId: string; limit: number; cost: number; now: number },
): Promise<RateLimitDecision> {
  const windowStart = input.now - (input.now % RATE_LIMIT_WINDOW_MS);
  const counted = await store.consume(input.keyId, windowStart, input.cost);
  const windowEnd = Math.max(windowStart, counted.windowStart) + RATE_LIMIT_WINDOW_MS;
  return {
    allowed: counted.used <= input.limit,
    limit: input.limit,
    remaining: Math.max(0, input.limit - counted.used),
    resetSeconds: Math.max(1, Math.ceil((windowEnd - input.now) / 1000)),
    windowSeconds: RATE_LIMIT_WINDOW_MS / 1000,
  };
}
