/** /health (behind a key, rate-limited like the API) and the public documents: /, /openapi.json, /docs, /search and /llms.txt. */
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { Services } from "../../services.js";
import { VERSION } from "../../version.js";
import { UNIT_COST } from "../operations/index.js";
import { buildOpenApiDocument, TITLE } from "../openapi.js";
import { renderLlmsTxt } from "../llms.js";
import { optionsRoute } from "./cors.js";
import { docsPlugin } from "./docs.js";
import { searchPagePlugin } from "./search-page.js";
import { refuseOtherMethods, sendProblem } from "./errors.js";
import { REVALIDATE, staticAsset } from "./static.js";

/** Served at the root for load balancers, and under each prefix, where the OpenAPI document (and so every generated client) puts it. */
export const healthPlugin: FastifyPluginAsync<{ services: Services; prefixes: readonly string[] }> = async (app, opts) => {
  async function sendHealth(reply: FastifyReply) {
    const health = await opts.services.health.check();
    return reply.code(health.status === "ok" ? 200 : 503).send(health);
  }
  for (const url of ["/health", ...opts.prefixes.map((prefix) => `${prefix}/health`)]) {
    app.get(
      url,
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
    optionsRoute(app, url, ["GET", "HEAD"]);
    // A POST to /health is a wrong method, as on every other route, not an unknown path.
    refuseOtherMethods(app, url, ["GET"]);
  }
};

export const publicPlugin: FastifyPluginAsync<{
  prefixes: readonly string[];
  ucpBase: string;
  rateLimitPerMinute: number;
  /** PUBLIC_URL: the document's servers are absolute under it; unset, relative to where the document was read. */
  publicUrl: string | undefined;
}> = async (app, opts) => {
  const document = buildOpenApiDocument(opts.prefixes, opts.publicUrl);
  const json = { type: "application/json; charset=utf-8", cacheControl: REVALIDATE };
  const openApi = staticAsset(JSON.stringify(document), json);
  const llmsTxt = staticAsset(renderLlmsTxt(document, opts.rateLimitPerMinute, opts.ucpBase), {
    type: "text/plain; charset=utf-8",
    cacheControl: REVALIDATE,
  });
  // What a newcomer who opens the server's address finds: where to read on. Everything but these documents needs a key.
  const index = staticAsset(
    JSON.stringify({
      name: TITLE,
      version: VERSION,
      links: { docs: "/docs", search: "/search", openapi: "/openapi.json", llms: "/llms.txt", health: "/health", ucp: "/.well-known/ucp" },
      api: opts.prefixes,
      trpc: "/trpc",
      mcp: "/mcp",
      ucp: opts.ucpBase,
      auth: "Every call needs an API key in Authorization (the key, or Bearer <key>) except /, /docs, /search, /openapi.json, /llms.txt and /.well-known/ucp. See /docs.",
    }),
    json,
  );

  const precompressed = { config: { precompressed: true } };
  app.get("/", precompressed, (request, reply) => index.send(request, reply));
  app.get("/openapi.json", precompressed, (request, reply) => openApi.send(request, reply));
  app.get("/llms.txt", precompressed, (request, reply) => llmsTxt.send(request, reply));
  await app.register(docsPlugin, { title: TITLE, documentUrl: "/openapi.json", publicUrl: opts.publicUrl });
  await app.register(searchPagePlugin, { title: "Product search" });
};
