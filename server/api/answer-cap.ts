/**
 * ANSWER_MAX_BYTES: how much JSON one request's answer may hold, and
 * ANSWER_BYTES_PER_UNIT: what its size costs in rate-limit units. Each call's
 * output is measured before it is serialised, against a budget the request's
 * calls share (a tRPC or JSON-RPC batch is one answer), so an answer that
 * would be too large is refused with a problem that says how to ask for less,
 * instead of being built in memory first (a batch of raw lookups of a 20 MB
 * product once built a string past V8's limit: a 500 at 2.5 GB).
 *
 * Why size is charged: a call's declared cost says what it costs to find an
 * answer, not to send it; a 5-unit search with raw data answered 31 MB, whose
 * serialising, hashing and compressing took other clients' lookups from 1 ms
 * to 1.4 s (issue 47). So once a call's answer is measured, and before it is
 * serialised, the key is charged a unit per ANSWER_BYTES_PER_UNIT the request's
 * answer holds (chargeAnswer), and refused (429) if that spends its limit.
 */
import { setImmediate } from "node:timers/promises";
import { jsonSize, MEMO_BYTES, measured } from "../json-size.js";
import type { CallContext } from "./context.js";
import { problem, refusalError } from "./problems.js";

/** The server's settings for answers: ANSWER_MAX_BYTES and ANSWER_BYTES_PER_UNIT. */
export interface AnswerSettings {
  maxBytes: number;
  bytesPerUnit: number;
}

/** A request's share of answer bytes; `copies`: how many times the transport sends each answer (MCP: structured and as text). */
export interface AnswerBudget {
  readonly max: number;
  readonly copies: number;
  readonly bytesPerUnit: number;
  spent: number;
  /** Units charged so far for the answer's size. */
  charged: number;
}

export function answerBudget(settings: AnswerSettings, copies = 1): AnswerBudget {
  return { max: settings.maxBytes, copies, bytesPerUnit: settings.bytesPerUnit, spent: 0, charged: 0 };
}

/** How many more bytes of JSON (one copy's) the request's answer may hold. */
export function answerRoom(budget: AnswerBudget): number {
  return Math.floor((budget.max - budget.spent) / budget.copies);
}

/** The units the request's answer owes for its size so far: one per whole `bytesPerUnit` of JSON (one copy's). */
export function answerUnits(budget: AnswerBudget): number {
  return Math.floor(budget.spent / budget.copies / budget.bytesPerUnit);
}

/**
 * Charges the key what the answer measured so far owes for its size beyond what was charged (a batch's calls add up);
 * throws the 429 `rate_limited` RequestError when that spends the limit, before the answer is serialised.
 */
export async function chargeAnswer(ctx: Pick<CallContext, "answer" | "charge">): Promise<void> {
  const due = answerUnits(ctx.answer) - ctx.answer.charged;
  if (due <= 0) return;
  ctx.answer.charged += due;
  await ctx.charge(due);
}

/** Answers measured past this many bytes are measured again in pieces, a turn of the event loop apart. */
const PIECE_BYTES = 1_048_576;
/** How deep the pieces go: an answer, its list, an item, its record; what is deeper is measured whole. */
const PIECE_DEPTH = 4;

/**
 * jsonSize, for a large answer: the same count, a turn of the event loop after every PIECE_BYTES measured, so
 * walking a search's 30 pages of raw data (hundreds of thousands of small objects, ~50 ms) does not hold up
 * other requests in one go (issue 47).
 */
async function jsonSizeInPieces(value: unknown, limit: number, depth: number, turn: { since: number }): Promise<number> {
  if (depth >= PIECE_DEPTH || typeof value !== "object" || value === null) {
    const size = jsonSize(value, limit);
    turn.since += size;
    if (turn.since >= PIECE_BYTES) {
      turn.since = 0;
      await setImmediate();
    }
    return size;
  }
  const known = measured.get(value);
  if (known !== undefined) return known;
  let size = 2;
  if (Array.isArray(value)) {
    for (const item of value) {
      size += (await jsonSizeInPieces(item, limit - size, depth + 1, turn)) + 1;
      if (size > limit) return size;
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item === undefined) continue;
      size += key.length + 4 + (await jsonSizeInPieces(item, limit - size, depth + 1, turn));
      if (size > limit) return size;
    }
  }
  if (size >= MEMO_BYTES) measured.set(value, size);
  return size;
}

function mb(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** Counts `output` against the request's budget; a TRPCError carrying the `answer_too_large` problem once it is spent. */
export async function spendAnswer(budget: AnswerBudget, output: unknown, requestId: string): Promise<void> {
  const room = answerRoom(budget);
  // Most answers are small and measured at once; one past PIECE_BYTES is measured again, in pieces.
  const quick = Math.min(room, PIECE_BYTES);
  let size = jsonSize(output, quick);
  if (size > quick && room > quick) size = await jsonSizeInPieces(output, room, 0, { since: 0 });
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
