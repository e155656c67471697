/** Product lookups by id and by PDP URL. */
import type { Database } from "../db/client.js";
import { LruCache } from "../cache.js";
import { productUrlKey } from "../../shared/url.js";
import type { Product } from "../../shared/schemas/index.js";
import { catalogVersion, countBrandHosts, countProducts, embeddingModels, findProductById, findProductByUrlKey } from "./repository.js";

export interface CatalogService {
  byId(id: string, withRawData: boolean): Promise<Product | null>;
  /** Looks the URL up by its normalised key (see shared/url.ts). */
  byUrl(url: string, withRawData: boolean): Promise<Product | null>;
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
    stats: async () => ({ products: await countProducts(db), brands: await countBrandHosts(db) }),
    embeddingModels: () => embeddingModels(db),
    syncCache: async () => {
      const current = await catalogVersion(db);
      if (current === version) return;
      version = current;
      generation++;
      byId.clear();
      byUrlKey.clear();
    },
  };
}
