/** Product lookups: by id, by PDP URL, by GTIN, by SKU, and many at once. */
import { parseGtin } from "../../shared/gtin.js";
import type { LookupInput, LookupResult, Product } from "../../shared/schemas/index.js";
import { brandHost, productUrlKey } from "../../shared/url.js";
import { LruCache } from "../cache.js";
import type { Database } from "../db/client.js";
import {
  catalogVersion,
  countBrandHosts,
  countProducts,
  embeddingModels,
  findProductById,
  findProductByUrlKey,
  findProductsByGtin14,
  findProductsByIds,
  findProductsBySku,
  findProductsByUrlKeys,
  findJsonLd,
} from "./repository.js";
import { type CatalogVariant, variantsFromJsonLd } from "./variants.js";

/** One lookup's outcome: the product and how it was matched, or why there is none. */
export type Lookup = Pick<LookupResult, "match" | "reason"> & { product: Product | null };

export interface CatalogService {
  byId(id: string, withRawData: boolean): Promise<Product | null>;
  /** Looks the URL up by its normalised key (see shared/url.ts). */
  byUrl(url: string, withRawData: boolean): Promise<Product | null>;
  /** Looks a GTIN up in any of its forms (a UPC-A finds the product stored under its EAN-13, and the other way). */
  byGtin(gtin: string, withRawData: boolean): Promise<Product | null>;
  /** Many lookups at once (ids, URLs, GTINs, SKUs), answered one each, in order, with a few queries for all. */
  lookup(inputs: readonly LookupInput[], withRawData: boolean): Promise<Lookup[]>;
  /**
   * Each product's variants as its page states them (a ProductGroup's `hasVariant`; none otherwise), by id.
   * Read from the page's JSON-LD, not the rest of its raw data, and kept with the product cache.
   */
  variants(ids: readonly string[]): Promise<Map<string, CatalogVariant[]>>;
  stats(): Promise<{ products: number; brands: number }>;
  /** Which embedding models made the stored vectors (one, unless a reindex is under way). */
  embeddingModels(): Promise<string[]>;
  /**
   * Forgets cached products if the catalog changed since the last call (any
   * process's import bumps its version). The server calls it every second.
   */
  syncCache(): Promise<void>;
}

/** How long a cached product is served even if the catalog's version cannot be read (database down). */
const STALE_BOUND_MS = 60_000;

/**
 * The catalog is read far more often than it is imported, so products (without
 * raw_data, which is large and rarely asked for) are served from a bounded
 * cache, dropped whenever the catalog's version changes. Misses, absent
 * products and raw_data reads go to the database.
 */
export function createCatalogService(deps: {
  db: Database;
  /** Products kept (PRODUCT_CACHE_SIZE); 0 turns the cache off. */
  cacheSize: number;
  now?: () => number;
}): CatalogService {
  const { db } = deps;
  const cacheOptions = { ttlMs: STALE_BOUND_MS, ...(deps.now ? { now: deps.now } : {}) };
  const byId = new LruCache<string, Product>(deps.cacheSize, cacheOptions);
  const byUrlKey = new LruCache<string, Product>(deps.cacheSize, cacheOptions);
  // Derived from the page's JSON-LD once, not per answer: the JSON is read (and parsed) only on a miss.
  const variantsById = new LruCache<string, CatalogVariant[]>(deps.cacheSize, cacheOptions);
  let version: string | null | undefined;
  // Bumped when the caches are dropped: a read that started before is not cached after.
  let generation = 0;

  async function cached(cache: LruCache<string, Product>, key: string, withRawData: boolean, read: () => Promise<Product | null>) {
    if (withRawData) return read();
    const hit = cache.get(key);
    if (hit) return hit;
    const readingIn = generation;
    const product = await read();
    if (product && readingIn === generation) cache.set(key, product);
    return product;
  }

  return {
    byId: (id, withRawData) => cached(byId, id, withRawData, () => findProductById(db, id, withRawData)),
    byUrl: async (url, withRawData) => {
      const key = productUrlKey(url);
      return key ? cached(byUrlKey, key, withRawData, () => findProductByUrlKey(db, key, withRawData)) : null;
    },
    byGtin: async (gtin, withRawData) => {
      const parsed = parseGtin(gtin);
      if (!parsed.ok) return null;
      const [found] = await findProductsByGtin14(db, [parsed.gtin14], withRawData);
      return found?.product ?? null;
    },
    lookup: (inputs, withRawData) => lookupAll(db, inputs, withRawData),
    variants: async (ids) => {
      const found = new Map<string, CatalogVariant[]>();
      const missing: string[] = [];
      for (const id of new Set(ids)) {
        const hit = variantsById.get(id);
        if (hit) found.set(id, hit);
        else missing.push(id);
      }
      const readingIn = generation;
      for (const [id, ldJson] of await findJsonLd(db, missing)) {
        const variants = variantsFromJsonLd(ldJson);
        found.set(id, variants);
        if (readingIn === generation) variantsById.set(id, variants);
      }
      return found;
    },
    stats: async () => ({ products: await countProducts(db), brands: await countBrandHosts(db) }),
    embeddingModels: () => embeddingModels(db),
    syncCache: async () => {
      const current = await catalogVersion(db);
      if (current === version) return;
      version = current;
      generation++;
      byId.clear();
      byUrlKey.clear();
      variantsById.clear();
    },
  };
}

async function lookupAll(db: Database, inputs: readonly LookupInput[], withRawData: boolean): Promise<Lookup[]> {
  const ids = inputs.flatMap((input) => ("id" in input ? [input.id] : []));
  const urlKeys = inputs.flatMap((input) => ("url" in input ? [productUrlKey(input.url) ?? ""] : []));
  const gtins = inputs.flatMap((input) => {
    if (!("gtin" in input)) return [];
    const parsed = parseGtin(input.gtin);
    return parsed.ok ? [parsed.gtin14] : [];
  });
  // SKUs are looked up per merchant scope: one query per distinct brand_url, usually one.
  const skuScopes = new Map<string, string[]>();
  for (const input of inputs) {
    if (!("sku" in input)) continue;
    const scope = input.brand_url === undefined ? "" : (brandHost(input.brand_url) ?? "");
    skuScopes.set(scope, [...(skuScopes.get(scope) ?? []), input.sku.toLowerCase()]);
  }
  const [byId, byUrl, byGtin, ...bySku] = await Promise.all([
    findProductsByIds(db, ids, withRawData),
    findProductsByUrlKeys(db, urlKeys, withRawData),
    findProductsByGtin14(db, gtins, withRawData),
    ...[...skuScopes].map(([scope, skus]) => findProductsBySku(db, skus, withRawData, scope || undefined)),
  ]);
  const many = <T extends { key: string }>(rows: readonly T[]) => {
    const grouped = new Map<string, T[]>();
    for (const row of rows) grouped.set(row.key, [...(grouped.get(row.key) ?? []), row]);
    return grouped;
  };
  const idMap = new Map(byId.map((product) => [product.id, product]));
  const urlMap = many(byUrl);
  const gtinMap = many(byGtin);
  const skuMaps = new Map([...skuScopes.keys()].map((scope, index) => [scope, many(bySku[index] ?? [])]));
  const none: Lookup = { product: null, reason: "not_found" };
  const one = (rows: readonly { product: Product }[] | undefined, match: Lookup["match"]): Lookup => {
    if (!rows || rows.length === 0) return none;
    if (rows.length > 1) return { product: null, reason: "ambiguous" };
    return { product: rows[0]!.product, match };
  };
  return inputs.map((input): Lookup => {
    if ("id" in input) {
      const product = idMap.get(input.id);
      return product ? { product, match: "id" } : none;
    }
    if ("url" in input) {
      const rows = urlMap.get(productUrlKey(input.url) ?? "");
      const found = one(rows, "url_normalized");
      return found.product?.url === input.url ? { ...found, match: "url" } : found;
    }
    if ("gtin" in input) {
      const parsed = parseGtin(input.gtin);
      if (!parsed.ok) return none;
      const found = one(gtinMap.get(parsed.gtin14), "gtin14");
      const stored = found.product?.identifiers?.gtin;
      return stored && stored === parsed.digits ? { ...found, match: "gtin" } : found;
    }
    const scope = input.brand_url === undefined ? "" : (brandHost(input.brand_url) ?? "");
    return one(skuMaps.get(scope)?.get(input.sku.toLowerCase()), "sku");
  });
}
