/**
 * Converts a catalog's vectors from `vector` to `halfvec` in place, without a table rewrite under an exclusive lock
 * (docs/decisions/0017-halfvec.md). Migration 0018 adds `embedding_half` and a trigger that keeps it in step with
 * every write of `embedding`; this fills it for the rows stored before, a batch of ids per transaction, its place kept
 * in `catalog_meta` so an interrupted run resumes there; builds its HNSW index (CONCURRENTLY on Postgres: writes go
 * on meanwhile); then swaps the columns in one short transaction. Every step finds its state in the database, so a
 * run stopped anywhere (killed, failed) is finished by the next, and a catalog converted already costs one read.
 * `db` is one session (the migrator's connection): the advisory lock that keeps two runs apart is a session's.
 */
import { sql } from "drizzle-orm";
import type { Database, DbOrTx } from "./client.js";
import { catalogMeta, EMBEDDING_DIMENSIONS } from "./schema.js";

/** Where the fill has got to: the last id of the last committed batch. Removed by the swap. */
const CURSOR_KEY = "halfvec_fill_after";
const HALF_INDEX = "products_embedding_half_idx";

export interface HalfvecOptions {
  /** Postgres: build the index CONCURRENTLY (outside a transaction), so writes are not held for the build. */
  concurrently: boolean;
  batchSize?: number;
  /** Rows gone through so far of the table's; said after each batch. Throwing stops the run where it is (resumable). */
  onProgress?: (done: number, total: number) => void;
  /** The fill is done; the index of `rows` vectors is being built. */
  onIndexing?: (rows: number) => void;
}

/** What the products table holds now: `vector` (not converted, or under way), `halfvec` (done). */
async function embeddingType(db: DbOrTx): Promise<string | undefined> {
  const [row] = await db
    .select({ type: sql<string>`format_type(atttypid, atttypmod)` })
    .from(sql`pg_attribute`)
    .where(sql`attrelid = 'products'::regclass and attname = 'embedding' and not attisdropped`);
  return row?.type;
}

async function readCursor(db: Database): Promise<string> {
  const [row] = await db.select({ value: catalogMeta.value }).from(catalogMeta).where(sql`${catalogMeta.key} = ${CURSOR_KEY}`);
  return row?.value ?? "";
}

/** Copies `embedding` into `embedding_half` for the rows past the cursor, a batch of ids per transaction. */
async function fill(db: Database, options: HalfvecOptions): Promise<number> {
  const batchSize = options.batchSize ?? 1000;
  let after = await readCursor(db);
  const [counts] = await db
    .select({
      total: sql<number>`count(*)::int`,
      done: sql<number>`(count(*) filter (where id <= ${after}))::int`,
    })
    .from(sql`products`);
  let done = counts?.done ?? 0;
  const total = counts?.total ?? 0;
  // Said once before the first batch too, so a rate is measured from the start (a new, empty catalog says nothing).
  if (done < total) options.onProgress?.(done, total);
  for (;;) {
    const last = await db.transaction(async (tx) => {
      // Ids by the primary key's order, so each batch is an index range and none is read twice.
      const [row] = await tx
        .select({ last: sql<string | null>`max(id)`, rows: sql<number>`count(*)::int` })
        .from(sql`(select id from products where id > ${after} order by id limit ${batchSize}) as batch`);
      if (!row?.last) return null;
      await tx.execute(sql`
        update products set embedding_half = embedding::halfvec(${sql.raw(String(EMBEDDING_DIMENSIONS))})
        where id > ${after} and id <= ${row.last} and embedding is not null`);
      await tx
        .insert(catalogMeta)
        .values({ key: CURSOR_KEY, value: row.last })
        .onConflictDoUpdate({ target: catalogMeta.key, set: { value: row.last, updatedAt: sql`now()` } });
      return { last: row.last, rows: row.rows };
    });
    if (!last) return total;
    after = last.last;
    done = Math.min(total, done + last.rows);
    options.onProgress?.(done, total);
  }
}

/** The new column's HNSW index, built once; an invalid one (a CONCURRENTLY build that was stopped) is built again. */
async function buildIndex(db: Database, concurrently: boolean): Promise<void> {
  const [existing] = await db.select({ valid: sql<boolean>`indisvalid` }).from(sql`pg_index`).where(sql`indexrelid = to_regclass(${HALF_INDEX})`);
  if (existing?.valid) return;
  const how = sql.raw(concurrently ? "concurrently" : "");
  if (existing) await db.execute(sql`drop index ${how} ${sql.identifier(HALF_INDEX)}`);
  await db.execute(sql`create index ${how} ${sql.identifier(HALF_INDEX)} on products using hnsw (embedding_half halfvec_cosine_ops)`);
}

/** The columns, index and trigger swapped in one transaction: metadata only, the exclusive lock held for milliseconds. */
async function swap(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    // PGlite has one session, shared with the CLI on the server's socket: the advisory lock keeps neither out.
    await tx.execute(sql`lock table products in access exclusive mode`);
    if ((await embeddingType(tx))?.startsWith("halfvec")) return;
    await tx.execute(sql`drop trigger products_embedding_half on products`);
    await tx.execute(sql`drop function products_embedding_half()`);
    await tx.execute(sql`drop index products_embedding_idx`);
    await tx.execute(sql`alter table products drop column embedding`);
    await tx.execute(sql`alter table products rename column embedding_half to embedding`);
    await tx.execute(sql`alter index ${sql.identifier(HALF_INDEX)} rename to products_embedding_idx`);
    await tx.delete(catalogMeta).where(sql`${catalogMeta.key} = ${CURSOR_KEY}`);
  });
}

/**
 * Runs what is left of the conversion; returns whether there was any. One run at a time: a second server starting on
 * the same database waits on the advisory lock, then finds the work done.
 */
export async function convertVectorsToHalf(db: Database, options: HalfvecOptions): Promise<boolean> {
  if ((await embeddingType(db))?.startsWith("halfvec")) return false;
  await db.execute(sql`select pg_advisory_lock(hashtext('catalog-halfvec'))`);
  try {
    if ((await embeddingType(db))?.startsWith("halfvec")) return false;
    const rows = await fill(db, options);
    options.onIndexing?.(rows);
    await buildIndex(db, options.concurrently);
    await swap(db);
    return true;
  } finally {
    await db.execute(sql`select pg_advisory_unlock(hashtext('catalog-halfvec'))`);
  }
}

/**
 * PGlite keeps full-precision vectors: its pgvector, compiled to WASM, converts half floats in software, and on
 * 3,000 vectors of 512 dimensions an HNSW insert took 5.5× as long and a search 2.3× (docs/decisions/0017-halfvec.md).
 * Undoes what migration 0018 added, so nothing keeps a second copy of each vector.
 */
export async function keepFullPrecision(db: Database): Promise<void> {
  await db.execute(sql`drop trigger if exists products_embedding_half on products`);
  await db.execute(sql`drop function if exists products_embedding_half()`);
  await db.execute(sql`alter table products drop column if exists embedding_half`);
  await db.delete(catalogMeta).where(sql`${catalogMeta.key} = ${CURSOR_KEY}`);
}
