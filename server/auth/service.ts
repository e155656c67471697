/**
 * API key lifecycle and verification. Expected outcomes (missing, unknown,
 * revoked, expired) come back as a coded result, never as exceptions; only
 * infrastructure failures throw.
 *
 * Verification reads no key from the database per request: every key's hash is
 * held in memory (the key table is small: one row per issued key), so a valid
 * key and a made-up one are each answered from a map, and a flood of made-up
 * keys costs the database nothing that could crowd out a valid key (issue 47).
 * - `syncCache()` (every second on the server) reads `keys_version`, which
 *   every issue, revocation and rotation changes in its own transaction: if it
 *   is unchanged, the table held is confirmed; if not, the whole table is read
 *   again in one query. So a revocation takes effect within one sync on every
 *   server, and a key change costs one read, not one per key.
 * - The table is trusted for `cacheTtlMs` from its last confirmation; past
 *   that (syncs failing), the next verify reads it again, or fails as the
 *   database does (503).
 * - A key the table does not hold may have just been issued by another
 *   process: such a miss waits for the next check of `keys_version`, and
 *   misses share checks made at most every MISS_CHECK_INTERVAL_MS, so made-up
 *   keys cost at most ten small reads a second, whatever their number, and
 *   never a valid key's 503 (while the database does not answer, an unknown
 *   key cannot be checked: 503 for it, as before; held keys still work).
 */
import type { Database, DbOrTx } from "../db/client.js";
import { DatabaseShedError } from "../db/errors.js";
import { generateKey, generateKeyId, hashKey, looksLikeKey, type KeyEnvironment } from "./keys.js";
import {
  bumpKeysVersion,
  countUsableKeys,
  findKeyByHash,
  findKeyById,
  allKeys,
  insertKey,
  keysVersion,
  listKeys,
  retireKey,
  revokeKey,
  touchKeys,
  type KeyRecord,
} from "./store.js";
import { createDatabaseRateLimitStore, type RateLimitStore } from "./ratelimit.js";

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
   * Confirms the key table held in memory, or reads it again if any key
   * changed since the last call (any process's issue, revocation or rotation).
   * The server calls it every second.
   */
  syncCache(): Promise<void>;
  /** Rate-limit counters in the key database, shared by every server on it. */
  rateLimitStore: RateLimitStore;
}

export interface KeyServiceDeps {
  db: Database;
  clock: () => Date;
  /**
   * How long the key table held in memory is trusted without being confirmed
   * by `syncCache()`: the bound on a revocation's delay when `keys_version`
   * cannot be read. 0: nothing is held, each verify reads its key (the CLI).
   */
  cacheTtlMs: number;
  /** Random bytes for new keys; tests pass their own. */
  random?: (bytes: Uint8Array) => Uint8Array;
}

const DAY_MS = 86_400_000;
/**
 * The least time between two checks of `keys_version` made for keys the table does not hold. A miss waits for the
 * next check (at most this long, plus the read), so a key just issued by the CLI or another server works at its first
 * try, while a flood of made-up keys, however large, costs the database at most 1000 / this one-row reads a second.
 */
export const MISS_CHECK_INTERVAL_MS = 100;

/** Every key, by hash, as of one `keys_version`. */
type KeyTable = ReadonlyMap<string, KeyRecord>;

export function createKeyService(deps: KeyServiceDeps): KeyService {
  const { db, clock, cacheTtlMs } = deps;
  const now = () => clock().getTime();
  /** The whole key table, or null before it is read (and after a change made here, until it is read again). */
  let table: KeyTable | null = null;
  /** The check that misses arriving now wait for, and when the last one began (real time: it bounds reads, not key lifetimes). */
  let missCheck: Promise<unknown> | null = null;
  let missCheckAt = Number.NEGATIVE_INFINITY;
  const usedSinceFlush = new Set<string>();
  /** The `keys_version` the table agrees with, and when that was last read. */
  let version: string | null | undefined;
  let confirmedAt = Number.NEGATIVE_INFINITY;
  // Bumped when the table is dropped: a read that started before is not kept after.
  let generation = 0;
  let syncing: Promise<void> | null = null;

  const trusted = (time: number): KeyTable | null => (table && time - confirmedAt < cacheTtlMs ? table : null);

  /** The table, trusted: read again when it is missing or unconfirmed for the TTL (at most twice, if a change here drops a read in flight). */
  async function current(): Promise<KeyTable> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const held = trusted(now());
      if (held) return held;
      await syncCache();
    }
    const held = trusted(now());
    if (!held) throw new DatabaseShedError("the key table changed during every read of it; not verifying this key now");
    return held;
  }

  /** Resolves once a sync that began after this call has ended: to null, or to why it failed; misses share it. */
  function checkForMisses(): Promise<unknown> {
    missCheck ??= (async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, missCheckAt + MISS_CHECK_INTERVAL_MS - performance.now())));
      missCheck = null;
      missCheckAt = performance.now();
      await syncing?.catch(() => undefined); // began before these misses: it may not have seen their keys
      return syncCache().then(
        () => null,
        (error: unknown) => error,
      );
    })();
    return missCheck;
  }

  async function lookup(hash: string): Promise<KeyRecord | null> {
    if (cacheTtlMs === 0) return findKeyByHash(db, hash);
    const record = (await current()).get(hash);
    if (record) return record;
    // Not held: perhaps issued elsewhere since the last sync. If that cannot be checked, the key cannot be: 503, not 401.
    const failed = await checkForMisses();
    const found = trusted(now())?.get(hash);
    if (found) return found;
    if (failed) throw failed;
    return null;
  }

  /** After a change made here: the table held may not be kept (the next verify reads what is current). */
  function forget(): void {
    generation++;
    table = null;
  }

  async function sync(): Promise<void> {
    const time = now();
    const readingIn = generation;
    const latest = await keysVersion(db);
    if (latest !== version || table === null) {
      const rows = await allKeys(db);
      if (readingIn !== generation) return; // changed here meanwhile: the next sync reads again
      table = new Map(rows.map(({ hash, record }) => [hash, record]));
      version = latest;
    }
    if (readingIn === generation) confirmedAt = time;
  }

  function syncCache(): Promise<void> {
    syncing ??= sync().finally(() => {
      syncing = null;
    });
    return syncing;
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
    syncCache,
    rateLimitStore: createDatabaseRateLimitStore(db),
  };
}
