import { refreshedEvery } from "../cache.js";
import { countProducts } from "../catalog/repository.js";
import type { Database } from "../db/client.js";

/** How many products the catalog holds, counted at most once per `ttlMs` (see refreshedEvery). */
export function catalogSizeEvery(db: Database, ttlMs: number, now?: () => number): () => Promise<number> {
  return refreshedEvery(() => countProducts(db), ttlMs, now);
}
