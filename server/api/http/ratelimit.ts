/**
 * Rate-limit plumbing for the HTTP gate (gate.ts): which counter store to use and
 * the headers of draft-ietf-httpapi-ratelimit-headers (the RateLimit-Policy /
 * RateLimit pair, structured-field syntax of revisions -08 to -11):
 *   RateLimit-Policy: "default";q=600;w=60
 *   RateLimit: "default";r=598;t=42
 */
import { createBatchedRateLimitStore, createMemoryRateLimitStore, type RateLimitDecision, type RateLimitStore } from "../../auth/ratelimit.js";

const POLICY = '"default"';

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "ratelimit-policy": `${POLICY};q=${decision.limit};w=${decision.windowSeconds}`,
    ratelimit: `${POLICY};r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/**
 * RATE_LIMIT_STORE=auto: counters in the database when it can be shared (a Postgres URL: other
 * servers may use it too), in memory on embedded PGlite, whose data dir one process owns, so a
 * shared counter buys nothing there and would cost a write per request.
 */
export function resolveRateLimitStore(setting: "auto" | "database" | "memory", databaseKind: "pglite" | "postgres"): "database" | "memory" {
  if (setting !== "auto") return setting;
  return databaseKind === "postgres" ? "database" : "memory";
}

/**
 * The counter store: this process's memory, or the shared database counters, written at most
 * every `syncMs` per key (see createBatchedRateLimitStore) or, with 0, on every request.
 */
export function rateLimitStore(options: { kind: "database" | "memory"; shared: RateLimitStore; syncMs: number; now: () => number }): RateLimitStore {
  if (options.kind === "memory") return createMemoryRateLimitStore();
  return options.syncMs > 0 ? createBatchedRateLimitStore(options.shared, { syncMs: options.syncMs, now: options.now }) : options.shared;
}
