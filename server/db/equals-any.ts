import { type SQL, type SQLWrapper, sql } from "drizzle-orm";

/**
 * `column = any(values)`, the values sent as one JSON parameter. drizzle's `inArray` sends a parameter a value and
 * builds each one's SQL, ~0.14 ms of the importing thread a product in a bulk load's batches of 1,000 (its CPU
 * profile, docs/performance.md); an array made by `= any(array(…))` still lets Postgres use the column's index, also
 * beside an `or`, where `in (select …)` would scan the table.
 */
export function equalsAny(column: SQLWrapper, values: readonly string[]): SQL {
  return sql`${column} = any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)))`;
}
