/**
 * API key lifecycle and verification. Expected outcomes (missing, unknown,
 * revoked, expired) come back as a coded result, never as exceptions; only
 * infrastructure failures throw.
 */
import type { Database, DbOrTx } from "../db/client.js";
import { generateKey, generateKeyId, hashKey, looksLikeKey, type KeyEnvironment } from "./keys.js";
import { countUsableKeys, findKeyByHash, findKeyById, insertKey, listKeys, retireKey, revokeKey, touchKeys, type KeyRecord } from "./store.js";
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
  /** Rate-limit counters in the key database, shared by every server on it. */
  rateLimitStore: RateLimitStore;
}

export interface KeyServiceDeps {
  db: Database;
  clock: () => Date;
  /** How long a looked-up key row is reused; bounds how late a revocation takes effect. */
  cacheTtlMs: number;
  cacheSize?: number;
}

const DAY_MS = 86_400_000;

export function createKeyService(deps: KeyServiceDeps): KeyService {
  const { db, clock, cacheTtlMs } = deps;
  const cache = new LruCache<string, KeyRecord>(deps.cacheSize ?? 10_000, { ttlMs: cacheTtlMs, now: () => clock().getTime() });
  const usedSinceFlush = new Set<string>();

  // One database read per key at a time: when a busy key's entry expires, its concurrent requests share it.
  const reading = new Map<string, Promise<KeyRecord | null>>();

  async function lookup(hash: string): Promise<KeyRecord | null> {
    const cached = cache.get(hash);
    if (cached) return cached;
    let read = reading.get(hash);
    if (!read) {
      read = findKeyByHash(db, hash).then((record) => {
        if (record) cache.set(hash, record);
        return record;
      });
      reading.set(hash, read);
      void read.finally(() => reading.delete(hash)).catch(() => undefined);
    }
    return read;
  }

  async function issue(input: IssueInput, tx: DbOrTx = db) {
    const created = generateKey(input.environment);
    const now = clock();
    const record = await insertKey(tx, {
      id: generateKeyId(),
      name: input.name,
      environment: input.environment,
      hash: created.hash,
      start: created.start,
      createdAt: now,
      expiresAt: input.expiresInDays === undefined ? null : new Date(now.getTime() + input.expiresInDays * DAY_MS),
      rateLimitPerMinute: input.rateLimitPerMinute ?? null,
    });
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
    issue: (input) => issue(input),
    list: () => listKeys(db),
    async revoke(idOrKey) {
      const id = looksLikeKey(idOrKey) ? (await findKeyByHash(db, hashKey(idOrKey)))?.id : idOrKey;
      if (!id) return null;
      cache.clear();
      return revokeKey(db, id, clock());
    },
    async rotate(id, graceDays) {
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
      cache.clear();
      return successor;
    },
    countUsable: () => countUsableKeys(db, clock()),
    async flushUsage() {
      const ids = [...usedSinceFlush];
      usedSinceFlush.clear();
      await touchKeys(db, ids, clock());
    },
    rateLimitStore: createDatabaseRateLimitStore(db),
  };
}
