/**
 * The app for npm run bench:adapters, started as a child process by
 * bench/adapters.ts with a product id as its argument; prints its port on
 * stdout once it listens.
 *
 * The real services, built by the composition root over an in-memory PGlite
 * holding the first few sample records, imported through the real importer
 * with the local embedder. One Fastify app, no logger, no gate, serves
 * get-by-id for that product four ways:
 *
 *   /floor/products/:id   the envelope object, from memory
 *   /bridge/products/{id} trpc-to-openapi's Fastify adapter over appRouter
 *   /call/products/:id    tRPC's callTRPCProcedure: middleware chain, input and output validation
 *   /rest/products/:id    the shipped REST plugin (api/http/rest.ts) under the prefix /rest
 *
 * Auth is out of the comparison: the key is verified once, at start, through
 * the real key service, and every call runs as that principal (with a fresh
 * map for the response headers a call may set).
 */
import Fastify from "fastify";
import { callTRPCProcedure, getTRPCErrorFromUnknown } from "@trpc/server";
import { fastifyTRPCOpenApiPlugin } from "trpc-to-openapi";
import { createAdmission } from "../server/api/admission.js";
import { answerBudget } from "../server/api/answer-cap.js";
import type { CallContext } from "../server/api/context.js";
import { responseHeaders } from "../server/api/http/context.js";
import { sendProblem } from "../server/api/http/errors.js";
import { restPlugin } from "../server/api/http/rest.js";
import { problemFromTrpcError } from "../server/api/problems.js";
import { appRouter } from "../server/api/router.js";
import { createRoot } from "../server/compose.js";
import { admissionSettings, loadConfig } from "../server/config.js";
import { openPglite } from "../server/db/open.js";
import { importRecords } from "../server/ingest/import.js";
import { type ParsedLine, readNdjson } from "../server/ingest/ndjson.js";
import { SAMPLE_CATALOG_PATH } from "../server/sample/index.js";

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
const config = loadConfig({ SAMPLE_CATALOG: "false" });
const root = createRoot(config, { role: "server", database });
const embedder = await root.embedder();
await root.database();
const summary = await importRecords({ db: database.db, embedder }, firstRecords(SAMPLE_RECORDS));
if (summary.failed > 0) throw new Error(`sample records failed to import: ${JSON.stringify(summary.failures)}`);
const services = await root.services();

// The first lookup reads the database and fills the product cache; every later one is a memory hit.
const product = await services.catalog.byId(id, false);
if (!product) throw new Error(`product ${id} is not among the first ${SAMPLE_RECORDS} sample records`);
const envelope = { pdp: product };

const app = Fastify();

// Verified once, honestly, through the real key service: every adapter then skips auth alike.
const { key } = await services.keys.issue({ name: "bench:adapters", environment: "dev" });
const verified = await services.keys.verify(key);
if (verified.code !== "VALID") throw new Error(`the bench key did not verify: ${verified.code}`);
const { principal } = verified;
const context = (): CallContext => ({
  services,
  principal,
  requestId: "bench",
  log: app.log,
  responseHeaders: new Map(),
  answer: answerBudget({ maxBytes: config.ANSWER_MAX_BYTES, bytesPerUnit: config.ANSWER_BYTES_PER_UNIT }),
  // Every adapter skips the rate limit alike; a lookup by id has no surcharge.
  charge: async () => undefined,
});
// What the gate hands the REST routes.
app.decorateRequest("principal", null);
app.addHook("onRequest", async (request) => {
  request.principal = principal;
});

app.get("/floor/products/:id", async () => envelope);

await app.register(fastifyTRPCOpenApiPlugin, {
  basePath: "/bridge",
  router: appRouter,
  createContext: context,
  // What our /trpc route sets too: the headers a call asked for.
  responseMeta: ({ ctx }: { ctx?: CallContext }) => ({ headers: responseHeaders(ctx, 200) }),
});

app.get<{ Params: { id: string } }>("/call/products/:id", async (request, reply) => {
  const ctx = context();
  try {
    const output: unknown = await callTRPCProcedure({
      router: appRouter,
      path: "products.byId",
      type: "query",
      ctx,
      getRawInput: async () => ({ ...(request.query as object), ...request.params }),
      signal: undefined,
      batchIndex: 0,
    });
    return reply.headers(responseHeaders(ctx, 200)).send(output);
  } catch (cause) {
    return sendProblem(reply, problemFromTrpcError(getTRPCErrorFromUnknown(cause), request.id));
  }
});

// The shipped routes, in their own scope as app.ts registers them (with the ETag hook that is part of what we ship).
await app.register(restPlugin, {
  services,
  prefixes: ["/rest"],
  answers: { maxBytes: config.ANSWER_MAX_BYTES, bytesPerUnit: config.ANSWER_BYTES_PER_UNIT },
  admission: createAdmission(admissionSettings(config)),
});

const address = await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(`${new URL(address).port}\n`);
process.on("SIGTERM", () => {
  void (async () => {
    await app.close();
    await root.close();
    await database.close();
    process.exit(0);
  })();
});
