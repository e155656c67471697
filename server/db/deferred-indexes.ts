/**
 * The indexes a bulk load (`catalog import --bulk`, docs/decisions/0020-bulk-load.md) builds after the load instead of
 * row by row: the HNSW index of the vectors and the full-text GIN index, what a row's insert costs most. Building an
 * HNSW index over rows already there is several times cheaper than inserting into it row by row, and Postgres builds
 * it on parallel workers (`max_parallel_maintenance_workers`, in `maintenance_work_mem`). Their definitions are kept
 * in `catalog_meta` while they are dropped, so a load stopped before it built them leaves a note of what to build:
 * the next bulk load builds them when it ends, or the next start or `catalog migrate` does (migrate, both drivers).
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "./client.js";
import { catalogMeta } from "./schema.js";

/** The indexes a bulk load builds after the load rather than row by row. */
const DEFERRED = ["products_embedding_idx", "products_search_idx"] as const;
const DEFERRED_KEY = "bulk_load_deferred_indexes";
const DeferredSchema = z.array(z.object({ name: z.string(), definition: z.string() }));
/** Held by a bulk load for its whole run (a session lock): a start that finds it held leaves the indexes to the load. */
const LOAD_LOCK = sql`hashtext('catalog-bulk-load')`;

async function deferredIndexes(db: DbOrTx): Promise<z.infer<typeof DeferredSchema>> {
  const [row] = await db.select({ value: catalogMeta.value }).from(catalogMeta).where(sql`${catalogMeta.key} = ${DEFERRED_KEY}`);
  const kept = DeferredSchema.safeParse(JSON.parse(row?.value ?? "[]"));
  return kept.success ? kept.data : [];
}

/**
 * Drops the deferred indexes, noting their definitions first (in one transaction, so no index is dropped without its
 * note). A load resumed after a stop finds them noted and dropped already.
 */
export async function deferIndexes(db: DbOrTx): Promise<void> {
  await db.transaction(async (tx) => {
    const noted = await deferredIndexes(tx);
    const present = await tx
      .select({ name: sql<string>`indexname`, definition: sql<string>`indexdef` })
      .from(sql`pg_indexes`)
      .where(
        sql`schemaname = current_schema() and tablename = 'products' and indexname in (${sql.join(
          DEFERRED.map((name) => sql`${name}`),
          sql`, `,
        )})`,
      );
    const notes = [...noted.filter((note) => !present.some((index) => index.name === note.name)), ...present];
    if (notes.length > 0)
      await tx
        .insert(catalogMeta)
        .values({ key: DEFERRED_KEY, value: JSON.stringify(notes) })
        .onConflictDoUpdate({ target: catalogMeta.key, set: { value: JSON.stringify(notes), updatedAt: sql`now()` } });
    for (const index of present) await tx.execute(sql`drop index ${sql.identifier(index.name)}`);
  });
}

/**
 * Builds the indexes a bulk load put off, if any are noted, and forgets the note. `whileLoading`: unless a bulk load
 * holds its lock (it builds them itself when it ends). Run on a connection without the query deadline: an index over a
 * million products takes minutes.
 */
export async function restoreDeferredIndexes(
  db: DbOrTx,
  options: { unlessLoading?: boolean; onIndexing?: (names: string[]) => void } = {},
): Promise<string[]> {
  const notes = await deferredIndexes(db);
  if (notes.length === 0) return [];
  if (options.unlessLoading && !(await tryLockBulkLoad(db))) return [];
  try {
    options.onIndexing?.(notes.map((note) => note.name));
    for (const { definition } of notes) await db.execute(sql.raw(definition.replace(/^CREATE INDEX /i, "CREATE INDEX IF NOT EXISTS ")));
    await db.delete(catalogMeta).where(sql`${catalogMeta.key} = ${DEFERRED_KEY}`);
    return notes.map((note) => note.name);
  } finally {
    if (options.unlessLoading) await unlockBulkLoad(db);
  }
}

/** Waits for, then holds, the bulk load's lock, until `unlockBulkLoad` or the session's end: one bulk load at a time. */
export async function lockBulkLoad(db: DbOrTx): Promise<void> {
  await db.execute(sql`select pg_advisory_lock(${LOAD_LOCK})`);
}

/** Whether this session now holds the bulk load's lock (a session lock: taken again by the session that holds it). */
export async function tryLockBulkLoad(db: DbOrTx): Promise<boolean> {
  const [row] = await db.select({ locked: sql<boolean>`pg_try_advisory_lock(${LOAD_LOCK})` }).from(sql`(select 1) as one`);
  return row?.locked === true;
}

export async function unlockBulkLoad(db: DbOrTx): Promise<void> {
  await db.execute(sql`select pg_advisory_unlock(${LOAD_LOCK})`);
}
