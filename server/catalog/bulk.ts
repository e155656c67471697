/**
 * A bulk load's upsert (`catalog import --bulk`, docs/decisions/0020-bulk-load.md): a batch of records in one statement
 * whose rows arrive as one JSON parameter (`json_to_recordset`), where the ordinary upsert sends each of a row's ~55
 * values as a parameter of its own (drizzle builds, and postgres.js sends, 55,000 of them for 1,000 rows). The same
 * columns, values and conflict rule (`UPSERT_SET`). The indexes it puts off: db/deferred-indexes.ts.
 */
import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../db/client.js";
import { equalsAny } from "../db/equals-any.js";
import { products } from "../db/schema.js";
import { storedRow, UPSERT_SET, type UpsertRow } from "./repository.js";

const COLUMNS: Record<string, PgColumn> = getTableColumns(products);

/** Each key's column in the JSON rows' record type, and the value inserted from it. */
function columnOf(key: string): { definition: SQL; value: SQL } {
  const column = COLUMNS[key];
  if (!column || column.generated) throw new Error(`products has no column to write for ${key}`);
  const name = sql.identifier(key);
  const vector = column.columnType === "PgHalfVector" || column.columnType === "PgVector";
  // A vector arrives as a JSON array: read as text, made a vector (and, on Postgres, half precision by assignment).
  const definition = sql`${name} ${sql.raw(vector ? "text" : column.getSQLType())}`;
  const read = vector ? sql`v.${name}::vector` : sql`v.${name}`;
  // A row without the key gets the column's default, as the ordinary upsert's DEFAULT would (a NOT NULL column's).
  if (!column.notNull || !column.hasDefault || column.default === undefined) return { definition, value: read };
  const fallback = is(column.default, SQL) ? column.default : sql`${column.mapToDriverValue(column.default)}::${sql.raw(column.getSQLType())}`;
  return { definition, value: sql`coalesce(${read}, ${fallback})` };
}

const conflictSet = sql.join(
  Object.entries(UPSERT_SET).map(([key, value]) => sql`${sql.identifier(COLUMNS[key]!.name)} = ${value}`),
  sql`, `,
);

/**
 * A statement's JSON at most about this long: records with large raw data (saved pages, a few MB each) would otherwise
 * make a thousand of them one string past what V8 and a Postgres value hold (~512 MB, 1 GB).
 */
const STATEMENT_CHARS = 32 * 1024 * 1024;

/**
 * `upsertProducts` in one statement of one parameter (or a few, for large records): the same rows stored, the same way.
 * In a transaction, the facets mirror is written once for the batch, the per-row trigger stepping aside (migration 0019).
 */
export async function upsertProductsInBulk(db: DbOrTx, rows: readonly UpsertRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(sql`select set_config('catalog.facets_by_batch', 'on', true)`);
  await upsertParts(db, rows);
  await db.execute(sql`select set_config('catalog.facets_by_batch', 'off', true)`);
  await mirrorFacets(
    db,
    rows.map((row) => row.id),
  );
}

/** What the per-row trigger `sync_product_facets` (migration 0015) writes, for these products in one statement. */
async function mirrorFacets(db: DbOrTx, ids: readonly string[]): Promise<void> {
  const columns = sql.raw(
    "id, brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at, updated_at, gone_at, audience, colours, materials",
  );
  await db.execute(sql`
    insert into product_facets (${columns})
    select ${columns} from ${products} where ${equalsAny(products.id, ids)}
    on conflict (id) do update set
      brand_host = excluded.brand_host, brand = excluded.brand, brand_keys = excluded.brand_keys, category = excluded.category,
      category_key = excluded.category_key, availability = excluded.availability, currency = excluded.currency,
      price_minor = excluded.price_minor, price_bucket = excluded.price_bucket, created_at = excluded.created_at,
      updated_at = excluded.updated_at, gone_at = excluded.gone_at, audience = excluded.audience, colours = excluded.colours,
      materials = excluded.materials`);
}

async function upsertParts(db: DbOrTx, rows: readonly UpsertRow[]): Promise<void> {
  let part: string[] = [];
  let partKeys = new Set<string>();
  let chars = 0;
  for (const row of rows.map(storedRow)) {
    const json = JSON.stringify(row);
    if (part.length > 0 && chars + json.length > STATEMENT_CHARS) {
      await upsertJson(db, part, partKeys);
      [part, partKeys, chars] = [[], new Set(), 0];
    }
    part.push(json);
    chars += json.length;
    for (const [key, value] of Object.entries(row)) if (value !== undefined) partKeys.add(key);
  }
  if (part.length > 0) await upsertJson(db, part, partKeys);
}

/** Rows given as JSON texts, upserted by one statement: their keys' columns written, the others left to their defaults. */
async function upsertJson(db: DbOrTx, rows: readonly string[], present: ReadonlySet<string>): Promise<void> {
  const keys = [...present];
  const columns = keys.map(columnOf);
  await db.execute(sql`
    insert into ${products} (${sql.join(
      keys.map((key) => sql.identifier(COLUMNS[key]!.name)),
      sql`, `,
    )})
    select ${sql.join(
      columns.map((column) => column.value),
      sql`, `,
    )}
    from json_to_recordset(${`[${rows.join(",")}]`}::json) as v(${sql.join(
      columns.map((column) => column.definition),
      sql`, `,
    )})
    on conflict (id) do update set ${conflictSet}`);
}
