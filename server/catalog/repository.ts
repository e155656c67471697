/**
 * Catalog queries. Each takes the database (or a transaction) first, selects
 * explicit columns, and knows nothing of HTTP or search.
 */
import { setImmediate } from "node:timers/promises";
import { RequestError } from "../errors.js";
import { jsonSize } from "../json-size.js";
import { randomBytes, randomUUID } from "node:crypto";
import { and, arrayOverlaps, asc, count, countDistinct, eq, gt, inArray, isNotNull, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import { equalsAny } from "../db/equals-any.js";
import type { DbOrTx } from "../db/client.js";
import { catalogMeta, productChanges, productFacets, products, type NewProductRow } from "../db/schema.js";
import { canonicalAmount, fromMinorUnits } from "../../shared/currency.js";
import { lowestPrices } from "./prices.js";
import type { Product } from "../../shared/schemas/index.js";

/** A record's fields as imported and stored (the export reads them as they are: server/feeds). */
export const storedRecordColumns = {
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

const recordColumns = {
  ...storedRecordColumns,
  fetchedAt: products.fetchedAt,
  checkedAt: products.checkedAt,
  updatedAt: products.updatedAt,
  goneAt: products.goneAt,
  groupId: products.groupId,
  /** The merchants selling the product (the group's records still there): one indexed lookup by `group_id`. */
  // Qualified by hand: drizzle writes a column of a one-table select unqualified, which inside the subquery is g's.
  priceCurrency: products.currency,
  priceLows: lowestPrices(),
  /**
   * The group's merchants (its records still there) and its offers' lowest and highest price in this record's
   * currency, as "count min max" (an absent price is empty): one indexed pass over the group per record read.
   */
  group: sql<string>`(select format('%s %s %s', count(distinct g.brand_host), min(g.price_minor) filter (where g.currency = "products"."currency"), max(g.price_minor) filter (where g.currency = "products"."currency")) from ${products} g where g.group_id = "products"."group_id" and g.gone_at is null)`,
};

/** Raw data can be large; it is read only when asked for. */
function columns(withRawData: boolean) {
  return withRawData ? { ...recordColumns, rawData: products.rawData } : recordColumns;
}

type Row = Pick<Product, "id" | "url" | "name" | "desc" | "media" | "brands" | "price_label"> & {
  offers: Product["offers"] | null;
  identifiers: Product["identifiers"] | null;
  category: string | null;
  fetchedAt: Date;
  checkedAt: Date;
  updatedAt: Date;
  goneAt: Date | null;
  groupId: string;
  group: string;
  priceCurrency: string | null;
  priceLows: string;
  rawData?: Product["raw_data"] | null;
};

/** A product as stored: its record, and when its page was found withdrawn (null while it is there). */
export interface StoredProduct {
  product: Product;
  goneAt: Date | null;
}

/**
 * Prices in their currency's one decimal form (shared/currency.ts canonicalAmount), however the page or feed wrote them
 * ("45", "45.0", "45.00"): a client compares and shows them without parsing each record's own habit. Stored as imported.
 */
function canonicalOffers(offers: NonNullable<Product["offers"]>): NonNullable<Product["offers"]> {
  const currency = offers.currency;
  if (!currency) return offers;
  const { price, was_price: was } = offers;
  return {
    ...offers,
    price: price === null ? null : canonicalAmount(price, currency),
    ...(was === undefined || was === null ? {} : { was_price: canonicalAmount(was, currency) }),
  };
}

/** The record's group from its "count min max" column (see recordColumns). */
function productGroup(id: string, counted: string, currency: string | null): Product["product_group"] {
  const [offers, min, max] = counted.split(" ").map((part) => (part === "" ? null : Number(part)));
  // A gone record counts no merchant, itself included: still one offer, the one asked for.
  const group: Product["product_group"] = { id, offers: Math.max(1, offers ?? 0) };
  const [low, high] = currency && min != null && max != null ? [fromMinorUnits(min, currency), fromMinorUnits(max, currency)] : [null, null];
  if (currency && low !== null && high !== null) group.price_range = { min: low, max: high, currency };
  return group;
}

/** Optional members are left out, not null, when the page did not have them. */
function toStored(row: Row, withRawData: boolean): StoredProduct {
  const { rawData, offers, identifiers, category, fetchedAt, checkedAt, updatedAt, goneAt, groupId, group, priceCurrency, priceLows, ...record } =
    row;
  const [low30, low90] = priceLows.split(" ");
  const low = (units: string | undefined) => (units && priceCurrency ? fromMinorUnits(Number(units), priceCurrency) : null);
  const product: Product = {
    ...record,
    ...(offers ? { offers: canonicalOffers(offers) } : {}),
    ...(identifiers ? { identifiers } : {}),
    ...(category ? { category } : {}),
    fetched_at: fetchedAt.toISOString(),
    checked_at: checkedAt.toISOString(),
    updated_at: updatedAt.toISOString(),
    product_group: productGroup(groupId, group, priceCurrency),
    price_low_30d: low(low30),
    price_low_90d: low(low90),
    ...(withRawData ? { raw_data: rawData ?? { strippedHtml: null, jsons: { ld_json: null, props_data: null } } } : {}),
  };
  return { product, goneAt };
}

/**
 * A lookup of one product by a unique column, its SQL built once per database (or transaction) and kept: drizzle
 * builds a select anew on each call, which for this one allocated ~70 KB a lookup (of ~100 KB in all, 1.1 KB of
 * product), so a million-product catalog's uncached gets waited on the collector at their p99 (docs/performance.md).
 */
function lookupBy(column: typeof products.id | typeof products.urlKey) {
  const build = (db: DbOrTx, withRawData: boolean) =>
    db
      .select(columns(withRawData))
      .from(products)
      .where(eq(column, sql.placeholder("key")))
      .limit(1)
      .prepare(`product_by_${column.name}`);
  const built = new WeakMap<DbOrTx, Map<boolean, ReturnType<typeof build>>>();
  const queryFor = (db: DbOrTx, withRawData: boolean) => {
    let mine = built.get(db);
    if (!mine) {
      mine = new Map();
      built.set(db, mine);
    }
    let query = mine.get(withRawData);
    if (!query) {
      query = build(db, withRawData);
      mine.set(withRawData, query);
    }
    return query;
  };
  return async (db: DbOrTx, key: string, withRawData: boolean): Promise<StoredProduct | null> => {
    const [row] = await queryFor(db, withRawData).execute({ key });
    return row ? toStored(row, withRawData) : null;
  };
}

export const findProductById = lookupBy(products.id);
export const findProductByUrlKey = lookupBy(products.urlKey);

/** Products found by a column, with the key each was found by (several may share a GTIN or a SKU). */
async function findProductsBy(
  db: DbOrTx,
  column: typeof products.urlKey | typeof products.gtin14 | typeof products.skuKey,
  keys: readonly string[],
  withRawData: boolean,
  where?: SQL,
): Promise<({ key: string } & StoredProduct)[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .select({ ...columns(withRawData), key: sql<string>`${column}` })
    .from(products)
    .where(and(inArray(column, [...keys]), where))
    .orderBy(products.id);
  return rows.map(({ key, ...row }) => ({ key, ...toStored(row, withRawData) }));
}

export const findProductsByUrlKeys = (db: DbOrTx, keys: readonly string[], withRawData: boolean) =>
  findProductsBy(db, products.urlKey, keys, withRawData);
export const findProductsByGtin14 = (db: DbOrTx, keys: readonly string[], withRawData: boolean) =>
  findProductsBy(db, products.gtin14, keys, withRawData);
/**
 * Products by SKU (keys lower-cased), within one merchant's site when `brandHost` is given: the SKU of the variant the
 * page selects (`sku_key`), or of another of its variants (`variant_sku_keys`, a GIN index). A product found both ways
 * is there once per key.
 */
export async function findProductsBySku(
  db: DbOrTx,
  keys: readonly string[],
  withRawData: boolean,
  brandHost?: string,
): Promise<({ key: string } & StoredProduct)[]> {
  if (keys.length === 0) return [];
  const scope = brandHost === undefined ? undefined : eq(products.brandHost, brandHost);
  const wanted = [...new Set(keys)];
  const rows = await db
    .select({ ...columns(withRawData), skuKey: products.skuKey, variantSkuKeys: products.variantSkuKeys })
    .from(products)
    .where(and(or(inArray(products.skuKey, wanted), arrayOverlaps(products.variantSkuKeys, wanted)), scope))
    .orderBy(products.id);
  const found: ({ key: string; variant?: true } & StoredProduct)[] = rows.flatMap(({ skuKey, variantSkuKeys, ...row }) => {
    const stored = toStored(row, withRawData);
    return wanted.flatMap((key) => {
      // The SKU a page selects wins over another page's variant of it (a shop that saves a page per size lists every
      // size's SKU on each): only when no page selects it does a variant's SKU answer.
      if (key === skuKey) return [{ key, ...stored }];
      return variantSkuKeys.includes(key) ? [{ key, ...stored, variant: true }] : [];
    });
  });
  const selected = new Set(found.filter((row) => !row.variant).map((row) => row.key));
  return found.filter((row) => !row.variant || !selected.has(row.key)).map(({ variant: _variant, ...row }) => row);
}

/** Products by id, gone ones included, in the order of `ids` (ids not found are left out). */
/**
 * Each row's raw data, read one product at a time, a turn of the event loop apart. Why not in the rows' query: a page
 * of 30 records with ~1 MB of raw data each was one 30 MB read, which embedded PGlite (in this thread) decodes and
 * parses in one go, holding every other request up for hundreds of milliseconds (issue 47); one product's raw data at
 * a time lets them through in between. A product changed between the reads is answered with its newer raw data.
 */
async function addRawData(db: DbOrTx, rows: Row[], maxBytes: number): Promise<void> {
  let bytes = 0;
  for (const row of rows) {
    await setImmediate();
    const [found] = await db.select({ rawData: products.rawData }).from(products).where(eq(products.id, row.id)).limit(1);
    row.rawData = found?.rawData ?? null;
    // The raw data alone is already more than the answer may hold: refused before the rest is read or anything built.
    bytes += jsonSize(row.rawData, maxBytes - bytes);
    if (bytes > maxBytes) throw new RequestError("answer_too_large", rawDataTooLarge(maxBytes));
  }
}

function rawDataTooLarge(maxBytes: number): string {
  return (
    `The raw data of the products asked for is over ${(maxBytes / 1_048_576).toFixed(1)} MB of JSON, more than this answer may still hold (ANSWER_MAX_BYTES); ` +
    "it was refused before the rest was read. Ask for less: leave out include_raw_data, or ask for fewer products (limit)."
  );
}

/** `rawDataMaxBytes`: raw data past this many bytes is refused (`answer_too_large`) before more is read. */
export async function findStoredByIds(
  db: DbOrTx,
  ids: readonly string[],
  withRawData: boolean,
  where?: SQL,
  rawDataMaxBytes = Number.POSITIVE_INFINITY,
): Promise<StoredProduct[]> {
  if (ids.length === 0) return [];
  const rows: Row[] = await db
    .select(recordColumns)
    .from(products)
    .where(and(inArray(products.id, [...ids]), where));
  if (withRawData) await addRawData(db, rows, rawDataMaxBytes);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toStored(row, withRawData)] : [];
  });
}

/** Products that are there (not gone) by id, in the order of `ids` (ids not found are left out). */
export async function findProductsByIds(db: DbOrTx, ids: readonly string[], withRawData: boolean, rawDataMaxBytes?: number): Promise<Product[]> {
  return (await findStoredByIds(db, ids, withRawData, isNull(products.goneAt), rawDataMaxBytes)).map((stored) => stored.product);
}

/** Products that are there (gone ones are not counted). */
/** The JSON-LD each product's page stated (raw_data.jsons.ld_json), without reading the rest of its raw data over the wire. */
export async function findJsonLd(db: DbOrTx, ids: readonly string[]): Promise<Map<string, unknown>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: products.id, ldJson: sql<unknown>`${products.rawData}->'jsons'->'ld_json'` })
    .from(products)
    .where(inArray(products.id, [...ids]));
  return new Map(rows.map((row) => [row.id, row.ldJson]));
}

/** Counted in the facets mirror, whose narrow rows read ~2.5× faster than the products' (70 against 176 ms at 100,000). */
export async function countProducts(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(productFacets).where(isNull(productFacets.goneAt));
  return row?.n ?? 0;
}

export async function countGoneProducts(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: count() }).from(products).where(isNotNull(products.goneAt));
  return row?.n ?? 0;
}

export async function countBrandHosts(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: countDistinct(products.brandHost) })
    .from(products)
    .where(isNull(products.goneAt));
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
): Promise<{ id: string; urlKey: string; contentHash: string; goneAt: Date | null }[]> {
  if (ids.length === 0 && urlKeys.length === 0) return [];
  return db
    .select({ id: products.id, urlKey: products.urlKey, contentHash: products.contentHash, goneAt: products.goneAt })
    .from(products)
    .where(sql`${equalsAny(products.id, ids)} or ${equalsAny(products.urlKey, urlKeys)}`);
}

/** Where a product's page was last fetched from and what it answered: stored with each fetched record. */
export interface PageValidators {
  fetchUrl: string;
  fetchKey: string;
  etag: string | null;
  lastModified: string | null;
}

/** What a fetch needs of the product a URL already is (found by its page URL or the URL it was fetched from). */
export interface FetchState {
  id: string;
  urlKey: string;
  fetchKey: string | null;
  /** Where to fetch it: where it was last fetched from, else its page URL. */
  target: string;
  etag: string | null;
  lastModified: string | null;
  checkedAt: Date;
  /** `checked_at` as Postgres writes it, to the microsecond (a Date keeps milliseconds): where a page of refresh ends. */
  checkedText: string;
  goneAt: Date | null;
}

const fetchStateColumns = {
  id: products.id,
  urlKey: products.urlKey,
  fetchKey: products.fetchKey,
  target: sql<string>`coalesce(${products.fetchUrl}, ${products.url})`,
  etag: products.etag,
  lastModified: products.lastModified,
  checkedAt: products.checkedAt,
  checkedText: sql<string>`${products.checkedAt}::text`,
  goneAt: products.goneAt,
};

/** The products these URL keys are, by page URL or by the URL they were fetched from. */
export async function findFetchStates(db: DbOrTx, keys: readonly string[]): Promise<FetchState[]> {
  if (keys.length === 0) return [];
  return db
    .select(fetchStateColumns)
    .from(products)
    .where(or(inArray(products.urlKey, [...keys]), inArray(products.fetchKey, [...keys])));
}

/**
 * Products at `host`, for `catalog refresh --brand`: by their own site (`brand_host`, from the page's canonical URL)
 * or by the host their page is fetched from (the URL refresh fetches: where it was last fetched from, else its page
 * URL), which differ when a shop serves its pages from another host; port left out, as brand scopes leave it.
 */
function atHost(host: string | undefined): SQL | undefined {
  if (host === undefined) return undefined;
  const fetchedFrom = sql`regexp_replace(split_part(split_part(coalesce(${products.fetchKey}, ${products.urlKey}), '/', 1), '?', 1), ':[0-9]+$', '')`;
  return or(eq(products.brandHost, host), sql`${fetchedFrom} = ${host}`);
}

/** How many products are at `host` (`atHost`), checked whenever: a refresh that matched nothing says which it was. */
export async function countAtHost(db: DbOrTx, host: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(products).where(atHost(host));
  return row?.n ?? 0;
}

/**
 * Products last checked before `before` (oldest first, then by id), after `from` in that order: what
 * `catalog refresh` re-fetches, a page at a time. Gone products are included: a later 200 brings one back.
 */
export async function productsCheckedBefore(
  db: DbOrTx,
  params: { before: Date; brandHost?: string; limit: number; from?: { checkedText: string; id: string } },
): Promise<FetchState[]> {
  const { before, brandHost, limit, from } = params;
  return db
    .select(fetchStateColumns)
    .from(products)
    .where(
      and(
        lt(products.checkedAt, before),
        atHost(brandHost),
        from ? sql`(${products.checkedAt}, ${products.id}) > (${from.checkedText}::timestamptz, ${from.id})` : undefined,
      ),
    )
    .orderBy(asc(products.checkedAt), asc(products.id))
    .limit(limit);
}

/** The database's clock: `checked_at` is written by it, so bounds compared with it are read from it. */
export async function databaseNow(db: DbOrTx): Promise<Date> {
  const [row] = await db.select({ ms: sql<number>`(extract(epoch from now()) * 1000)::float8` }).from(sql`(select 1) as one`);
  return new Date(Math.floor(Number(row?.ms)));
}

export async function countCheckedBefore(db: DbOrTx, before: Date, brandHost?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(products)
    .where(and(lt(products.checkedAt, before), atHost(brandHost)));
  return row?.n ?? 0;
}

/** A row to upsert, with the validators of the fetch it came from (none for a file import). */
export type UpsertRow = NewProductRow & { validators?: PageValidators };

/**
 * Writes records whose content changed (or that are new). The page was read now, so `fetched_at`, `checked_at` and
 * `updated_at` move, and a gone product is back. A file import clears the validators (they no longer describe the
 * stored content) and keeps where the page was fetched from; a fetch stores its own.
 */
export async function upsertProducts(db: DbOrTx, rows: readonly UpsertRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insert(products).values(rows.map(storedRow)).onConflictDoUpdate({ target: products.id, set: UPSERT_SET });
}

/** An upsert's row as stored: its fetch's validators in their columns (none for a file import). */
export function storedRow({ validators, ...row }: UpsertRow): NewProductRow {
  return {
    ...row,
    fetchUrl: validators?.fetchUrl ?? null,
    fetchKey: validators?.fetchKey ?? null,
    etag: validators?.etag ?? null,
    lastModified: validators?.lastModified ?? null,
  };
}

/** What an upsert of a product already stored writes (a bulk load's upsert too: catalog/bulk.ts). */
export const UPSERT_SET = {
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
  variantSkuKeys: sql`excluded.variant_sku_keys`,
  kind: sql`excluded.kind`,
  audience: sql`excluded.audience`,
  ageFromMonths: sql`excluded.age_from_months`,
  ageToMonths: sql`excluded.age_to_months`,
  species: sql`excluded.species`,
  size: sql`excluded.size`,
  colours: sql`excluded.colours`,
  materials: sql`excluded.materials`,
  lang: sql`excluded.lang`,
  searchLang: sql`excluded.search_lang`,
  derivedVersion: sql`excluded.derived_version`,
  contentHash: sql`excluded.content_hash`,
  embedding: sql`excluded.embedding`,
  embeddingModel: sql`excluded.embedding_model`,
  // The group is not written here: an update keeps its group until matching moves it.
  matchKeys: sql`excluded.match_keys`,
  matchedWith: sql`excluded.matched_with`,
  fetchedAt: sql`now()`,
  checkedAt: sql`now()`,
  goneAt: sql`null`,
  fetchUrl: sql`coalesce(excluded.fetch_url, ${products.fetchUrl})`,
  fetchKey: sql`coalesce(excluded.fetch_key, ${products.fetchKey})`,
  etag: sql`excluded.etag`,
  lastModified: sql`excluded.last_modified`,
  updatedAt: sql`now()`,
} satisfies Partial<Record<keyof NewProductRow, SQL>>;

/**
 * A product whose page was confirmed unchanged: `read` when its page was read whole (a 200 with the same content, or
 * an import), false for a 304; `validators` from a fetch replace the stored ones. Content and `updated_at` stay.
 */
export interface Confirmation {
  id: string;
  read: boolean;
  validators?: PageValidators;
}

/** Moves `checked_at` (and `fetched_at` for pages read whole) of products confirmed unchanged: one statement for all. */
export async function confirmProducts(db: DbOrTx, confirmations: readonly Confirmation[]): Promise<void> {
  if (confirmations.length === 0) return;
  const rows = confirmations.map(({ id, read, validators }) => ({
    id,
    read,
    fetch_url: validators?.fetchUrl ?? null,
    fetch_key: validators?.fetchKey ?? null,
    etag: validators?.etag ?? null,
    last_modified: validators?.lastModified ?? null,
    fetched: validators !== undefined,
  }));
  await db.execute(sql`
    update ${products} set
      checked_at = now(),
      fetched_at = case when v.read then now() else ${products.fetchedAt} end,
      fetch_url = case when v.fetched then v.fetch_url else ${products.fetchUrl} end,
      fetch_key = case when v.fetched then v.fetch_key else ${products.fetchKey} end,
      etag = case when v.fetched then v.etag else ${products.etag} end,
      last_modified = case when v.fetched then v.last_modified else ${products.lastModified} end
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as v(id text, read boolean, fetch_url text, fetch_key text, etag text, last_modified text, fetched boolean)
    where ${products.id} = v.id`);
}

/** Brings gone products back (their page answered again); answers the ids that were gone. */
export async function restoreProducts(db: DbOrTx, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(products)
    .set({ goneAt: null })
    .where(and(inArray(products.id, [...ids]), isNotNull(products.goneAt)))
    .returning({ id: products.id });
  return rows.map((row) => row.id);
}

/** Marks products gone (their page answered 404 or 410) and checked now; answers the ids that were not gone before. */
export async function markGone(db: DbOrTx, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(products)
    .set({ goneAt: sql`now()`, checkedAt: sql`now()` })
    .where(and(inArray(products.id, [...ids]), isNull(products.goneAt)))
    .returning({ id: products.id });
  await db
    .update(products)
    .set({ checkedAt: sql`now()` })
    .where(and(inArray(products.id, [...ids]), isNotNull(products.goneAt)));
  return rows.map((row) => row.id);
}

/**
 * The change feed's step, the last writes of every transaction that changes products' records or whether they
 * are gone (with bumpCatalogVersion, see `commitChanges`).
 *
 * Why a lock: the feed promises that a client which has read up to position N has seen, or will never see, any
 * change numbered N or less. A number drawn inside a transaction (a sequence, a clock) does not keep that promise on
 * Postgres when writers overlap: A draws 5, B draws 6, B commits, a reader sees 6 and moves past it, then A commits
 * 5 behind the reader's back. So the numbering is serialised: `lock table … in exclusive mode` (which plain reads
 * do not wait for) makes each writer wait until the one before has committed, and it numbers its products after
 * the highest committed number. The lock is released only once the transaction is visible, so numbers become
 * visible in the order they were given. Taken last, after the products are written, it holds writers back only for
 * this one statement and their commit; concurrent imports still embed and upsert in parallel.
 */
export async function recordChanges(db: DbOrTx, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`lock table ${productChanges} in exclusive mode`);
  await db.execute(sql`
    insert into ${productChanges} (product_id, seq)
    select u.id, (select coalesce(max(seq), 0) from ${productChanges}) + u.n
    from unnest(${sql`array[${sql.join(
      [...new Set(ids)].map((id) => sql`${id}`),
      sql`, `,
    )}]::text[]`}) with ordinality as u(id, n)
    on conflict (product_id) do update set seq = excluded.seq`);
}

/** What a transaction that changed these products writes last: their places in the feed, and the catalog's version. */
export async function commitChanges(db: DbOrTx, ids: readonly string[]): Promise<void> {
  await recordChanges(db, ids);
  await bumpCatalogVersion(db);
}

/** One entry of the change feed: a product as it is now, at the position of its latest change. */
export interface ChangeRow {
  seq: number;
  id: string;
  updatedAt: Date;
  goneAt: Date | null;
}

/** Up to `limit` feed entries after position `since`, in position (so commit) order. */
export async function changesSince(db: DbOrTx, since: number, limit: number): Promise<ChangeRow[]> {
  return db
    .select({ seq: productChanges.seq, id: products.id, updatedAt: products.updatedAt, goneAt: products.goneAt })
    .from(productChanges)
    .innerJoin(products, eq(products.id, productChanges.productId))
    .where(gt(productChanges.seq, since))
    .orderBy(asc(productChanges.seq))
    .limit(limit);
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

/** `read`, read again only when the catalog's version moved since its last read (each call reads the version: one row). */
export function perCatalogVersion<T>(db: DbOrTx, read: () => Promise<T>): () => Promise<T> {
  let current: { value: T; version: string | null } | undefined;
  return async () => {
    const version = await catalogVersion(db);
    if (current?.version !== version) current = { value: await read(), version };
    return current.value;
  };
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

export async function deleteMeta(db: DbOrTx, key: string): Promise<void> {
  await db.delete(catalogMeta).where(eq(catalogMeta.key, key));
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
