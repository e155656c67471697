/**
 * buildApp: the Fastify app with every route, not yet listening. No business
 * logic here; each concern is one plugin. Built by the composition root
 * (compose.ts), which chooses the services, the metrics and the rate-limit store.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import fp from "fastify-plugin";
import type { Admission } from "./api/admission.js";
import { compressionPlugin } from "./api/http/compression.js";
import { corsPlugin } from "./api/http/cors.js";
import { clientErrorHandler, installErrorHandlers, sendProblem } from "./api/http/errors.js";
import { gatePlugin } from "./api/http/gate.js";
import { healthPlugin, publicPlugin } from "./api/http/public.js";
import { restPlugin } from "./api/http/rest.js";
import { trpcPlugin } from "./api/http/trpc.js";
import { ucpPlugin } from "./api/http/ucp.js";
import { logSerializers, redactingStream, resolveLogFormat } from "./api/http/logging.js";
import { problem } from "./api/problems.js";
import { redactKeys } from "./auth/keys.js";
import type { RateLimitStore } from "./auth/ratelimit.js";
import type { Config } from "./config.js";
import { mcpPlugin } from "./mcp/http.js";
import { type Metrics, metricsRoute, requestMetricsPlugin } from "./metrics/index.js";
import type { Services } from "./services.js";

export interface AppOptions {
  services: Services;
  config: Pick<
    Config,
    | "API_PREFIXES"
    | "LOG_LEVEL"
    | "LOG_FORMAT"
    | "RATE_LIMIT_PER_MINUTE"
    | "METRICS_PORT"
    | "MAX_BATCH_CALLS"
    | "BODY_LIMIT_BYTES"
    | "ANSWER_MAX_BYTES"
    | "ANSWER_BYTES_PER_UNIT"
    | "REQUEST_TIMEOUT_MS"
    | "CORS_ORIGINS"
    | "UCP_BASE"
    | "PUBLIC_URL"
  >;
  metrics: Metrics;
  /** Where the rate-limit counters live (see api/http/ratelimit.ts). */
  rateLimitStore: RateLimitStore;
  /** Milliseconds since the epoch, for rate-limit windows; tests pass a fake clock. */
  now: () => number;
  /** Where search-class calls wait their turn (api/admission.ts). */
  admission: Admission;
  /** This process's cluster worker id (server/cluster.ts): every log line names it. */
  worker?: number;
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

/** An incoming X-Request-Id is honoured only if it is short and plain, so it is safe to log and echo (and is no key). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** How often Node looks for requests past REQUEST_TIMEOUT_MS (its default, 30 s, would let one run that much longer). */
const TIMEOUT_CHECK_MS = 1_000;
/** Path parameters (product ids) longer than this are refused (414) before any work; ids are at most 128. */
const MAX_PARAM_LENGTH = 2048;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, services } = options;
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      // pino's own base (pid, hostname) plus the worker, so the lines of N processes can be told apart.
      ...(options.worker === undefined ? {} : { base: { pid: process.pid, hostname: hostname(), worker: options.worker } }),
      redact: {
        paths: ["req.headers.authorization", "headers.authorization", "authorization", 'req.headers["x-api-key"]', 'headers["x-api-key"]'],
        censor: "[redacted]",
      },
      serializers: logSerializers,
      // Human lines at a terminal, JSON for whatever collects them (LOG_FORMAT).
      stream: redactingStream(process.stdout, resolveLogFormat(config.LOG_FORMAT)),
    },
    requestIdHeader: false,
    logController: new AccessLog(),
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) && redactKeys(incoming) === incoming
        ? incoming
        : `req_${randomUUID().replaceAll("-", "")}`;
    },
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A request whose head and body are not in within this gets a 408 problem (clientErrorHandler), however slowly it trickles.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: { connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, config.REQUEST_TIMEOUT_MS), headersTimeout: config.REQUEST_TIMEOUT_MS },
    // What Node's HTTP parser refuses (a head over 16 KB, bytes that are not HTTP, the timeout above) is a problem too.
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // What the router refuses before any hook runs (a malformed %-escape, an overlong segment) is a problem too; neither echoes the path.
    frameworkErrors: (error, request, reply) => {
      reply.header("x-request-id", request.id);
      void sendProblem(
        reply,
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? problem("uri_too_long", `A path segment is longer than ${MAX_PARAM_LENGTH} characters (product ids have at most 128).`, request.id)
          : problem("invalid_parameter", "The request URL is not valid.", request.id),
      );
    },
  });

  // Hooks on every request are callback-style, not async: each async hook costs a promise and a microtask turn.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    done();
  });
  // Before the gate, so a refusal (401, 429) reaches the page that asked.
  await app.register(corsPlugin, { origins: config.CORS_ORIGINS });
  installErrorHandlers(app);
  // Before any route: it attaches itself to each route as it is added.
  await app.register(fp(compressionPlugin));
  await app.register(requestMetricsPlugin, { metrics: options.metrics });
  // Every keyed route's key check and charge, from the policy each route declares.
  await app.register(gatePlugin, { keys: services.keys, store: options.rateLimitStore, perMinute: config.RATE_LIMIT_PER_MINUTE, now: options.now });

  await app.register(publicPlugin, {
    prefixes: config.API_PREFIXES,
    ucpBase: config.UCP_BASE,
    rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE,
    publicUrl: config.PUBLIC_URL,
  });
  await app.register(healthPlugin, { services, prefixes: config.API_PREFIXES });
  if (config.METRICS_PORT === undefined) await app.register(metricsRoute, { metrics: options.metrics });
  const answers = { maxBytes: config.ANSWER_MAX_BYTES, bytesPerUnit: config.ANSWER_BYTES_PER_UNIT };
  const { admission } = options;
  await app.register(trpcPlugin, { services, maxBatchSize: config.MAX_BATCH_CALLS, answers, admission });
  await app.register(restPlugin, { services, prefixes: config.API_PREFIXES, answers, admission });
  await app.register(ucpPlugin, { services, base: config.UCP_BASE, publicUrl: config.PUBLIC_URL, answers, admission });
  await app.register(mcpPlugin, { services, maxBatchSize: config.MAX_BATCH_CALLS, answers, admission });
  return app;
}
