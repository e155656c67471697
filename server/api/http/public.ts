/** /health (behind a key, rate-limited like the API) and /openapi.json, /docs and /llms.txt (public). */
import type { FastifyPluginAsync } from "fastify";
import scalar from "@scalar/fastify-api-reference";
import type { Services } from "../../services.js";
import { VERIFY_FAILURE_MESSAGES } from "../../auth/service.js";
import { isDatabaseUnavailable } from "../../db/errors.js";
import { buildOpenApiDocument } from "../openapi.js";
import { renderLlmsTxt } from "../llms.js";
import { problem } from "../problems.js";
import { sendProblem } from "./errors.js";
import { verifiedKey } from "./context.js";

export const healthPlugin: FastifyPluginAsync<{ services: Services }> = async (app, opts) => {
  app.get("/health", async (request, reply) => {
    // Without a database no key can be checked; saying only that it is down reveals nothing.
    const verified = await verifiedKey(opts.services, request).catch((error: unknown) => {
      if (isDatabaseUnavailable(error)) return null;
      throw error;
    });
    if (verified === null) return reply.code(503).send(await opts.services.health.check());
    if (verified.code !== "VALID") {
      return sendProblem(reply, problem("unauthorized", VERIFY_FAILURE_MESSAGES[verified.code], request.id));
    }
    const health = await opts.services.health.check();
    return reply.code(health.status === "ok" ? 200 : 503).send(health);
  });
};

export const publicPlugin: FastifyPluginAsync<{ prefixes: readonly string[]; rateLimitPerMinute: number }> = async (app, opts) => {
  const document = buildOpenApiDocument(opts.prefixes);
  const documentJson = JSON.stringify(document);
  const llmsTxt = renderLlmsTxt(document, opts.rateLimitPerMinute);

  app.get("/openapi.json", (_request, reply) => reply.type("application/json").send(documentJson));
  app.get("/llms.txt", (_request, reply) => reply.type("text/plain; charset=utf-8").send(llmsTxt));

  await app.register(scalar, {
    routePrefix: "/docs",
    configuration: { url: "/openapi.json", title: "Product Catalog Lookup API" },
    logLevel: "warn",
  });
};
