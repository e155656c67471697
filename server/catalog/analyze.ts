/**
 * The planner's statistics for the catalog's tables. Postgres chooses plans from what ANALYZE last gathered, and
 * its autovacuum gathers it again as tables change; PGlite runs no autovacuum, so a catalog imported into the
 * embedded database was never analyzed and the planner guessed. It took `gone_at IS NULL` to keep 0.5% of the
 * products, and ranked the CrowdFlower catalog's 9,913 vectors by a sequential scan (86 ms a search, reading every
 * vector from TOAST) instead of the HNSW index (7 ms): `bench:search-steps`, docs/performance.md.
 *
 * So after an import that wrote products, and when the server starts, the tables are analyzed if their row count
 * has moved past autovacuum's default threshold (50 rows + 10%) since the last ANALYZE. On Postgres autovacuum has
 * usually been there first, and then this is one count. A role that does not own the tables gets Postgres's
 * warning "skipping …", not an error.
 */
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client.js";

/** Autovacuum's defaults (autovacuum_analyze_threshold, autovacuum_analyze_scale_factor). */
export const ANALYZE_THRESHOLD = { rows: 50, fraction: 0.1 } as const;

/** Whether a table whose statistics say `estimated` rows (negative: never analyzed) and that holds `actual` is due. */
export function analyzeDue(estimated: number, actual: number): boolean {
  const known = Math.max(estimated, 0);
  return Math.abs(actual - known) > ANALYZE_THRESHOLD.rows + ANALYZE_THRESHOLD.fraction * known;
}

/** Analyzes the catalog's tables when they are due; says whether it did. */
export async function analyzeIfDue(db: DbOrTx): Promise<boolean> {
  const [row] = await db
    .select({
      estimated: sql<number>`(select reltuples from pg_class where oid = 'products'::regclass)::float8`.mapWith(Number),
      actual: sql<number>`(select count(*) from products)::float8`.mapWith(Number),
    })
    .from(sql`(select 1) as one`);
  if (!row || !analyzeDue(row.estimated, row.actual)) return false;
  // product_facets mirrors products row for row (a trigger keeps it), so it is due when products is.
  await db.execute(sql`analyze products, product_facets`);
  return true;
}
