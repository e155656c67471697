/**
 * The REST routes: one Fastify route per operation of the table, under each
 * API prefix, running the operation's call with its input and output schemas
 * (invoke.ts) but without tRPC's middleware chain. trpc-to-openapi still
 * generates the OpenAPI document from the same operations (api/openapi.ts);
 * its HTTP adapter is not used: it builds a fetch Request and Response per
 * call. Measured alternatives: docs/decisions/0001-own-rest-routes.md.
 *
 * The gate (gate.ts) reads each route's cost from `config.gate`, so however
 * a path is spelled (percent-encoded, trailing slash), the route it reaches is
 * what is charged.
 */
import { setImmediate } from "node:timers/promises";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ProductEnvelopeSchema, ProductLookupEnvelopeSchema } from "../../../shared/schemas/index.js";
import type { Services } from "../../services.js";
import { type Admission, OverloadedError } from "../admission.js";
import { type AnswerSettings, answerBudget } from "../answer-cap.js";
import { checkedOutput, runCall } from "../invoke.js";
import { type AnyOperation, baseOf, operationList } from "../operations/index.js";
import { problemFromThrown } from "../problems.js";
import { conditionalGet, productEnvelope } from "./caching.js";
import { callContext, responseHeaders } from "./context.js";
import { optionsRoute } from "./cors.js";
import { refuseOtherMethods, sendProblem } from "./errors.js";
import { PIECES_FROM_BYTES, stringifyInPieces } from "./serialize.js";

export interface RestRoute {
  /** The Fastify form of the OpenAPI path under a prefix: `/api/v1/products/{id}` → `/api/v1/products/:id`. */
  url: string;
  method: "GET" | "POST";
  operation: AnyOperation;
}

/** Every API operation's route under every prefix; the OpenAPI document lists the same paths. (UCP's are in ucp.ts.) */
export function restRoutes(prefixes: readonly string[]): RestRoute[] {
  const api = operationList.filter(({ operation }) => baseOf(operation) === "api");
  return prefixes.flatMap((prefix) =>
    api.map(({ operation }) => ({
      url: `${prefix}${operation.rest.path.replace(/\{(\w+)\}/g, ":$1")}`,
      method: operation.rest.method,
      operation,
    })),
  );
}

/** A lookup's answer, `{pdp}`: the hot path, served from productEnvelope (see caching.ts). */
function isProductEnvelope(output: unknown): output is { pdp: object } {
  return (
    typeof output === "object" && output !== null && "pdp" in output && !("offers" in output) && typeof output.pdp === "object" && output.pdp !== null
  );
}

export const restPlugin: FastifyPluginAsync<{
  services: Services;
  prefixes: readonly string[];
  answers: AnswerSettings;
  admission: Admission;
}> = async (app, opts) => {
  app.addHook("onSend", conditionalGet);
  // A body is JSON or nothing: without this, Fastify reads text/plain as a string, and a JSON body sent so is refused as
  // missing its members (400) rather than for its type (415).
  app.removeContentTypeParser("text/plain");

  async function answer(operation: AnyOperation, request: FastifyRequest, reply: FastifyReply) {
    try {
      const ctx = callContext({ services: opts.services, app, request, reply, answer: answerBudget(opts.answers), admission: opts.admission });
      // Path parameters win over a query or body member of the same name.
      const source = operation.rest.method === "GET" ? request.query : request.body;
      const output = await runCall(operation, ctx, { ...(typeof source === "object" ? source : {}), ...(request.params as object) });
      reply.headers(responseHeaders(ctx, 200));
      // The payload is returned, not sent: an async handler that returns the reply makes the promise adopt it as a
      // thenable (Reply.then), which hangs end-of-stream listeners on every response (~5 µs a lookup, in profiles).
      // Only a bare {pdp}: its body is kept per record object, which a lookup by GTIN's offers are not part of.
      if ((operation.output === ProductEnvelopeSchema || operation.output === ProductLookupEnvelopeSchema) && isProductEnvelope(output)) {
        const { body, etag } = productEnvelope(output.pdp, () => checkedOutput(operation, output));
        if (etag) reply.header("etag", etag);
        reply.type("application/json; charset=utf-8");
        return body;
      }
      if (ctx.answer.spent < PIECES_FROM_BYTES) return checkedOutput(operation, output);
      // A large answer: checked and written a turn of the event loop apart, and in pieces (serialize.ts).
      await setImmediate();
      const checked = checkedOutput(operation, output);
      await setImmediate();
      const body = await stringifyInPieces(checked);
      reply.type("application/json; charset=utf-8");
      return body;
    } catch (thrown) {
      if (thrown instanceof OverloadedError) reply.header("retry-after", String(thrown.retryAfterSeconds));
      return sendProblem(reply, problemFromThrown(thrown, request.id, request.log));
    }
  }

  const byUrl = new Map<string, RestRoute[]>();
  for (const route of restRoutes(opts.prefixes)) byUrl.set(route.url, [...(byUrl.get(route.url) ?? []), route]);
  for (const [url, routes] of byUrl) {
    for (const route of routes) {
      app.route({
        method: route.method,
        url,
        config: { gate: { cost: route.operation.cost } },
        handler: (request, reply) => answer(route.operation, request, reply),
      });
    }
    // OPTIONS says what is allowed (and answers CORS preflights); every other method is a 405, answered before any
    // body is read (onRequest): the handler is never reached.
    const allowed = routes.flatMap((route) => (route.method === "GET" ? ["GET", "HEAD"] : [route.method]));
    optionsRoute(app, url, allowed);
    refuseOtherMethods(app, url, allowed);
  }
};
