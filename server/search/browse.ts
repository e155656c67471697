/**
 * Ordered reads that are not ranked retrieval: browsing the products that pass
 * the filters (no query) by price or age with a keyset, the sort keys of a
 * search's matched set, the catalog's brand names, and texts' stems (for `explain` and the local reranker).
 * Orders read the narrow `product_facets` rows: a few hundred pages for a
 * browse of 20,000 products, where `products` takes a page per row.
 */
import { and, asc, desc, eq, inArray, max, min, type SQL, sql } from "drizzle-orm";
import { KRONOR } from "../../shared/currency.js";
import type { Sort } from "../../shared/schemas/index.js";
import type { Database } from "../db/client.js";
import { productFacets, products } from "../db/schema.js";
import { productConfig } from "./languages/sql.js";
import { parseTsvector } from "./lexical.js";

/** A product's place in a non-relevance order: the sort value (minor units, or microseconds since the epoch) and id. */
export interface SortKey {
  id: string;
  value: number;
}

export type OrderSort = Exclude<Sort, "relevance">;

/** created_at in whole microseconds (exact in a JSON number until the year 2255). */
const CREATED_MICROS = sql<number>`(extract(epoch from ${productFacets.createdAt}) * 1000000)::bigint`.mapWith(Number);
const fromMicros = (micros: number) => sql`(timestamptz 'epoch' + ${micros} * interval '1 microsecond')`;

function order(sort: OrderSort) {
  switch (sort) {
    case "price_asc":
      return { value: sql<number>`${productFacets.priceMinor}`.mapWith(Number), by: [asc(productFacets.priceMinor), asc(productFacets.id)] };
    case "price_desc":
      return { value: sql<number>`${productFacets.priceMinor}`.mapWith(Number), by: [desc(productFacets.priceMinor), desc(productFacets.id)] };
    case "newest":
      return { value: CREATED_MICROS, by: [desc(productFacets.createdAt), desc(productFacets.id)] };
  }
}

/** What comes after `after` in `sort`'s order, as a row comparison the (currency, price, id) and (created_at, id) indexes serve. */
function after(sort: OrderSort, key: SortKey): SQL {
  switch (sort) {
    case "price_asc":
      return sql`(${productFacets.priceMinor}, ${productFacets.id}) > (${key.value}, ${key.id})`;
    case "price_desc":
      return sql`(${productFacets.priceMinor}, ${productFacets.id}) < (${key.value}, ${key.id})`;
    case "newest":
      return sql`(${productFacets.createdAt}, ${productFacets.id}) < (${fromMicros(key.value)}, ${key.id})`;
  }
}

/** Up to `limit` products passing `where` in `sort`'s order, after `from` when given. */
export async function browseKeys(db: Database, where: SQL | undefined, sort: OrderSort, limit: number, from?: SortKey): Promise<SortKey[]> {
  const { value, by } = order(sort);
  return db
    .select({ id: productFacets.id, value })
    .from(productFacets)
    .where(and(where, from ? after(sort, from) : undefined))
    .orderBy(...by)
    .limit(limit);
}

/** The sort keys of the given products (a search's matched set), in `sort`'s order. */
export async function sortKeys(db: Database, ids: readonly string[], sort: OrderSort): Promise<SortKey[]> {
  if (ids.length === 0) return [];
  const { value, by } = order(sort);
  return db
    .select({ id: productFacets.id, value })
    .from(productFacets)
    .where(inArray(productFacets.id, [...ids]))
    .orderBy(...by);
}

/** Whether `key` comes after `from` in `sort`'s order (the same comparison as `after`, in JS). */
export function comesAfter(sort: OrderSort, key: SortKey, from: SortKey): boolean {
  const ascending = sort === "price_asc";
  if (key.value !== from.value) return ascending ? key.value > from.value : key.value < from.value;
  return ascending ? key.id > from.id : key.id < from.id;
}

/** Every brand name the catalog's records give. */
export async function brandNames(db: Database): Promise<string[]> {
  const rows = await db
    .select({ name: sql<string>`b.name` })
    .from(sql`(select distinct jsonb_array_elements_text(${products.brands}) as name from ${products}) as b`);
  return rows.map((row) => row.name);
}

/**
 * The currencies the catalog prices products in, as far as telling one from several: the first and last, which the
 * price index reads in a step each (a distinct scan would read every row of a catalog in one currency to be sure);
 * and which of those written "kr" it has (`KRONOR`), a step each, to tell which a shopper's "kr" is.
 */
export async function priceCurrencies(db: Database): Promise<string[]> {
  const [row] = await db.select({ first: min(products.currency), last: max(products.currency) }).from(products);
  const kronor = await Promise.all(
    KRONOR.map(async (code) =>
      (await db.select({ id: products.id }).from(products).where(eq(products.currency, code)).limit(1)).length > 0 ? code : null,
    ),
  );
  return [...new Set([row?.first, row?.last, ...kronor].filter((currency): currency is string => typeof currency === "string"))];
}

/** Per product, the stemmed words of each field as its own language's configuration reads them (for `explain`). */
export async function fieldLexemes(db: Database, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const lexemes = (column: SQL) => sql<string>`to_tsvector(${productConfig()}, ${column})::text`;
  return db
    .select({
      id: products.id,
      name: lexemes(sql`${products.name}`),
      brands: lexemes(sql`${products.brands}`),
      desc: lexemes(sql`${products.desc}`),
      category: lexemes(sql`coalesce(${products.category}, '')`),
    })
    .from(products)
    .where(inArray(products.id, [...ids]));
}

/**
 * The lexemes of each text, in order, as its language's text-search configuration reads it (as the stored documents
 * are read), in one query: a text can have none (a stop word), a hyphenated word several ("over-ear" → over-ear, ear).
 */
export async function stemsIn(db: Database, texts: readonly { language: string; text: string }[]): Promise<string[][]> {
  if (texts.length === 0) return [];
  const list = (values: readonly string[]) =>
    sql.join(
      values.map((value) => sql`${value}`),
      sql`, `,
    );
  const [row] = await db
    .select({ stems: sql<string[] | null>`array_agg(to_tsvector(search_config(l), t)::text order by i)` })
    .from(
      sql`unnest(array[${list(texts.map((each) => each.text))}]::text[], array[${list(texts.map((each) => each.language))}]::text[]) with ordinality as u(t, l, i)`,
    );
  return texts.map((_, i) =>
    parseTsvector(row?.stems?.[i] ?? "")
      .sort((a, b) => a.position - b.position)
      .map((term) => term.lexeme),
  );
}
