/**
 * buildApp: the Fastify app with every route, not yet listening. No business
 * logic here; each concern is one encapsulated plugin.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { randomUUID } from "node:crypto";
import type { Services } from "./services.js";
import { installErrorHandlers } from "./api/http/errors.js";
import { publicPlugin } from "./api/http/public.js";
import { restPlugin } from "./api/http/rest.js";
import { trpcPlugin } from "./api/http/trpc.js";

export interface AppOptions {
  services: Services;
  prefixes: readonly string[];
  logLevel?: string;
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
    genReqId: (request) => {
      const incoming = request.headers["x-request-id"];
      return typeof incoming === "string" && SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID().replaceAll("-", "")}`;
    },
    // Path parameters (product ids) longer than this get a 404 before any work; ids are at most 128.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
  });

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });
  installErrorHandlers(app);

  await app.register(publicPlugin, { services: options.services, prefixes: options.prefixes });
  await app.register(trpcPlugin, { services: options.services });
  await app.register(restPlugin, { services: options.services, prefixes: options.prefixes });
  return app;
}
