/** Product lookups by id and by PDP URL. */
import type { Database } from "../db/client.js";
import { productUrlKey } from "../../shared/url.js";
import type { Product } from "../../shared/schemas/index.js";
import { countBrandHosts, countProducts, embeddingModels, findProductById, findProductByUrlKey } from "./repository.js";

export interface CatalogService {
  byId(id: string, withRawData: boolean): Promise<Product | null>;
  /** Looks the URL up by its normalised key (see shared/url.ts). */
  byUrl(url: string, withRawData: boolean): Promise<Product | null>;
  stats(): Promise<{ products: number; brands: number }>;
  /** Which embedding models made the stored vectors (one, unless a reindex is under way). */
  embeddingModels(): Promise<string[]>;
}

export function createCatalogService(deps: { db: Database }): CatalogService {
  const { db } = deps;
  return {
    byId: (id, withRawData) => findProductById(db, id, withRawData),
    byUrl: async (url, withRawData) => {
      const key = productUrlKey(url);
      return key ? findProductByUrlKey(db, key, withRawData) : null;
    },
    stats: async () => ({ products: await countProducts(db), brands: await countBrandHosts(db) }),
    embeddingModels: () => embeddingModels(db),
  };
}
