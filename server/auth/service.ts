/**
 * API key lifecycle and verification. Expected outcomes (missing, unknown,
 * revoked, expired) come back as a coded result, never as exceptions; only
 * infrastructure failures throw.
 *
 * Verification is served from memory, within bounds:
 * - A key read from the database is trusted for `cacheTtlMs` from its read or
 *   from the last `syncCache()` that confirmed it, whichever is later.
 * - `syncCache()` (every second on the server) reads `keys_version`, which
 *   every issue, revocation and rotation changes in its own transaction: if it
 *   is unchanged, every held key is confirmed; if not, the held keys are read
 *   again in one query and the remembered unknown keys are forgotten. So a
 *   revocation, or a key issued after it was tried, takes effect within one
 *   sync on every server, and a key change costs one read, not one per key.
 * - A key the database did not know is remembered as unknown for a few
 *   seconds (MISS_TTL_MS): the same answer, without a read.
 * - Reads that find nothing are budgeted (`missesPerSecond`): past the budget,
 *   keys not held in memory are refused as unavailable (503) without a read,
 *   so a flood of made-up keys costs the database a bounded number of reads.
 *   Keys held in memory keep working meanwhile.
 */
import type { Database, DbOrTx } from "../db/client.js";
import { DatabaseShedError } from "../db/errors.js";
import { generateKey, generateKeyId, hashKey, looksLikeKey, type KeyEnvironment } from "./keys.js";
import {
  bumpKeysVersion,
  countUsableKeys,
  findKeyByHash,
  findKeyById,
  findKeysByHashes,
  insertKey,
  keysVersion,
  listKeys,
  retireKey,
  revokeKey,
  touchKeys,
  type KeyRecord,
} from "./store.js";
import { createDatabaseRateLimitStore, type RateLimitStore } from "./ratelimit.js";
import { LruCache } from "../cache.js";

/** `rateLimitPerMinute` is the key's own limit, or null for the server's default. */
export type Principal = { keyId: string; name: string; environment: KeyEnvironment; rateLimitPerMinute: number | null };

export type VerifyResult = { code: "VALID"; principal: Principal } | { code: "MISSING" | "MALFORMED" | "NOT_FOUND" | "REVOKED" | "EXPIRED" };

export type VerifyFailure = Exclude<VerifyResult, { code: "VALID" }>["code"];

/** What a client is told; unknown and malformed keys read the same, so probing learns nothing. */
export const VERIFY_FAILURE_MESSAGES: Record<VerifyFailure, string> = {
  MISSING: "An API key is required in the Authorization header.",
  MALFORMED: "The API key is not valid.",
  NOT_FOUND: "The API key is not valid.",
  REVOKED: "The API key has been revoked.",
  EXPIRED: "The API key has expired.",
};

export interface IssueInput {
  name: string;
  environment: KeyEnvironment;
  expiresInDays?: number;
  /** Cost units per minute for this key; absent means the server's default. */
  rateLimitPerMinute?: number;
}

export interface KeyService {
  verify(key: string | null): Promise<VerifyResult>;
  issue(input: IssueInput): Promise<{ key: string; record: KeyRecord }>;
  list(): Promise<KeyRecord[]>;
  /** Revokes by key id or by the key itself. */
  revoke(idOrKey: string): Promise<KeyRecord | null>;
  /** Issues a successor with the same name and environment; the old key keeps working for `graceDays`. */
  rotate(id: string, graceDays: number): Promise<{ key: string; record: KeyRecord } | null>;
  countUsable(): Promise<number>;
  /** Writes pending last-used times; called on a timer and at shutdown. */
  flushUsage(): Promise<void>;
  /**
   * Confirms the keys held in memory, or reads them again if any key changed
   * since the last call (any process's issue, revocation or rotation). The
   * server calls it every second.
   */
  syncCache(): Promise<void>;
  /** Rate-limit counters in the key database, shared by every server on it. */
  rateLimitStore: RateLimitStore;
}

export interface KeyServiceDeps {
  db: Database;
  clock: () => Date;
  /**
   * How long a key read from the database is trusted without being confirmed
   * by `syncCache()`: the bound on a revocation's delay when `keys_version`
   * cannot be read. 0: no caching at all (the CLI).
   */
  cacheTtlMs: number;
  /** Keys held in memory; default 10,000. */
  cacheSize?: number;
  /** Reads that find no key, allowed per second (bursts of as many); default DEFAULT_MISSES_PER_SECOND. */
  missesPerSecond?: number;
  /** Random bytes for new keys; tests pass their own. */
  random?: (bytes: Uint8Array) => Uint8Array;
}

const DAY_MS = 86_400_000;
/** How long an unknown key is answered from memory: short, as a bound in case syncCache does not run. */
export const MISS_TTL_MS = 5_000;
const MISS_CACHE_SIZE = 10_000;
/**
 * Well above what real clients cause (a stale key is found, revoked, and cached;
 * an unknown one is remembered for MISS_TTL_MS), and at ~1 ms a read, a small
 * share of the database.
 */
export const DEFAULT_MISSES_PER_SECOND = 100;

/** A token bucket: `perSecond` tokens a second, holding at most as many. */
function tokenBucket(perSecond: number, now: number) {
  let tokens = perSecond;
  let at = now;
  return {
    take(time: number): boolean {
      tokens = Math.min(perSecond, tokens + ((time - at) * perSecond) / 1000);
      at = time;
      if (tokens < 1) return false;
      tokens--;
      return true;
    },
    giveBack(): void {
      tokens = Math.min(perSecond, tokens + 1);
    },
  };
}

export function createKeyService(deps: KeyServiceDeps): KeyService {
  const { db, clock, cacheTtlMs } = deps;
  const now = () => clock().getTime();
  /** Keys read from the database, by hash, with when they were read. */
  const known = new LruCache<string, { record: KeyRecord; readAt: number }>(cacheTtlMs > 0 ? (deps.cacheSize ?? 10_000) : 0);
  /** Hashes the database did not know. */
  const unknown = new LruCache<string, true>(MISS_CACHE_SIZE, { ttlMs: Math.min(MISS_TTL_MS, cacheTtlMs), now });
  const misses = tokenBucket(deps.missesPerSecond ?? DEFAULT_MISSES_PER_SECOND, now());
  const usedSinceFlush = new Set<string>();
  /** The `keys_version` the held keys agree with, and when that was last read. */
  let version: string | null | undefined;
  let confirmedAt = Number.NEGATIVE_INFINITY;
  // Bumped when held keys are dropped: a read that started before is not kept after.
  let generation = 0;
  let syncing: Promise<void> | null = null;

  // One database read per key at a time: when a busy key's entry expires, its concurrent requests share it.
  const reading = new Map<string, Promise<KeyRecord | null>>();

  async function lookup(hash: string): Promise<KeyRecord | null> {
    const time = now();
    const held = known.get(hash);
    if (held && time - Math.max(held.readAt, confirmedAt) < cacheTtlMs) return held.record;
    if (unknown.get(hash)) return null;
    let read = reading.get(hash);
    if (!read) {
      if (!misses.take(time)) throw new DatabaseShedError("too many unknown API keys this second; not reading the key table for this one");
      const readingIn = generation;
      read = findKeyByHash(db, hash).then((record) => {
        if (record) misses.giveBack();
        if (readingIn === generation) {
          if (record) known.set(hash, { record, readAt: time });
          else unknown.set(hash, true);
        }
        return record;
      });
      reading.set(hash, read);
      void read.finally(() => reading.delete(hash)).catch(() => undefined);
    }
    return read;
  }

  /** After a change made here: nothing held may be kept (the next syncCache reads what is current). */
  function forget(): void {
    generation++;
    known.clear();
    unknown.clear();
  }

  async function sync(): Promise<void> {
    const time = now();
    const current = await keysVersion(db);
    if (current !== version) {
      const hashes = [...known.keys()];
      forget();
      const refreshingIn = generation;
      const rows = await findKeysByHashes(db, hashes);
      if (refreshingIn !== generation) return; // changed here meanwhile: the next sync reads again
      for (const { hash, record } of rows) known.set(hash, { record, readAt: time });
      version = current;
    }
    confirmedAt = time;
  }

  async function issue(input: IssueInput, tx: DbOrTx) {
    const created = generateKey(input.environment, deps.random);
    const issuedAt = clock();
    const record = await insertKey(tx, {
      id: generateKeyId(deps.random),
      name: input.name,
      environment: input.environment,
      hash: created.hash,
      start: created.start,
      createdAt: issuedAt,
      expiresAt: input.expiresInDays === undefined ? null : new Date(issuedAt.getTime() + input.expiresInDays * DAY_MS),
      rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    });
    await bumpKeysVersion(tx);
    return { key: created.key, record };
  }

  return {
    async verify(key) {
      if (key === null) return { code: "MISSING" };
      if (!looksLikeKey(key)) return { code: "MALFORMED" };
      const record = await lookup(hashKey(key));
      if (!record) return { code: "NOT_FOUND" };
      const now = clock();
      if (record.revokedAt && record.revokedAt <= now) return { code: "REVOKED" };
      if (record.expiresAt && record.expiresAt <= now) return { code: "EXPIRED" };
      usedSinceFlush.add(record.id);
      return {
        code: "VALID",
        principal: { keyId: record.id, name: record.name, environment: record.environment, rateLimitPerMinute: record.rateLimitPerMinute },
      };
    },
    async issue(input) {
      const issued = await db.transaction((tx) => issue(input, tx));
      forget();
      return issued;
    },
    list: () => listKeys(db),
    async revoke(idOrKey) {
      const id = looksLikeKey(idOrKey) ? (await findKeyByHash(db, hashKey(idOrKey)))?.id : idOrKey;
      if (!id) return null;
      const revoked = await db.transaction(async (tx) => {
        const row = await revokeKey(tx, id, clock());
        if (row) await bumpKeysVersion(tx);
        return row;
      });
      forget();
      return revoked;
    },
    async rotate(id, graceDays) {
      // One transaction: the successor's issue changes keys_version for the old key's retirement too.
      const successor = await db.transaction(async (tx) => {
        const old = await findKeyById(tx, id);
        if (!old) return null;
        const next = await issue(
          {
            name: old.name,
            environment: old.environment,
            ...(old.rateLimitPerMinute === null ? {} : { rateLimitPerMinute: old.rateLimitPerMinute }),
          },
          tx,
        );
        await retireKey(tx, id, new Date(clock().getTime() + graceDays * DAY_MS), next.record.id);
        return next;
      });
      forget();
      return successor;
    },
    countUsable: () => countUsableKeys(db, clock()),
    async flushUsage() {
      const ids = [...usedSinceFlush];
      usedSinceFlush.clear();
      await touchKeys(db, ids, clock());
    },
    syncCache() {
      syncing ??= sync().finally(() => {
        syncing = null;
      });
      return syncing;
    },
    rateLimitStore: createDatabaseRateLimitStore(db),
  };
}
