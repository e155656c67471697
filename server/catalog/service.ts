/** Product lookups: by id, by PDP URL, by GTIN, by SKU, and many at once. */
import { parseGtin } from "../../shared/gtin.js";
import type { ChangesResponse, LookupInput, LookupResult, Product } from "../../shared/schemas/index.js";
import { brandHost, productUrlKey } from "../../shared/url.js";
import { LruCache } from "../cache.js";
import type { Database } from "../db/client.js";
import { goneError } from "../errors.js";
import {
  catalogVersion,
  changesSince,
  countBrandHosts,
  countGoneProducts,
  countProducts,
  embeddingModels,
  findProductById,
  findProductByUrlKey,
  findProductsByGtin14,
  findProductsBySku,
  findProductsByUrlKeys,
  findStoredByIds,
  type StoredProduct,
  findJsonLd,
} from "./repository.js";
import { type CatalogVariant, variantsFromJsonLd } from "./variants.js";

/** One lookup's outcome: the product and how it was matched, or why there is none (and, when gone, since when). */
export type Lookup = Pick<LookupResult, "match" | "reason"> & {
  product: Product | null;
  goneAt?: Date;
  /** With `reason: ambiguous`, the products that matched, by id. */
  candidates?: Product[];
};

/**
 * Lookups answer null for what the catalog never had, and throw a `gone` RequestError (410, saying when) for a
 * product whose page was withdrawn; a later fetch that finds the page brings it back.
 */
export interface CatalogService {
  byId(id: string, withRawData: boolean): Promise<Product | null>;
  /** Looks the URL up by its normalised key (see shared/url.ts). */
  byUrl(url: string, withRawData: boolean): Promise<Product | null>;
  /** Looks a GTIN up in any of its forms (a UPC-A finds the product stored under its EAN-13, and the other way). */
  byGtin(gtin: string, withRawData: boolean): Promise<Product | null>;
  /** Many lookups at once (ids, URLs, GTINs, SKUs), answered one each, in order, with a few queries for all. */
  /** `rawDataMaxBytes`: the raw data of the lookups by id past it is refused (`answer_too_large`) before more is read. */
  lookup(inputs: readonly LookupInput[], withRawData: boolean, rawDataMaxBytes?: number): Promise<Lookup[]>;
  /**
   * Each product's variants as its page states them (a ProductGroup's `hasVariant`; none otherwise), by id.
   * Read from the page's JSON-LD, not the rest of its raw data, and kept with the product cache.
   */
  variants(ids: readonly string[]): Promise<Map<string, CatalogVariant[]>>;
  stats(): Promise<{ products: number; brands: number; gone: number }>;
  /**
   * The change feed after position `since` (0: from the start), at most `limit` entries, in commit order; see
   * repository.ts `recordChanges` for why the order holds with concurrent writers.
   */
  changes(since: number, limit: number): Promise<ChangesResponse>;
  /** Which embedding models made the stored vectors (one, unless a reindex is under way). */
  embeddingModels(): Promise<string[]>;
  /**
   * Forgets cached products if the catalog changed since the last call (any
   * process's import bumps its version). The server calls it every second.
   */
  syncCache(): Promise<void>;
  /** The catalog's version as of the last syncCache (what this process's caches agree with); undefined before the first. */
  version(): string | null | undefined;
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
  /**
   * The primary, for the change feed: replicas taken in turn could show a client a later change on one and
   * then, on a replica that lags, not yet an earlier one the client's cursor has already passed.
   */
  primary: Database;
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

  /** Only products that are there are cached: a gone one is read each time (and the import that marks it drops the cache). */
  async function cached(cache: LruCache<string, Product>, key: string, withRawData: boolean, read: () => Promise<StoredProduct | null>) {
    if (!withRawData) {
      const hit = cache.get(key);
      if (hit) return hit;
    }
    const readingIn = generation;
    const stored = await read();
    if (!stored) return null;
    if (stored.goneAt) throw goneError(`Product ${stored.product.id}`, stored.goneAt);
    if (!withRawData && readingIn === generation) cache.set(key, stored.product);
    return stored.product;
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
      const found = await findProductsByGtin14(db, [parsed.gtin14], withRawData);
      const live = found.find((stored) => !stored.goneAt);
      if (live) return live.product;
      const gone = found[0];
      if (gone?.goneAt) throw goneError(`Product ${gone.product.id}`, gone.goneAt);
      return null;
    },
    lookup: (inputs, withRawData, rawDataMaxBytes) => lookupAll(db, inputs, withRawData, rawDataMaxBytes),
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
    changes: async (since, limit) => {
      const rows = await changesSince(deps.primary, since, limit);
      return {
        changes: rows.map((row) =>
          row.goneAt
            ? { id: row.id, change: "gone" as const, gone_at: row.goneAt.toISOString() }
            : { id: row.id, change: "upserted" as const, updated_at: row.updatedAt.toISOString() },
        ),
        next_cursor: String(rows.at(-1)?.seq ?? since),
      };
    },
    stats: async () => ({ products: await countProducts(db), brands: await countBrandHosts(db), gone: await countGoneProducts(db) }),
    embeddingModels: () => embeddingModels(db),
    version: () => version,
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

/**
 * Whether a key can be stored at all. Postgres refuses NUL in text, in a query's parameters too, and imports strip it
 * (ingest/sanitize.ts): a SKU holding one matches nothing, so it is not sent. (A URL's key never holds one: the URL parser
 * percent-encodes it.)
 */
const storable = (key: string) => !key.includes("\u0000");

async function lookupAll(db: Database, inputs: readonly LookupInput[], withRawData: boolean, rawDataMaxBytes?: number): Promise<Lookup[]> {
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
    if (!("sku" in input) || !storable(input.sku)) continue;
    const scope = input.brand_url === undefined ? "" : (brandHost(input.brand_url) ?? "");
    skuScopes.set(scope, [...(skuScopes.get(scope) ?? []), input.sku.toLowerCase()]);
  }
  const [byId, byUrl, byGtin, ...bySku] = await Promise.all([
    findStoredByIds(db, ids, withRawData, undefined, rawDataMaxBytes),
    findProductsByUrlKeys(db, urlKeys, withRawData),
    findProductsByGtin14(db, gtins, withRawData),
    ...[...skuScopes].map(([scope, skus]) => findProductsBySku(db, skus, withRawData, scope || undefined)),
  ]);
  // A gone product answers for a key only when no product that is there does (a GTIN a new product took over).
  const many = <T extends { key: string } & StoredProduct>(rows: readonly T[]) => {
    const grouped = new Map<string, T[]>();
    for (const row of rows) grouped.set(row.key, [...(grouped.get(row.key) ?? []), row]);
    for (const [key, group] of grouped) {
      const live = group.filter((row) => !row.goneAt);
      grouped.set(key, live.length > 0 ? live : group.slice(0, 1));
    }
    return grouped;
  };
  const idMap = new Map(byId.map((stored) => [stored.product.id, stored]));
  const urlMap = many(byUrl);
  const gtinMap = many(byGtin);
  const skuMaps = new Map([...skuScopes.keys()].map((scope, index) => [scope, many(bySku[index] ?? [])]));
  const none: Lookup = { product: null, reason: "not_found" };
  const stored = (found: StoredProduct, match: Lookup["match"]): Lookup =>
    found.goneAt ? { product: null, reason: "gone", goneAt: found.goneAt } : { product: found.product, match };
  const one = (rows: readonly StoredProduct[] | undefined, match: Lookup["match"]): Lookup => {
    if (!rows || rows.length === 0) return none;
    if (rows.length > 1) return { product: null, reason: "ambiguous", candidates: rows.map((row) => row.product) };
    return stored(rows[0]!, match);
  };
  return inputs.map((input): Lookup => {
    if ("id" in input) {
      const found = idMap.get(input.id);
      return found ? stored(found, "id") : none;
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
