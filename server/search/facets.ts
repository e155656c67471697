/**
 * Facet counts over a matched set, in SQL: every product passing the filters
 * when browsing, or the products a search matched (by id). Brands as the
 * records give them; categories with each of their ancestors; availability by
 * schema.org name; prices in buckets per currency (never converted).
 */
import { and, isNotNull, type SQL, sql } from "drizzle-orm";
import { CURRENCY_EXPONENTS } from "../../shared/currency.js";
import type { Facet, Facets } from "../../shared/schemas/index.js";
import type { Database } from "../db/client.js";
import { products } from "../db/schema.js";
import { CATEGORY_SEPARATOR } from "../catalog/structured.js";

/** The most values a facet lists (the most frequent first). */
const FACET_VALUES = 50;

/** Bucket bounds in major units, 1-2.5-5 steps: a useful spread for cents and yen alike; only buckets with products are listed. */
const PRICE_BOUNDS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

/** A currency's minor-unit exponent in SQL: most have 2; the others are listed. */
const EXPONENT = sql.raw(
  `case ${Object.entries(CURRENCY_EXPONENTS)
    .filter(([, exponent]) => exponent !== 2)
    .map(([code, exponent]) => `when currency = '${code}' then ${exponent}`)
    .join(" ")} else 2 end`,
);

function formatBound(value: number): string {
  return String(value);
}

async function brandCounts(db: Database, where: SQL | undefined) {
  const brand = sql<string>`b.value`;
  const rows = await db
    .select({ value: brand, count: sql<number>`count(*)::int` })
    .from(sql`${products} cross join lateral jsonb_array_elements_text(${products.brands}) as b(value)`)
    .where(where)
    .groupBy(brand)
    .orderBy(sql`count(*) desc`, brand)
    .limit(FACET_VALUES);
  return rows;
}

async function categoryCounts(db: Database, where: SQL | undefined) {
  const rows = await db
    .select({ key: products.categoryKey, value: sql<string>`min(${products.category})`, count: sql<number>`count(*)::int` })
    .from(products)
    .where(and(where, isNotNull(products.categoryKey)))
    .groupBy(products.categoryKey);
  // Each path counts for itself and for every ancestor ("Outdoor > Tents" counts for "Outdoor" too).
  const totals = new Map<string, { value: string; count: number }>();
  for (const row of rows) {
    const keys = (row.key ?? "").split(CATEGORY_SEPARATOR);
    const values = row.value.split(">").map((segment) => segment.trim());
    for (let depth = 1; depth <= keys.length; depth++) {
      const key = keys.slice(0, depth).join(CATEGORY_SEPARATOR);
      const entry = totals.get(key) ?? { value: values.slice(0, depth).join(CATEGORY_SEPARATOR), count: 0 };
      entry.count += row.count;
      totals.set(key, entry);
    }
  }
  return [...totals.values()].sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)).slice(0, FACET_VALUES * 2);
}

async function availabilityCounts(db: Database, where: SQL | undefined) {
  return db
    .select({ value: sql<string>`${products.availability}`, count: sql<number>`count(*)::int` })
    .from(products)
    .where(and(where, isNotNull(products.availability)))
    .groupBy(products.availability)
    .orderBy(sql`count(*) desc`, products.availability);
}

async function priceCounts(db: Database, where: SQL | undefined) {
  const bucket = sql<number>`width_bucket(${products.priceMinor}::float8 / power(10, ${EXPONENT}), ${sql.raw(`array[${PRICE_BOUNDS.join(",")}]::float8[]`)})`;
  const rows = await db
    .select({ currency: sql<string>`${products.currency}`, bucket, count: sql<number>`count(*)::int` })
    .from(products)
    .where(and(where, isNotNull(products.priceMinor), isNotNull(products.currency)))
    .groupBy(products.currency, bucket)
    .orderBy(products.currency, bucket);
  return rows.map((row) => ({
    currency: row.currency,
    min: formatBound(row.bucket === 0 ? 0 : PRICE_BOUNDS[row.bucket - 1]!),
    max: row.bucket >= PRICE_BOUNDS.length ? null : formatBound(PRICE_BOUNDS[row.bucket]!),
    count: row.count,
  }));
}

/** The asked facets over the products `where` selects. */
export async function facetCounts(db: Database, where: SQL | undefined, asked: readonly Facet[]): Promise<Facets> {
  const facets: Facets = {};
  // One after the other: on the embedded database they would queue anyway, and each is an index or bitmap scan.
  for (const facet of new Set(asked)) {
    if (facet === "brand") facets.brand = await brandCounts(db, where);
    else if (facet === "category") facets.category = await categoryCounts(db, where);
    else if (facet === "availability") facets.availability = await availabilityCounts(db, where);
    else facets.price = await priceCounts(db, where);
  }
  return facets;
}
