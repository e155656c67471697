/** /health (behind a key, rate-limited like the API) and /openapi.json, /docs and /llms.txt (public). */
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import scalar from "@scalar/fastify-api-reference";
import type { Services } from "../../services.js";
import { UNIT_COST } from "../operations/index.js";
import { buildOpenApiDocument } from "../openapi.js";
import { renderLlmsTxt } from "../llms.js";
import { sendProblem } from "./errors.js";

export const healthPlugin: FastifyPluginAsync<{ services: Services }> = async (app, opts) => {
  async function sendHealth(reply: FastifyReply) {
    const health = await opts.services.health.check();
    return reply.code(health.status === "ok" ? 200 : 503).send(health);
  }
  app.get(
    "/health",
    {
      config: {
        gate: {
          cost: UNIT_COST,
          // Without a database no key can be checked; saying only that it is down (in the health shape) reveals nothing.
          refuse: (_request, reply, problem) => (problem.code === "unavailable" ? sendHealth(reply) : sendProblem(reply, problem)),
        },
      },
    },
    (_request, reply) => sendHealth(reply),
  );
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
