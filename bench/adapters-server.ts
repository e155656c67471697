/**
 * The app for npm run bench:adapters, started as a child process by
 * bench/adapters.ts with a product id as its argument; prints its port on
 * stdout once it listens.
 *
 * The real services (server/services.ts) over an in-memory PGlite holding the
 * first few sample records, imported through the real importer with the local
 * embedder. One Fastify app, no logger, no auth or rate-limit hooks, serves
 * get-by-id for that product four ways:
 *
 *   /floor/products/:id   the envelope object, from memory
 *   /bridge/products/{id} trpc-to-openapi's Fastify adapter over appRouter
 *   /call/products/:id    tRPC's callTRPCProcedure: middleware chain, input and output validation
 *   /rest/products/:id    productRestCalls["products.byId"].run, as api/http/rest.ts does (shipped)
 *
 * Auth is out of the comparison: the key is verified once, at start, through
 * the real key service, and every call gets that Context (with a fresh map
 * for the response headers a procedure may set).
 */
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { callTRPCProcedure, getTRPCErrorFromUnknown } from "@trpc/server";
import { fastifyTRPCOpenApiPlugin } from "trpc-to-openapi";
import { openPglite } from "../server/db/open.js";
import { createServices } from "../server/services.js";
import { importRecords } from "../server/ingest/import.js";
import { readNdjson, type ParsedLine } from "../server/ingest/ndjson.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { SAMPLE_CATALOG_PATH } from "../server/sample/index.js";
import { appRouter } from "../server/api/router.js";
import { productRestCalls } from "../server/api/procedures/products.js";
import { createContext, type Context } from "../server/api/trpc.js";
import { problemFromTrpcError } from "../server/api/problems.js";
import { responseHeaders } from "../server/api/http/context.js";
import { conditionalGet, productEnvelope } from "../server/api/http/caching.js";
import { sendProblem } from "../server/api/http/errors.js";

/** A handful: the lookups are product-cache hits, so the catalog's size does not matter here. */
const SAMPLE_RECORDS = 8;

const id = process.argv[2];
if (!id) throw new Error("usage: adapters-server.ts PRODUCT_ID");

async function* firstRecords(count: number): AsyncGenerator<ParsedLine> {
  for await (const line of readNdjson(SAMPLE_CATALOG_PATH)) {
    if (count-- <= 0) return;
    yield line;
  }
}

const { handle: database } = await openPglite();
await database.migrate();
const embedder = await createLocalEmbedder();
const summary = await importRecords({ db: database.db, embedder }, firstRecords(SAMPLE_RECORDS));
if (summary.failed > 0) throw new Error(`sample records failed to import: ${JSON.stringify(summary.failures)}`);
const services = createServices({ database, embedder });

// The first lookup reads the database and fills the product cache; every later one is a memory hit.
const product = await services.catalog.byId(id, false);
if (!product) throw new Error(`product ${id} is not among the first ${SAMPLE_RECORDS} sample records`);
const envelope = { pdp: product };

const app = Fastify();

// Verified once, honestly, through the real key service: every adapter then skips auth alike.
const { key } = await services.keys.issue({ name: "bench:adapters", environment: "dev" });
const verified = await createContext({ services, requestId: "bench", log: app.log, apiKey: key });
if (!("principal" in verified.auth)) throw new Error(`the bench key did not verify: ${verified.auth.failure}`);
const context = (): Context => ({ ...verified, responseHeaders: new Map() });

/** As rest.ts: path parameters win over a query parameter of the same name. */
const rawInput = (request: FastifyRequest) => ({ ...(request.query as object), ...(request.params as object) });

/** As rest.ts maps a failed call; only the happy path is measured, but a wrong answer must not look like one. */
function sendError(request: FastifyRequest, reply: FastifyReply, cause: unknown) {
  return sendProblem(reply, problemFromTrpcError(getTRPCErrorFromUnknown(cause), request.id));
}

app.get("/floor/products/:id", async () => envelope);

await app.register(fastifyTRPCOpenApiPlugin, {
  basePath: "/bridge",
  router: appRouter,
  createContext: context,
  // What our /trpc plugin sets too: the headers a procedure asked for.
  responseMeta: ({ ctx }: { ctx?: Context }) => ({ headers: responseHeaders(ctx, 200) }),
});

app.get("/call/products/:id", async (request, reply) => {
  const ctx = context();
  try {
    const output: unknown = await callTRPCProcedure({
      router: appRouter,
      path: "products.byId",
      type: "query",
      ctx,
      getRawInput: async () => rawInput(request),
      signal: undefined,
      batchIndex: 0,
    });
    return reply.headers(responseHeaders(ctx, 200)).send(output);
  } catch (cause) {
    return sendError(request, reply, cause);
  }
});

// In a scope of its own, as rest.ts registers it: the ETag hook is part of what we ship, and only this route has it.
await app.register(async (scope) => {
  scope.addHook("onSend", conditionalGet);
  const byId = productRestCalls["products.byId"];
  if (!byId) throw new Error("productRestCalls has no products.byId");
  scope.get("/rest/products/:id", async (request, reply) => {
    const ctx = context();
    try {
      const output = await byId.run(ctx, rawInput(request));
      if (typeof output !== "object" || output === null || !("pdp" in output) || typeof output.pdp !== "object" || output.pdp === null) {
        throw new Error("products.byId did not answer an envelope");
      }
      const { body, etag } = productEnvelope(output.pdp);
      return reply.headers(responseHeaders(ctx, 200)).header("etag", etag).type("application/json; charset=utf-8").send(body);
    } catch (cause) {
      return sendError(request, reply, cause);
    }
  });
});

const address = await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`${new URL(address).port}\n`);
process.on("SIGTERM", () => {
  void (async () => {
    await app.close();
    await database.close();
    await embedder.close();
    process.exit(0);
  })();
});
