/** The queries matching runs: candidates through the indexes (match keys, vectors), groups, overrides. */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
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

/** A record whose candidates are sought: its merchant, lookup keys and whether it has a vector. */
export interface CandidateQuery {
  id: string;
  merchant: string;
  keys: readonly string[];
  hasVector: boolean;
}

/** A candidate of a record: another merchant's record, with the encoder's similarity of the two (null without vectors). */
export interface CandidateHit {
  self: string;
  id: string;
  similarity: number | null;
}

const splitOut = (alias: string) => sql.raw(`not exists (select 1 from match_overrides o where o.product_id = ${alias}.id and o.kind = 'split')`);

/**
 * The candidates of a batch of records, in two queries for all of them (a lateral join each): the records of other
 * merchants sharing a lookup key with one (at most `perKey`), and its `neighbours` nearest vectors at other merchants
 * (the HNSW index). Similarities are computed where the vectors are; no vector crosses the wire.
 */
export async function findCandidates(db: DbOrTx, records: readonly CandidateQuery[], perKey: number, neighbours: number): Promise<CandidateHit[]> {
  const keyed = records.filter((record) => record.keys.length > 0);
  const byKeys =
    keyed.length === 0
      ? []
      : await db.select({ self: sql<string>`r.self`, id: sql<string>`c.id`, similarity: sql<number | null>`c.similarity` }).from(
          sql`(values ${sql.join(
            keyed.map(
              (record) =>
                sql`(${record.id}, array[${sql.join(
                  record.keys.map((key) => sql`${key}`),
                  sql`, `,
                )}]::text[], ${record.merchant})`,
            ),
            sql`, `,
          )}) as r(self, keys, merchant)
            cross join lateral (
              select p.id, 1 - (p.embedding <=> (select s.embedding from ${products} s where s.id = r.self)) as similarity
              from ${products} p
              where p.match_keys && r.keys and p.brand_host <> r.merchant and p.gone_at is null and ${splitOut("p")}
              limit ${perKey}
            ) c`,
        );
  const vectored = records.filter((record) => record.hasVector).map((record) => record.id);
  const byVector =
    vectored.length === 0 || neighbours === 0
      ? []
      : await db
          .select({ self: sql<string>`s.id`, id: sql<string>`c.id`, similarity: sql<number | null>`c.similarity` })
          .from(
            sql`${products} s
            cross join lateral (
              select p.id, 1 - (p.embedding <=> s.embedding) as similarity
              from ${products} p
              where p.brand_host <> s.brand_host and p.gone_at is null and p.embedding is not null and ${splitOut("p")}
              order by p.embedding <=> s.embedding
              limit ${neighbours}
            ) c`,
          )
          .where(
            sql`s.id in (${sql.join(
              vectored.map((id) => sql`${id}`),
              sql`, `,
            )}) and s.embedding is not null`,
          );
  return [...byKeys, ...byVector];
}

/** The group each record is in now (those still there and not split out): read under the matching lock. */
export async function currentGroups(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: products.id, groupId: products.groupId })
    .from(products)
    .where(and(inArray(products.id, [...ids]), live, notSplit));
  return new Map(rows.map((row) => [row.id, row.groupId]));
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
