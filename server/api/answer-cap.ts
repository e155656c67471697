/**
 * ANSWER_MAX_BYTES: how much JSON one request's answer may hold. Each call's
 * output is measured before it is serialised, against a budget the request's
 * calls share (a tRPC or JSON-RPC batch is one answer), so an answer that
 * would be too large is refused with a problem that says how to ask for less,
 * instead of being built in memory first (a batch of raw lookups of a 20 MB
 * product once built a string past V8's limit: a 500 at 2.5 GB).
 */
import { problem, refusalError } from "./problems.js";

/** A request's share of answer bytes; `copies`: how many times the transport sends each answer (MCP: structured and as text). */
export interface AnswerBudget {
  readonly max: number;
  readonly copies: number;
  spent: number;
}

export function answerBudget(max: number, copies = 1): AnswerBudget {
  return { max, copies, spent: 0 };
}

/** Sizes of objects already measured: a cached product is the same object on every hit, so a repeated lookup is not walked again. */
const measured = new WeakMap<object, number>();

/**
 * The size of `value` as JSON, in bytes, escapes aside (strings by their UTF-8 length and quotes); past
 * `limit` it stops and returns what it has counted, already over. Walks the value without serialising it.
 */
export function jsonSize(value: unknown, limit: number): number {
  switch (typeof value) {
    case "string":
      return Buffer.byteLength(value) + 2;
    case "number":
    case "boolean":
      return String(value).length;
    case "object": {
      if (value === null) return 4;
      const known = measured.get(value);
      if (known !== undefined) return known;
      let size = 2;
      if (Array.isArray(value)) {
        for (const item of value) {
          size += jsonSize(item, limit - size) + 1;
          if (size > limit) return size;
        }
      } else {
        for (const [key, item] of Object.entries(value)) {
          if (item === undefined) continue;
          size += key.length + 4 + jsonSize(item, limit - size);
          if (size > limit) return size;
        }
      }
      measured.set(value, size);
      return size;
    }
    default:
      return 0;
  }
}

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** Counts `output` against the request's budget; a TRPCError carrying the `answer_too_large` problem once it is spent. */
export function spendAnswer(budget: AnswerBudget, output: unknown, requestId: string): void {
  const room = Math.floor((budget.max - budget.spent) / budget.copies);
  const size = jsonSize(output, room);
  if (size <= room) {
    budget.spent += size * budget.copies;
    return;
  }
  const batch = budget.spent > 0 ? " with the calls before it in this batch" : "";
  throw refusalError(
    problem(
      "answer_too_large",
      `This answer${batch} would hold over ${mb(budget.max)} of JSON, the most one answer may hold (ANSWER_MAX_BYTES). ` +
        "Ask for less: leave out include_raw_data, ask for fewer products (limit), or split the batch.",
      requestId,
    ),
  );
}
