/**
 * buildApp: the Fastify app with every route, not yet listening. No business
 * logic here; each concern is one plugin. Built by the composition root
 * (compose.ts), which chooses the services, the metrics and the rate-limit store.
 */
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import fp from "fastify-plugin";
import { compressionPlugin } from "./api/http/compression.js";
import { installErrorHandlers, sendProblem } from "./api/http/errors.js";
import { gatePlugin } from "./api/http/gate.js";
import { healthPlugin, publicPlugin } from "./api/http/public.js";
import { restPlugin } from "./api/http/rest.js";
import { trpcPlugin } from "./api/http/trpc.js";
import { problem } from "./api/problems.js";
import type { RateLimitStore } from "./auth/ratelimit.js";
import type { Config } from "./config.js";
import { mcpPlugin } from "./mcp/http.js";
import { type Metrics, metricsRoute, requestMetricsPlugin } from "./metrics/index.js";
import type { Services } from "./services.js";

export interface AppOptions {
  services: Services;
  config: Pick<Config, "API_PREFIXES" | "LOG_LEVEL" | "RATE_LIMIT_PER_MINUTE" | "METRICS_PORT" | "MAX_BATCH_CALLS" | "BODY_LIMIT_BYTES">;
  metrics: Metrics;
  /** Where the rate-limit counters live (see api/http/ratelimit.ts). */
  rateLimitStore: RateLimitStore;
  /** Milliseconds since the epoch, for rate-limit windows; tests pass a fake clock. */
  now: () => number;
}

/**
 * One access line per request, not two (measured: pino was 16% of a cached
 * lookup's CPU): "request completed" with the request, status and time, and
 * "incoming request" only at debug, for chasing a request that never ends.
 * reply.log carries the key's id once the gate has verified it.
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
  const { config, services } = options;
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: { paths: ["req.headers.authorization", "headers.authorization", "authorization"], censor: "[redacted]" },
    },
    requestIdHeader: false,
    logController: new AccessLog(),
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID().replaceAll("-", "")}`;
    },
    bodyLimit: config.BODY_LIMIT_BYTES,
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
  await app.register(requestMetricsPlugin, { metrics: options.metrics });
  // Every keyed route's key check and charge, from the policy each route declares.
  await app.register(gatePlugin, { keys: services.keys, store: options.rateLimitStore, perMinute: config.RATE_LIMIT_PER_MINUTE, now: options.now });

  await app.register(publicPlugin, { prefixes: config.API_PREFIXES, rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE });
  await app.register(healthPlugin, { services });
  if (config.METRICS_PORT === undefined) await app.register(metricsRoute, { metrics: options.metrics });
  await app.register(trpcPlugin, { services, maxBatchSize: config.MAX_BATCH_CALLS });
  await app.register(restPlugin, { services, prefixes: config.API_PREFIXES });
  await app.register(mcpPlugin, { services, maxBatchSize: config.MAX_BATCH_CALLS });
  return app;
}
