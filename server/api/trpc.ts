/**
 * tRPC for this service, in three parts: context, init, procedure builders.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { z } from "zod";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { FastifyBaseLogger } from "fastify";
import type { Services } from "../services.js";
import { VERIFY_FAILURE_MESSAGES, type Principal, type VerifyFailure } from "../auth/service.js";
import { isDatabaseUnavailable } from "../db/errors.js";
import { problemFromTrpcError, unavailable } from "./problems.js";

// 1. Context: transport-neutral; the HTTP adapters and in-process callers all build it here.
export interface Context {
  services: Services;
  requestId: string;
  log: FastifyBaseLogger;
  /** The verified caller, or why there is none. */
  auth: { principal: Principal } | { failure: VerifyFailure };
  /** Response headers a procedure wants sent (e.g. how search was ranked). */
  responseHeaders: Map<string, string>;
}

export async function createContext(input: {
  services: Services;
  requestId: string;
  log: FastifyBaseLogger;
  apiKey: string | null;
}): Promise<Context> {
  const result = await input.services.keys.verify(input.apiKey).catch((error: unknown) => {
    throw isDatabaseUnavailable(error) ? unavailable(error) : error;
  });
  return {
    services: input.services,
    requestId: input.requestId,
    log: input.log,
    auth: result.code === "VALID" ? { principal: result.principal } : { failure: result.code },
    responseHeaders: new Map(),
  };
}

// 2. Init: /trpc clients get the same machine code and parameter errors as REST problems.
const t = initTRPC
  .context<Context>()
  .meta<OpenApiMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const problem = problemFromTrpcError(error, ctx?.requestId ?? "");
      return {
        ...shape,
        message: problem.detail,
        data: {
          ...shape.data,
          stack: undefined,
          code: problem.code,
          httpStatus: problem.status,
          errors: problem.errors,
          request_id: problem.request_id,
        },
      };
    },
  });

/** Infrastructure failures become 503 `unavailable`; anything unexpected stays a masked 500. */
const classifyErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && !(result.error.cause instanceof TRPCError) && isDatabaseUnavailable(result.error.cause)) {
    throw unavailable(result.error.cause);
  }
  return result;
});

// 3. Procedure builders, and their twin for the REST routes.
export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(classifyErrors);

/** Requires a valid API key; handlers see `ctx.principal` as non-null. */
export const keyProcedure = publicProcedure.use(({ ctx, next }) => {
  if ("failure" in ctx.auth) throw new TRPCError({ code: "UNAUTHORIZED", message: VERIFY_FAILURE_MESSAGES[ctx.auth.failure] });
  return next({ ctx: { ...ctx, principal: ctx.auth.principal } });
});

/** What a call needs once its key is verified and its input parsed: a Context has all of it. */
export type CallContext = Pick<Context, "services" | "log" | "responseHeaders">;

/** A call the REST routes run without tRPC's chain: the raw input parsed as `.input(schema)` would. */
export interface RestCall {
  run(ctx: CallContext, rawInput: unknown): Promise<unknown>;
}

export function restCall<S extends z.ZodType>(schema: S, call: (ctx: CallContext, input: z.output<S>) => Promise<unknown>): RestCall {
  return {
    run: async (ctx, rawInput) => {
      const parsed = schema.safeParse(rawInput);
      if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", message: "Invalid input", cause: parsed.error });
      return call(ctx, parsed.data);
    },
  };
}
