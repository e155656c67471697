/** tRPC over HTTP at /trpc, for TypeScript consumers (see shared/client.ts). */
import type { FastifyPluginAsync } from "fastify";
import { fastifyTRPCPlugin, type FastifyTRPCPluginOptions } from "@trpc/server/adapters/fastify";
import type { Services } from "../../services.js";
import { appRouter, type AppRouter } from "../router.js";
import { contextFromRequest, responseHeaders } from "./context.js";

export const trpcPlugin: FastifyPluginAsync<{ services: Services }> = async (app, opts) => {
  const trpcOptions: FastifyTRPCPluginOptions<AppRouter>["trpcOptions"] = {
    router: appRouter,
    createContext: ({ req }) => contextFromRequest(opts.services, req),
    responseMeta: ({ ctx, errors }) => ({
      headers: responseHeaders(ctx, errors.some((error) => error.code === "UNAUTHORIZED") ? 401 : 200),
    }),
    onError: ({ error, req }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") req.log.error({ err: error.cause ?? error }, "internal error");
    },
  };
  await app.register(fastifyTRPCPlugin, { prefix: "/trpc", trpcOptions });
};
