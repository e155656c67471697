/**
 * buildApp: the Fastify app with every route, not yet listening. No business
 * logic here; each concern is one encapsulated plugin.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { compressionPlugin } from "./api/http/compression.js";
import { randomUUID } from "node:crypto";
import type { Services } from "./services.js";
import { installErrorHandlers, sendProblem } from "./api/http/errors.js";
import { problem } from "./api/problems.js";
import { healthPlugin, publicPlugin } from "./api/http/public.js";
import { DEFAULT_RATE_LIMIT_PER_MINUTE, rateLimitPlugin, type RateLimitOptions } from "./api/http/ratelimit.js";
import { restPlugin } from "./api/http/rest.js";
import { trpcPlugin } from "./api/http/trpc.js";
import { mcpPlugin } from "./mcp/http.js";
import { createMetrics, metricsRoute, requestMetricsPlugin, type Metrics } from "./metrics/index.js";

export interface AppOptions {
  services: Services;
  prefixes: readonly string[];
  logLevel?: string;
  /** Per-key rate limits; the defaults are 600 units a minute, counted in the database. */
  rateLimit?: RateLimitOptions;
  /** Prometheus metrics, one registry per app; a fresh one when absent. */
  metrics?: Metrics;
  /** GET /metrics on the API behind a key (default); false when it has a listener of its own (METRICS_PORT). */
  metricsOnApi?: boolean;
}

/**
 * One access line per request, not two (measured: pino was 16% of a cached
 * lookup's CPU): "request completed" with the request, status and time, and
 * "incoming request" only at debug, for chasing a request that never ends.
 * reply.log carries the key's id once the rate-limit hook has verified it.
 */
class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, "request errored");
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}

/** An incoming X-Request-Id is honoured only if it is short and plain, so it is safe to log and echo. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? "info",
      redact: { paths: ["req.headers.authorization", "headers.authorization", "authorization"], censor: "[redacted]" },
    },
    requestIdHeader: false,
    logController: new AccessLog(),
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID().replaceAll("-", "")}`;
    },
    // Path parameters (product ids) longer than this get a 404 before any work; ids are at most 128.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // What the router refuses before any hook runs (a malformed %-escape in the path) is a problem too.
    frameworkErrors: (error, request, reply) => {
      reply.header("x-request-id", request.id);
      void sendProblem(
        reply,
        problem("invalid_parameter", error.code === "FST_ERR_BAD_URL" ? "The request URL is not valid." : error.message, request.id),
      );
    },
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  installErrorHandlers(app);
  // Before any route: it attaches itself to each route as it is added.
  await app.register(fp(compressionPlugin));

  const metrics = options.metrics ?? createMetrics();
  await app.register(requestMetricsPlugin, { metrics });
  await app.register(publicPlugin, { prefixes: options.prefixes, rateLimitPerMinute: options.rateLimit?.perMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE });
  // Everything that answers a key, behind one rate limit.
  await app.register(async (api) => {
    await api.register(rateLimitPlugin, { services: options.services, ...options.rateLimit });
    await api.register(healthPlugin, { services: options.services });
    if (options.metricsOnApi ?? true) await api.register(metricsRoute, { metrics });
    await api.register(trpcPlugin, { services: options.services });
    await api.register(restPlugin, { services: options.services, prefixes: options.prefixes });
    await api.register(mcpPlugin, { services: options.services });
  });
  return app;
}
