/**
 * The one gate in front of every keyed route. Policy is declared on the route
 * (`config.gate`, set from the operation table), never guessed from the URL: in
 * onRequest, before any body is read, it verifies the key, hands the principal
 * on as `request.principal`, and charges the route's cost. Routes without a
 * gate are public.
 *
 * A route whose cost depends on what the body or the path holds (a tRPC
 * batch, an MCP batch) declares `per-call` and charges through
 * `app.chargeRateLimit` once its calls are routed.
 *
 * Rate-limit headers follow draft-ietf-httpapi-ratelimit-headers (see ratelimit.ts);
 * answers to requests without a valid key carry none: nothing was charged.
 */
import type { FastifyBaseLogger, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { Problem } from "../../../shared/schemas/index.js";
import { keyFromAuthorization } from "../../auth/keys.js";
import { consumeRateLimit, type RateLimitDecision, type RateLimitStore } from "../../auth/ratelimit.js";
import { type KeyService, type Principal, VERIFY_FAILURE_MESSAGES } from "../../auth/service.js";
import { DatabaseShedError, isDatabaseUnavailable } from "../../db/errors.js";
import { problem } from "../problems.js";
import { sendProblem } from "./errors.js";
import { rateLimitHeaders } from "./ratelimit.js";

export interface GatePolicy {
  /** Units charged at the gate, or `per-call`: the route charges once it knows its calls. */
  cost: number | "per-call";
  /** How the route answers a refusal (401, 429, 503); problem+json unless given (tRPC refuses in its own shape). */
  refuse?: (request: FastifyRequest, reply: FastifyReply, problem: Problem) => Promise<FastifyReply> | FastifyReply;
  /** Also take the key from `X-API-Key` when `Authorization` is absent (the header UCP's REST binding names for a platform's key). */
  apiKeyHeader?: boolean;
}

const MISSING_WITH_API_KEY_HEADER = "An API key is required, in the Authorization header (the key, or Bearer <key>) or in X-API-Key.";

/** The key a request presents: `Authorization`, else (where the route takes it) `X-API-Key`. */
function presentedKey(request: FastifyRequest, gate: GatePolicy): string | null {
  const fromAuthorization = keyFromAuthorization(request.headers.authorization);
  if (fromAuthorization !== null || !gate.apiKeyHeader) return fromAuthorization;
  const header = request.headers["x-api-key"];
  return typeof header === "string" ? keyFromAuthorization(header) : null;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Present on keyed routes: the key is checked and `cost` charged before the body is read. */
    gate?: GatePolicy;
  }
  interface FastifyRequest {
    /** The verified caller on a gated route, once the gate let the request through. */
    principal: Principal | null;
  }
  interface FastifyInstance {
    /**
     * Charges the request's key `cost` units and sets the rate-limit headers on the reply; resolves
     * to the 429 problem when that spends the limit (with `Retry-After` set), or null.
     */
    chargeRateLimit(request: FastifyRequest, reply: FastifyReply, cost: number): Promise<Problem | null>;
  }
}

/** The part of pino's logger (which buildApp gives Fastify) that FastifyBaseLogger leaves out. */
type PinoChild = FastifyBaseLogger & { setBindings(bindings: Record<string, unknown>): void };

export interface GateOptions {
  keys: Pick<KeyService, "verify">;
  store: RateLimitStore;
  /** Units per minute for keys without their own limit. */
  perMinute: number;
  /** Milliseconds since the epoch; tests pass a fake clock. */
  now: () => number;
}

const plugin: FastifyPluginAsync<GateOptions> = async (app, opts) => {
  app.decorateRequest("principal", null);

  async function charge(request: FastifyRequest, reply: FastifyReply, cost: number): Promise<Problem | null> {
    const principal = request.principal;
    if (!principal) throw new Error("chargeRateLimit on a request the gate did not let through");
    let decision: RateLimitDecision;
    try {
      decision = await consumeRateLimit(opts.store, {
        keyId: principal.keyId,
        limit: principal.rateLimitPerMinute ?? opts.perMinute,
        cost,
        now: opts.now(),
      });
    } catch (error) {
      // Fail open: a counter we cannot write must not take the API down with it.
      request.log.warn({ err: error }, "rate-limit counter unavailable; request not limited");
      return null;
    }
    reply.headers(rateLimitHeaders(decision));
    if (decision.allowed) return null;
    reply.header("retry-after", String(decision.resetSeconds));
    return problem(
      "rate_limited",
      `This key's limit of ${decision.limit} units per minute is used up (this request costs ${cost}); retry in ${decision.resetSeconds} s.`,
      request.id,
    );
  }
  app.decorate("chargeRateLimit", charge);

  app.addHook("onRequest", async (request, reply) => {
    const gate = request.routeOptions.config.gate;
    if (!gate) return;
    // An answer to a key is that key's alone, refusals included; REST's revalidated 200s say so their own way (caching.ts).
    reply.header("cache-control", "no-store");
    const refuse = async (refusal: Problem) => (gate.refuse ? gate.refuse(request, reply, refusal) : sendProblem(reply, refusal));
    let verified: Awaited<ReturnType<KeyService["verify"]>>;
    try {
      verified = await opts.keys.verify(presentedKey(request, gate));
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      // The key table could not be read (or kept changing while it was): a real client retries in a moment.
      if (error instanceof DatabaseShedError) reply.header("retry-after", "1");
      return refuse(problem("unavailable", "The API key cannot be checked: the database does not answer.", request.id));
    }
    if (verified.code !== "VALID") {
      // Where X-API-Key is taken too, a caller without a key is told so: UCP's binding names that header.
      const message = verified.code === "MISSING" && gate.apiKeyHeader ? MISSING_WITH_API_KEY_HEADER : VERIFY_FAILURE_MESSAGES[verified.code];
      return refuse(problem("unauthorized", message, request.id));
    }
    request.principal = verified.principal;
    // Every later line about this request names the key by id (never the key), "request completed" included:
    // reply.log is the same pino child, and adding a binding to it costs less than a child of its own.
    (request.log as PinoChild).setBindings({ key_id: verified.principal.keyId });
    if (gate.cost === "per-call") return;
    const limited = await charge(request, reply, gate.cost);
    if (limited) return refuse(limited);
  });
};

export const gatePlugin = fp(plugin, { name: "catalog-gate", fastify: "5.x" });
