/**
 * Runs an operation outside tRPC's chain (the REST routes, the MCP tools): the
 * same input schema and call as its procedure, and the answer checked against
 * the output schema, as tRPC checks it, so no transport answers what the
 * contract does not allow.
 */
import { TRPCError } from "@trpc/server";
import type { z } from "zod";
import { OverloadedError } from "./admission.js";
import { chargeAnswer, spendAnswer } from "./answer-cap.js";
import type { CallContext } from "./context.js";
import type { AnyOperation, Operation } from "./operations/index.js";

/**
 * The operation's call on parsed input, every transport's one way in: a search-class call takes an admission
 * slot first (api/admission.ts); with none free it throws OverloadedError, after setting `Retry-After`.
 */
export async function callOperation<I extends z.ZodObject, O extends z.ZodType>(
  operation: Operation<I, O>,
  ctx: CallContext,
  input: z.output<I>,
): Promise<z.input<O>> {
  if (operation.admission !== "search" || !ctx.admission) return operation.call(ctx, input);
  try {
    return await ctx.admission.run(ctx.principal.keyId, () => operation.call(ctx, input));
  } catch (error) {
    if (error instanceof OverloadedError) ctx.responseHeaders.set("retry-after", String(error.retryAfterSeconds));
    throw error;
  }
}

/**
 * Parses the input and runs the call, counting its answer against the request's budget and charging its size;
 * the answer is not yet checked (see checkedOutput).
 */
export async function runCall(operation: AnyOperation, ctx: CallContext, rawInput: unknown): Promise<unknown> {
  const input = operation.input.safeParse(rawInput);
  if (!input.success) throw new TRPCError({ code: "BAD_REQUEST", message: "Invalid input", cause: input.error });
  const output = await callOperation(operation, ctx, input.data);
  await spendAnswer(ctx.answer, output, ctx.requestId);
  await chargeAnswer(ctx);
  return output;
}

/** The answer as the output schema parses it; a mismatch is our fault, a masked 500 as in tRPC. */
export function checkedOutput(operation: AnyOperation, output: unknown): unknown {
  const checked = operation.output.safeParse(output);
  if (!checked.success) throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "Output validation failed", cause: checked.error });
  return checked.data;
}

export async function invoke(operation: AnyOperation, ctx: CallContext, rawInput: unknown): Promise<unknown> {
  return checkedOutput(operation, await runCall(operation, ctx, rawInput));
}
