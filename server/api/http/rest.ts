/**
 * The REST paths: trpc-to-openapi serves the router under each prefix. Its
 * error bodies ignore tRPC's errorFormatter (trpc-to-openapi issue 168), so
 * the error is captured here and the body rewritten as a problem.
 */
import type { FastifyPluginAsync, FastifyPluginCallback, FastifyRequest } from "fastify";
import type { TRPCError } from "@trpc/server";
import { fastifyTRPCOpenApiPlugin, type CreateOpenApiFastifyPluginOptions } from "trpc-to-openapi";
import type { Services } from "../../services.js";
import { appRouter, type AppRouter } from "../router.js";
import type { Context } from "../trpc.js";
import { problemFromTrpcError } from "../problems.js";
import { contextFromRequest, responseHeaders } from "./context.js";
import { conditionalGet } from "./caching.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The error a procedure failed with, kept for the problem body. */
    trpcError: TRPCError | null;
  }
}

export const restPlugin: FastifyPluginAsync<{ services: Services; prefixes: readonly string[] }> = async (app, opts) => {
  app.decorateRequest("trpcError", null);

  app.addHook("onSend", async (request, reply, payload) => {
    const error = request.trpcError;
    if (!error || reply.statusCode < 400) return payload;
    const problem = problemFromTrpcError(error, request.id);
    if (problem.code === "internal") request.log.error({ err: error.cause ?? error }, "internal error");
    reply.code(problem.status).type("application/problem+json");
    return JSON.stringify(problem);
  });
  // After the problem rewrite, so only real 200s are tagged; compression (a route hook) runs after both.
  app.addHook("onSend", conditionalGet);

  const bridge = fastifyTRPCOpenApiPlugin as FastifyPluginCallback<CreateOpenApiFastifyPluginOptions<AppRouter>>;
  for (const basePath of opts.prefixes) {
    await app.register(bridge, {
      basePath: basePath as `/${string}`,
      router: appRouter,
      // The Fastify adapter hands over Fastify's own request object.
      createContext: ({ req }) => contextFromRequest(opts.services, req as unknown as FastifyRequest),
      responseMeta: ({ ctx, errors }) => {
        const status = errors[0]?.code === "UNAUTHORIZED" ? 401 : 200;
        return { headers: responseHeaders(ctx as Context | undefined, status) };
      },
      onError: ({ error, req }) => {
        (req as unknown as FastifyRequest).trpcError = error;
      },
    });
  }
};
