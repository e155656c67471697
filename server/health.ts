/** Liveness of the service and its database, for /health. */
import type { DatabaseHandle } from "./db/open.js";
import { ping } from "./db/open.js";
import { countProducts, perCatalogVersion } from "./catalog/repository.js";
import type { Health } from "../shared/schemas/index.js";
import { VERSION } from "./version.js";

export interface HealthService {
  check(): Promise<Health>;
}

/** /health must answer even when the database hangs. */
const DATABASE_DEADLINE_MS = 2_000;

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export function createHealthService(deps: { database: DatabaseHandle; clock?: () => number; worker?: number }): HealthService {
  const now = deps.clock ?? (() => performance.now());
  const started = now();
  const serving = { pid: process.pid, worker: deps.worker ?? null };
  // Counted again only when the catalog's version moved: a count reads every product's row (seconds at a million),
  // the version one row, and probes come every few seconds.
  const productCount = perCatalogVersion(deps.database.db, () => countProducts(deps.database.db));
  return {
    async check() {
      const begin = now();
      const base = { version: VERSION, uptime_s: Math.round((begin - started) / 1000), process: serving };
      try {
        const products = await withDeadline(ping(deps.database.db).then(productCount), DATABASE_DEADLINE_MS);
        const latency = Math.round((now() - begin) * 100) / 100;
        return { status: "ok", database: { kind: deps.database.kind, ok: true, latency_ms: latency }, products, ...base };
      } catch {
        return { status: "unavailable", database: { kind: deps.database.kind, ok: false, latency_ms: null }, products: null, ...base };
      }
    },
  };
}
