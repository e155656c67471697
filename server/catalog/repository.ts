/**
 * Catalog queries. Each takes the database (or a transaction) first, selects
 * explicit columns, and knows nothing of HTTP or search.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { and, count, countDistinct, eq, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../db/client.js";
import { catalogMeta, products, type NewProductRow } from "../db/schema.js";
import type { Product } from "../../shared/schemas/index.js";

const recordColumns = {
  id: products.id,
  url: products.url,
  name: products.name,
  desc: products.desc,
  media: products.media,
  brands: products.brands,
  price_label: products.priceLabel,
  offers: products.offers,
  identifiers: products.identifiers,
  category: products.category,
};

/** Raw data can be large; it is read only when asked for. */
function columns(withRawData: boolean) {
  return withRawData ? { ...recordColumns, rawData: products.rawData } : recordColumns;
}

type Row = Pick<Product, "id" | "url" | "name" | "desc" | "media" | "brands" | "price_label"> & {
  offers: Product["offers"] | null;
  identifiers: Product["identifiers"] | null;
  category: string | null;
  rawData?: Product["raw_data"] | null;
};

/** Optional members are left out, not null, when the page did not have them. */
function toProduct(row: Row, withRawData: boolean): Product {
  const { rawData, offers, identifiers, category, ...record } = row;
  return {
    ...record,
    ...(offers ? { offers } : {}),
    ...(identifiers ? { identifiers } : {}),
    ...(category ? { category } : {}),
    ...(withRawData ? { raw_data: rawData ?? { strippedHtml: null, jsons: { ld_json: null, props_data: null } } } : {}),
  };
}

export async function findProductById(db: DbOrTx, id: string, withRawData: boolean): Promise<Product | null> {
  const [row] = await db.select(columns(withRawData)).from(products).where(eq(products.id, id)).limit(1);
  return row ? toProduct(row, withRawData) : null;
}

export async function findProductByUrlKey(db: DbOrTx, urlKey: string, withRawData: boolean): Promise<Product | null> {
  const [row] = await db.select(columns(withRawData)).from(products).where(eq(products.urlKey, urlKey)).limit(1);
  return row ? toProduct(row, withRawData) : null;
}

/** Products found by a column, with the key each was found by (several may share a GTIN or a SKU). */
async function findProductsBy(
  db: DbOrTx,
  column: typeof products.urlKey | typeof products.gtin14 | typeof products.skuKey,
  keys: readonly string[],
  withRawData: boolean,
  where?: SQL,
): Promise<{ key: string; product: Product }[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .select({ ...columns(withRawData), key: sql<string>`${column}` })
    .from(products)
    .where(and(inArray(column, [...keys]), where))
    .orderBy(products.id);
  return rows.map(({ key, ...row }) => ({ key, product: toProduct(row, withRawData) }));
}

export const findProductsByUrlKeys = (db: DbOrTx, keys: readonly string[], withRawData: boolean) =>
  findProductsBy(db, products.urlKey, keys, withRawData);
export const findProductsByGtin14 = (db: DbOrTx, keys: readonly string[], withRawData: boolean) =>
  findProductsBy(db, products.gtin14, keys, withRawData);
/** Products by SKU (keys lower-cased), within one merchant's site when `brandHost` is given. */
export const findProductsBySku = (db: DbOrTx, keys: readonly string[], withRawData: boolean, brandHost?: string) =>
  findProductsBy(db, products.skuKey, keys, withRawData, brandHost === undefined ? undefined : eq(products.brandHost, brandHost));

/** Products by id, in the order of `ids` (ids not found are left out). */
export async function findProductsByIds(db: DbOrTx, ids: readonly string[], withRawData: boolean): Promise<Product[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select(columns(withRawData))
    .from(products)
    .where(inArray(products.id, [...ids]));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toProduct(row, withRawData)] : [];
  });
}

/** The JSON-LD each product's page stated (raw_data.jsons.ld_json), without reading the rest of its raw data over the wire. */
export async function findJsonLd(db: DbOrTx, ids: readonly string[]): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: products.id, ldJson: sql<unknown>`${products.rawData}->'jsons'->'ld_json'` })
    .from(products)
    .where(inArray(products.id, [...ids]));
  return new Map(rows.map((row) => [row.id, row.ldJson]));
}

export async function countProducts(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(products);
  return row?.n ?? 0;
}

export async function countBrandHosts(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: countDistinct(products.brandHost) }).from(products);
  return row?.n ?? 0;
}

export async function embeddingModels(db: DbOrTx): Promise<string[]> {
  const rows = await db.selectDistinct({ model: products.embeddingModel }).from(products).where(isNotNull(products.embeddingModel));
  return rows.flatMap((row) => (row.model ? [row.model] : []));
}

/** Products whose vector was made by another model (or none): what `catalog reindex` still has to do. */
export async function countNeedingEmbedding(db: DbOrTx, model: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(products).where(sql`${products.embeddingModel} is distinct from ${model}`);
  return row?.n ?? 0;
}

export async function productsNeedingEmbedding(db: DbOrTx, model: string, limit: number) {
  return db
    .select({ id: products.id, name: products.name, brands: products.brands })
    .from(products)
    .where(sql`${products.embeddingModel} is distinct from ${model}`)
    .orderBy(products.id)
    .limit(limit);
}

export async function setEmbeddings(db: DbOrTx, rows: readonly { id: string; embedding: number[] }[], model: string): Promise<void> {
  for (const row of rows) {
    await db.update(products).set({ embedding: row.embedding, embeddingModel: model }).where(eq(products.id, row.id));
  }
}

/** What is stored for these ids and URL keys, so an import can skip unchanged records and catch URL clashes. */
export async function findExisting(
  db: DbOrTx,
  ids: readonly string[],
  urlKeys: readonly string[],
): Promise<{ id: string; urlKey: string; contentHash: string }[]> {
  if (ids.length === 0 && urlKeys.length === 0) return [];
  return db
    .select({ id: products.id, urlKey: products.urlKey, contentHash: products.contentHash })
    .from(products)
    .where(sql`${inArray(products.id, [...ids, ""])} or ${inArray(products.urlKey, [...urlKeys, ""])}`);
}

export async function upsertProducts(db: DbOrTx, rows: readonly NewProductRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(products)
    .values([...rows])
    .onConflictDoUpdate({
      target: products.id,
      set: {
        url: sql`excluded.url`,
        urlKey: sql`excluded.url_key`,
        brandHost: sql`excluded.brand_host`,
        name: sql`excluded.name`,
        desc: sql`excluded.desc`,
        media: sql`excluded.media`,
        brands: sql`excluded.brands`,
        priceLabel: sql`excluded.price_label`,
        rawData: sql`excluded.raw_data`,
        offers: sql`excluded.offers`,
        identifiers: sql`excluded.identifiers`,
        provenance: sql`excluded.provenance`,
        category: sql`excluded.category`,
        priceMinor: sql`excluded.price_minor`,
        currency: sql`excluded.currency`,
        priceBucket: sql`excluded.price_bucket`,
        brand: sql`excluded.brand`,
        listPriceMinor: sql`excluded.list_price_minor`,
        availability: sql`excluded.availability`,
        categoryKey: sql`excluded.category_key`,
        brandKeys: sql`excluded.brand_keys`,
        gtin14: sql`excluded.gtin14`,
        skuKey: sql`excluded.sku_key`,
        derivedVersion: sql`excluded.derived_version`,
        contentHash: sql`excluded.content_hash`,
        embedding: sql`excluded.embedding`,
        embeddingModel: sql`excluded.embedding_model`,
        updatedAt: sql`now()`,
      },
    });
}

/**
 * Bumped in every transaction that changes products, so servers (in this
 * process or not) know when their cached products are out of date.
 */
const CATALOG_VERSION = "catalog_version";

export async function bumpCatalogVersion(db: DbOrTx): Promise<void> {
  await setMeta(db, CATALOG_VERSION, randomUUID());
}

export async function catalogVersion(db: DbOrTx): Promise<string | null> {
  return getMeta(db, CATALOG_VERSION);
}

export async function getMeta(db: DbOrTx, key: string): Promise<string | null> {
  const [row] = await db.select({ value: catalogMeta.value }).from(catalogMeta).where(eq(catalogMeta.key, key)).limit(1);
  return row?.value ?? null;
}

export async function setMeta(db: DbOrTx, key: string, value: string): Promise<void> {
  await db
    .insert(catalogMeta)
    .values({ key, value })
    .onConflictDoUpdate({ target: catalogMeta.key, set: { value, updatedAt: sql`now()` } });
}

/**
 * A random secret kept in the catalog (made on first use, then the same for every server on this database and
 * across restarts): what page cursors are signed with.
 */
export async function catalogSecret(db: DbOrTx, key: string): Promise<Buffer> {
  await db
    .insert(catalogMeta)
    .values({ key, value: randomBytes(32).toString("base64") })
    .onConflictDoNothing({ target: catalogMeta.key });
  const value = await getMeta(db, key);
  if (!value) throw new Error(`catalog_meta has no ${key}`);
  return Buffer.from(value, "base64");
}
