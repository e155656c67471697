/** The queries matching runs: candidates through the indexes (match keys, vectors), groups, overrides. */
import { and, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client.js";
import { matchOverrides, products, searchVocabulary } from "../db/schema.js";
import type { MatchInput } from "./keys.js";

export interface MatchRow extends Omit<MatchInput, "vector"> {
  /** No vector crosses the wire (a server's socket bridge and the pool carry them slowly): candidates carry their similarity. */
  vector: null;
  /** The sentence encoder's similarity to the record matched (candidates only); null when either has no vector. */
  similarity: number | null;
  hasVector: boolean;
  groupId: string;
  matchScore: number | null;
  contentHash: string;
  /** The operator's override of this record's matching, if any. */
  override: "pin" | "split" | null;
  partnerId: string | null;
}

const columns = {
  id: products.id,
  merchant: products.brandHost,
  name: products.name,
  brand: products.brand,
  gtin14: products.gtin14,
  mpn: sql<string | null>`${products.identifiers}->>'mpn'`,
  vector: sql<null>`null`,
  similarity: sql<number | null>`null::float8`,
  hasVector: sql<boolean>`${products.embedding} is not null`,
  groupId: products.groupId,
  matchScore: products.matchScore,
  contentHash: products.contentHash,
  override: sql<"pin" | "split" | null>`(select o.kind from ${matchOverrides} o where o.product_id = ${products.id})`,
  partnerId: sql<string | null>`(select o.partner_id from ${matchOverrides} o where o.product_id = ${products.id})`,
};

const live = isNull(products.goneAt);
const notSplit = sql`not exists (select 1 from ${matchOverrides} o where o.product_id = ${products.id} and o.kind = 'split')`;

export function readForMatching(db: DbOrTx, ids: readonly string[]): Promise<MatchRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select(columns)
    .from(products)
    .where(and(inArray(products.id, [...ids]), live));
}

/** The similarity of each row's vector to the record `self`'s, computed where the vectors are. */
function similarityTo(self: string) {
  return sql<number | null>`1 - (${products.embedding} <=> (select s.embedding from ${products} s where s.id = ${self}))`;
}

/** Other merchants' records that share a lookup key with this one. */
export function candidatesByKeys(db: DbOrTx, self: string, keys: readonly string[], merchant: string, limit: number): Promise<MatchRow[]> {
  if (keys.length === 0) return Promise.resolve([]);
  const array = sql`array[${sql.join(
    keys.map((key) => sql`${key}`),
    sql`, `,
  )}]::text[]`;
  return db
    .select({ ...columns, similarity: similarityTo(self) })
    .from(products)
    .where(and(sql`${products.matchKeys} && ${array}`, ne(products.brandHost, merchant), live, notSplit))
    .limit(limit);
}

/** Other merchants' records whose vectors are nearest to the record `self`'s (the HNSW index). */
export function candidatesByVector(db: DbOrTx, self: string, merchant: string, limit: number): Promise<MatchRow[]> {
  if (limit === 0) return Promise.resolve([]);
  return db
    .select({ ...columns, similarity: similarityTo(self) })
    .from(products)
    .where(and(ne(products.brandHost, merchant), live, notSplit, sql`${products.embedding} is not null`))
    .orderBy(sql`${products.embedding} <=> (select s.embedding from ${products} s where s.id = ${self})`)
    .limit(limit);
}

export function groupMembers(
  db: DbOrTx,
  groupIds: readonly string[],
): Promise<{ id: string; merchant: string; groupId: string; matchScore: number | null }[]> {
  if (groupIds.length === 0) return Promise.resolve([]);
  return db
    .select({ id: products.id, merchant: products.brandHost, groupId: products.groupId, matchScore: products.matchScore })
    .from(products)
    .where(and(inArray(products.groupId, [...groupIds]), live));
}

export async function setGroup(db: DbOrTx, id: string, groupId: string, score: number | null): Promise<void> {
  await db.update(products).set({ groupId, matchScore: score }).where(eq(products.id, id));
}

export function readOverrides(db: DbOrTx, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .select({ productId: matchOverrides.productId, kind: matchOverrides.kind, partnerId: matchOverrides.partnerId })
    .from(matchOverrides)
    .where(inArray(matchOverrides.productId, [...ids]));
}

export async function writeOverride(db: DbOrTx, productId: string, kind: "pin" | "split", partnerId: string | null): Promise<void> {
  await db
    .insert(matchOverrides)
    .values({ productId, kind, partnerId })
    .onConflictDoUpdate({ target: matchOverrides.productId, set: { kind, partnerId, createdAt: sql`now()` } });
}

/** How many products hold each word (the search vocabulary's counts), and how many products there are. */
export async function documentFrequencies(db: DbOrTx, words: readonly string[]): Promise<{ total: number; df: Map<string, number> }> {
  const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(products).where(live);
  const rows =
    words.length === 0
      ? []
      : await db
          .select({ word: searchVocabulary.word, ndoc: searchVocabulary.ndoc })
          .from(searchVocabulary)
          .where(inArray(searchVocabulary.word, [...new Set(words)]));
  return { total: count?.n ?? 0, df: new Map(rows.map((row) => [row.word, row.ndoc])) };
}

/** Serialises matching across processes: two imports deciding groups at once could both claim one slot. */
export async function lockMatching(db: DbOrTx): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtext('catalog-matching'))`);
}
