/**
 * Per-key rate limits for every API answer (REST, /trpc, /health): one
 * onRequest hook verifies the key once, charges the request's cost and either
 * lets it through or answers 429. The verification is kept on the request, so
 * the tRPC context and /health reuse it instead of verifying again.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers (the RateLimit-Policy /
 * RateLimit pair, structured-field syntax of revisions -08 to -11):
 *   RateLimit-Policy: "default";q=600;w=60
 *   RateLimit: "default";r=598;t=42
 * Answers to requests without a valid key carry neither: nothing was charged.
 */
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { Services } from "../../services.js";
import { keyFromAuthorization } from "../../auth/keys.js";
import type { VerifyResult } from "../../auth/service.js";
import {
  consumeRateLimit,
  createBatchedRateLimitStore,
  createMemoryRateLimitStore,
  RATE_LIMIT_COSTS,
  type RateLimitDecision,
  type RateLimitStore,
} from "../../auth/ratelimit.js";
import { isDatabaseUnavailable } from "../../db/errors.js";
import { problem } from "../problems.js";
import { sendProblem } from "./errors.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The key verification for this request, once the rate-limit hook has made it. */
    keyVerification: VerifyResult | null;
    /** Why a /trpc request is over its key's limit; the context refuses it in tRPC's own error shape. */
    rateLimitExceeded: string | null;
  }
  interface FastifyInstance {
    /**
     * Charges the request's key `cost` more units, for a price only the body shows (an MCP tool
     * call); resolves to the reply when that spends the limit and a 429 has been sent.
     */
    chargeRateLimit(request: FastifyRequest, reply: FastifyReply, cost: number): Promise<FastifyReply | undefined>;
  }
}

/** The part of pino's logger (which buildApp gives Fastify) that FastifyBaseLogger leaves out. */
type PinoChild = FastifyBaseLogger & { setBindings(bindings: Record<string, unknown>): void };

export interface RateLimitOptions {
  /** Cost units per minute for keys without their own limit. */
  perMinute?: number;
  /** `database` (default): shared by every server on the database; `memory`: this process only. */
  store?: "database" | "memory" | RateLimitStore;
  /**
   * With the database store: how often each key's count is added to the shared counter
   * (see createBatchedRateLimitStore); 0 writes every request, exact but a write each.
   */
  syncMs?: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now?: () => number;
}

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_RATE_LIMIT_SYNC_MS = 250;

/**
 * RATE_LIMIT_STORE=auto: counters in the database when it can be shared (a Postgres URL: other
 * servers may use it too), in memory on embedded PGlite, whose data dir one process owns, so a
 * shared counter buys nothing there and would cost a write per request.
 */
export function resolveRateLimitStore(setting: "auto" | "database" | "memory", databaseKind: "pglite" | "postgres"): "database" | "memory" {
  if (setting !== "auto") return setting;
  return databaseKind === "postgres" ? "database" : "memory";
}
const POLICY = '"default"';

/** A request's cost: searches cost more than lookups; a tRPC batch costs the sum of its calls. */
export function requestCost(url: string): number {
  const path = url.split("?", 1)[0] ?? "";
  if (path.startsWith("/trpc/")) {
    const procedures = safeDecode(path.slice("/trpc/".length)).split(",");
    return procedures.reduce((sum, name) => sum + (name === "products.search" ? RATE_LIMIT_COSTS.search : RATE_LIMIT_COSTS.lookup), 0);
  }
  return /\/products\/search\/?$/.test(path) ? RATE_LIMIT_COSTS.search : RATE_LIMIT_COSTS.lookup;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // a malformed escape: tRPC will refuse the path; it still costs a lookup
  }
}

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    "ratelimit-policy": `${POLICY};q=${decision.limit};w=${decision.windowSeconds}`,
    ratelimit: `${POLICY};r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

function chooseStore(opts: { services: Services } & RateLimitOptions, now: () => number): RateLimitStore {
  if (opts.store === "memory") return createMemoryRateLimitStore();
  if (opts.store !== undefined && opts.store !== "database") return opts.store;
  const syncMs = opts.syncMs ?? DEFAULT_RATE_LIMIT_SYNC_MS;
  const shared = opts.services.keys.rateLimitStore;
  return syncMs > 0 ? createBatchedRateLimitStore(shared, { syncMs, now }) : shared;
}

const plugin: FastifyPluginAsync<{ services: Services } & RateLimitOptions> = async (app, opts) => {
  const perMinute = opts.perMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  const now = opts.now ?? Date.now;
  const store = chooseStore(opts, now);

  app.decorateRequest("keyVerification", null);
  app.decorateRequest("rateLimitExceeded", null);

  app.addHook("onRequest", async (request, reply) => {
    let verified: VerifyResult;
    try {
      verified = await opts.services.keys.verify(keyFromAuthorization(request.headers.authorization));
    } catch (error) {
      // The route answers 503 itself when the database is down.
      if (isDatabaseUnavailable(error)) return;
      throw error;
    }
    request.keyVerification = verified;
    // Every later line about this request names the key by id (never the key), "request completed" included:
    // reply.log is the same pino child, and adding a binding to it costs less than a child of its own.
    if (verified.code === "VALID") (request.log as PinoChild).setBindings({ key_id: verified.principal.keyId });
    return charge(request, reply, requestCost(request.url));
  });

  async function charge(request: FastifyRequest, reply: FastifyReply, cost: number): Promise<FastifyReply | undefined> {
    const verified = request.keyVerification;
    if (verified?.code !== "VALID") return;
    const { principal } = verified;
    let decision: RateLimitDecision;
    try {
      decision = await consumeRateLimit(store, {
        keyId: principal.keyId,
        limit: principal.rateLimitPerMinute ?? perMinute,
        cost,
        now: now(),
      });
    } catch (error) {
      // Fail open: a counter we cannot write must not take the API down with it.
      request.log.warn({ err: error }, "rate-limit counter unavailable; request not limited");
      return;
    }
    reply.headers(rateLimitHeaders(decision));
    if (!decision.allowed) {
      reply.header("retry-after", String(decision.resetSeconds));
      const detail = `This key's limit of ${decision.limit} units per minute is used up (a search costs ${RATE_LIMIT_COSTS.search}, a lookup ${RATE_LIMIT_COSTS.lookup}); retry in ${decision.resetSeconds} s.`;
      // tRPC clients expect tRPC's error shape: the context throws TOO_MANY_REQUESTS instead (see context.ts).
      if (request.url.startsWith("/trpc/")) {
        request.rateLimitExceeded = detail;
        return;
      }
      return sendProblem(reply, problem("rate_limited", detail, request.id));
    }
  }
  app.decorate("chargeRateLimit", charge);
};

export const rateLimitPlugin = fp(plugin, { name: "catalog-rate-limit", fastify: "5.x" });
