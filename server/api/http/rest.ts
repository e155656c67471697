/**
 * The REST paths: one Fastify route per procedure with OpenAPI meta, running
 * that procedure's call (api/procedures) with the same input schema, key
 * check and error mapping, but without tRPC's middleware chain. The
 * procedures and their Zod schemas stay the single source of truth, and
 * trpc-to-openapi still generates the OpenAPI document from them
 * (api/openapi.ts). Its HTTP adapter is not used: it builds a fetch Request
 * and Response per call. Measured alternatives: README "Performance".
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { Services } from "../../services.js";
import { appRouter } from "../router.js";
import { productRestCalls } from "../procedures/products.js";
import type { CallContext, RestCall } from "../trpc.js";
import { VERIFY_FAILURE_MESSAGES } from "../../auth/service.js";
import { problem, problemFromThrown } from "../problems.js";
import { responseHeaders, verifiedKey } from "./context.js";
import { conditionalGet, productEnvelope } from "./caching.js";
import { sendProblem } from "./errors.js";

interface RestRoute extends RestCall {
  /** The procedure's path in the router, e.g. `products.byId`. */
  procedure: string;
  /** The Fastify form of the OpenAPI path: `/products/{id}` → `/products/:id`. */
  url: string;
}

/** Every query procedure that declares a GET path; the OpenAPI document lists the same ones. */
export function restRoutes(): RestRoute[] {
  // At run time `_def.procedures` is flat, keyed by dotted path; its static type mirrors the nesting.
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: OpenApiMeta } }>;
  return Object.entries(procedures).flatMap(([procedure, definition]) => {
    const openapi = definition._def.meta?.openapi;
    if (openapi?.method !== "GET") return [];
    const call = productRestCalls[procedure];
    if (!call) throw new Error(`procedure ${procedure} has a REST path but no entry in productRestCalls`);
    return [{ procedure, url: openapi.path.replace(/\{(\w+)\}/g, ":$1"), run: call.run }];
  });
}

/** A lookup's answer, `{pdp}`: the hot path, served from productEnvelope (see caching.ts). */
function isProductEnvelope(output: unknown): output is { pdp: object } {
  return typeof output === "object" && output !== null && "pdp" in output && typeof output.pdp === "object" && output.pdp !== null;
}

const OTHER_METHODS = ["POST", "PUT", "PATCH", "DELETE"] as const;

export const restPlugin: FastifyPluginAsync<{ services: Services; prefixes: readonly string[] }> = async (app, opts) => {
  app.addHook("onSend", conditionalGet);

  async function answer(route: RestRoute, request: FastifyRequest, reply: FastifyReply) {
    try {
      // A 503 if the database still cannot check the key.
      const verified = await verifiedKey(opts.services, request);
      if (verified.code !== "VALID") throw new TRPCError({ code: "UNAUTHORIZED", message: VERIFY_FAILURE_MESSAGES[verified.code] });
      const ctx: CallContext = { services: opts.services, log: request.log, responseHeaders: new Map() };
      // Path parameters win over a query parameter of the same name.
      const output = await route.run(ctx, { ...(request.query as object), ...(request.params as object) });
      reply.headers(responseHeaders(ctx, 200));
      if (!isProductEnvelope(output)) return reply.send(output);
      const { body, etag } = productEnvelope(output.pdp);
      return reply.header("etag", etag).type("application/json; charset=utf-8").send(body);
    } catch (thrown) {
      return sendProblem(reply, problemFromThrown(thrown, request.id, request.log));
    }
  }

  for (const prefix of opts.prefixes) {
    for (const route of restRoutes()) {
      const url = `${prefix}${route.url}`;
      app.get(url, (request, reply) => answer(route, request, reply));
      app.route({
        method: [...OTHER_METHODS],
        url,
        handler: (request, reply) =>
          sendProblem(
            reply.header("allow", "GET, HEAD"),
            problem("method_not_allowed", `${request.method} is not allowed here; use GET.`, request.id),
          ),
      });
    }
  }
};
