/**
 * tRPC for this service, in three parts: context, init, and the procedures,
 * each derived from an operation of the table (operations/). The key was
 * verified and the call charged by the HTTP gate before any procedure runs.
 */
import { initTRPC } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import type { z } from "zod";
import { chargeAnswer, spendAnswer } from "./answer-cap.js";
import type { CallContext } from "./context.js";
import { callOperation } from "./invoke.js";
import type { AnyOperation, Operation } from "./operations/index.js";
import { classified, problemFromTrpcError } from "./problems.js";

// 1. Context: what every call sees (context.ts), built by each transport.
export type { CallContext as Context } from "./context.js";

// 2. Init: /trpc clients get the same machine code and parameter errors as REST problems.
const t = initTRPC
  .context<CallContext>()
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
          gone_at: problem.gone_at,
        },
      };
    },
  });

/** A service's request errors become their 4xx, infrastructure failures 503 `unavailable`; anything unexpected stays a masked 500. */
const classifyErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const error = classified(result.error.cause);
    if (error) throw error;
  }
  return result;
});

// 3. Procedures, one per operation.
export const router = t.router;
const procedure = t.procedure.use(classifyErrors);

/** Every operation can answer these beyond its own (e.g. 404). */
const COMMON_ERRORS = {
  400: "Invalid parameter (`invalid_parameter`), or an answer larger than one may be (`answer_too_large`)",
  401: "Missing or invalid API key",
  429: "The key's rate limit is used up; `Retry-After` says when to try again",
  500: "Something went wrong on our side; the problem's `request_id` is in the logs with the cause",
  503: "Database unavailable",
};

/** What an operation with a JSON body (a mutation, POST) can answer beyond COMMON_ERRORS. */
const BODY_ERRORS: Record<number, string> = {
  413: "The body is larger than `BODY_LIMIT_BYTES`",
  415: "The body is not sent as `application/json` (`unsupported_media_type`)",
};

/** What trpc-to-openapi reads to put the operation in the OpenAPI document. */
function openApiMeta(operation: AnyOperation): OpenApiMeta {
  return {
    openapi: {
      method: operation.rest.method,
      path: operation.rest.path,
      tags: [operation.tag],
      summary: operation.title,
      ...(operation.description ? { description: operation.description } : {}),
      protect: operation.auth === "key",
      errorResponses: { ...COMMON_ERRORS, ...(operation.kind === "mutation" ? BODY_ERRORS : undefined), ...operation.rest.errors },
    },
  };
}

/**
 * The call behind a procedure. tRPC types a schema's input and output through a conditional
 * type that TypeScript cannot resolve for a generic schema; for a Zod schema they are
 * `z.output<I>` and `z.input<O>`, which is all these casts say. The answer counts against the
 * request's ANSWER_MAX_BYTES (a batch's calls share one budget) and its size is charged before tRPC serialises it.
 */
async function resolve<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O>, ctx: CallContext, input: unknown): Promise<never> {
  const output = await callOperation(operation, ctx, input as z.output<I>);
  await spendAnswer(ctx.answer, output, ctx.requestId);
  await chargeAnswer(ctx);
  return output as never;
}

/** The procedure's declaration: meta for the OpenAPI document, the input and output schemas. */
function declared<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O>) {
  return procedure.meta(openApiMeta(operation)).input(operation.input).output(operation.output);
}

function queryProcedure<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O, "query">) {
  return declared(operation).query(({ ctx, input }) => resolve(operation, ctx, input));
}

function mutationProcedure<I extends z.ZodObject, O extends z.ZodType>(operation: Operation<I, O, "mutation">) {
  return declared(operation).mutation(({ ctx, input }) => resolve(operation, ctx, input));
}

type ProcedureOf<Op> =
  Op extends Operation<infer I, infer O, "query">
    ? ReturnType<typeof queryProcedure<I, O>>
    : Op extends Operation<infer I, infer O, "mutation">
      ? ReturnType<typeof mutationProcedure<I, O>>
      : never;

/** The router record for a table: `{ namespace: { name: procedure } }`, typed per operation so clients stay end-to-end typed. */
export type ProceduresOf<T extends Record<string, Record<string, AnyOperation>>> = { [N in keyof T]: { [K in keyof T[N]]: ProcedureOf<T[N][K]> } };

export function proceduresFrom<T extends Record<string, Record<string, AnyOperation>>>(table: T): ProceduresOf<T> {
  const record = Object.fromEntries(
    Object.entries(table).map(([namespace, entries]) => [
      namespace,
      Object.fromEntries(
        Object.entries(entries).map(([name, operation]) => [
          name,
          operation.kind === "query" ? queryProcedure(operation) : mutationProcedure(operation),
        ]),
      ),
    ]),
  );
  // Object.fromEntries forgets which key holds which procedure; the mapped type restores what the loops built.
  return record as ProceduresOf<T>;
}
