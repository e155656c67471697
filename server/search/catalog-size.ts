import type { Database } from "../db/client.js";
import { countProducts } from "../catalog/repository.js";

/**
 * How many products the catalog holds, counted at most once per `ttlMs`
 * (a count of a large catalog is not free, and it changes only with
 * imports). Concurrent callers share the count in flight; a failed count is
 * not kept, so the next caller counts again.
 */
export function catalogSizeEvery(db: Database, ttlMs: number, now: () => number = () => performance.now()): () => Promise<number> {
  let last: { count: Promise<number>; at: number } | null = null;
  return () => {
    const at = now();
    if (!last || at - last.at > ttlMs) {
      const entry = { count: countProducts(db), at };
      entry.count.catch(() => {
        if (last === entry) last = null;
      });
      last = entry;
    }
    return last.count;
  };
}
