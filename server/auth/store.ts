/** API key rows: the only queries that touch `api_keys`, and the version that tells servers they changed. */
import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client.js";
import { apiKeys, type ApiKeyRow } from "../db/schema.js";
import { getMeta, setMeta } from "../catalog/repository.js";

export type KeyRecord = Omit<ApiKeyRow, "hash">;

const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  environment: apiKeys.environment,
  start: apiKeys.start,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  expiresAt: apiKeys.expiresAt,
  revokedAt: apiKeys.revokedAt,
  replacedBy: apiKeys.replacedBy,
  rateLimitPerMinute: apiKeys.rateLimitPerMinute,
};

export async function insertKey(db: DbOrTx, row: typeof apiKeys.$inferInsert): Promise<KeyRecord> {
  const [inserted] = await db.insert(apiKeys).values(row).returning(publicColumns);
  if (!inserted) throw new Error("insert into api_keys returned no row");
  return inserted;
}

export async function findKeyByHash(db: DbOrTx, hash: string): Promise<KeyRecord | null> {
  const [row] = await db.select(publicColumns).from(apiKeys).where(eq(apiKeys.hash, hash)).limit(1);
  return row ?? null;
}

export async function findKeyById(db: DbOrTx, id: string): Promise<KeyRecord | null> {
  const [row] = await db.select(publicColumns).from(apiKeys).where(eq(apiKeys.id, id)).limit(1);
  return row ?? null;
}

export async function listKeys(db: DbOrTx): Promise<KeyRecord[]> {
  return db.select(publicColumns).from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

export async function countUsableKeys(db: DbOrTx, now: Date): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), sql`${apiKeys.expiresAt} > ${now.toISOString()}`)));
  return row?.n ?? 0;
}

export async function revokeKey(db: DbOrTx, id: string, at: Date): Promise<KeyRecord | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, ${at.toISOString()}::timestamptz)` })
    .where(eq(apiKeys.id, id))
    .returning(publicColumns);
  return row ?? null;
}

/** Ends the old key's life at `expiresAt` (never extends it) and records its successor. */
export async function retireKey(db: DbOrTx, id: string, expiresAt: Date, replacedBy: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({
      expiresAt: sql`least(coalesce(${apiKeys.expiresAt}, 'infinity'::timestamptz), ${expiresAt.toISOString()}::timestamptz)`,
      replacedBy,
    })
    .where(eq(apiKeys.id, id));
}

export async function touchKeys(db: DbOrTx, ids: readonly string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(inArray(apiKeys.id, [...ids]));
}

/** Every key with its hash: the table a server holds in memory to verify keys without a read each (service.ts). */
export async function allKeys(db: DbOrTx): Promise<{ hash: string; record: KeyRecord }[]> {
  const rows = await db.select({ ...publicColumns, hash: apiKeys.hash }).from(apiKeys);
  return rows.map(({ hash, ...record }) => ({ hash, record }));
}

/**
 * Changed in the transaction of every issue, revocation and rotation, so
 * servers (in this process or not) learn that the keys they hold may be stale.
 */
const KEYS_VERSION = "keys_version";

export async function bumpKeysVersion(db: DbOrTx): Promise<void> {
  await setMeta(db, KEYS_VERSION, randomUUID());
}

export async function keysVersion(db: DbOrTx): Promise<string | null> {
  return getMeta(db, KEYS_VERSION);
}
