/**
 * A large answer's JSON, written a piece at a time with a turn of the event loop between pieces, so serialising
 * tens of MB of raw page data does not hold up every other request (issue 47: one JSON.stringify of a 20 MB search
 * answer took ~70 ms in one go). The text is exactly JSON.stringify's: the answer is plain JSON data (checked by its
 * output schema), and anything deeper than PIECE_DEPTH, or with a toJSON, is left to JSON.stringify whole.
 */
import { setImmediate } from "node:timers/promises";

/** Answers from this many bytes of JSON (as measured for ANSWER_MAX_BYTES) are written in pieces. */
export const PIECES_FROM_BYTES = 1_048_576;
/** How deep pieces go: an answer, its list, an item, its record (whose raw data is one piece, about a page's size). */
const PIECE_DEPTH = 4;
/** Text written between two turns of the event loop: about a millisecond of JSON.stringify. */
const TURN_CHARS = 262_144;

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
const omitted = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

interface Writer {
  parts: string[];
  sinceTurn: number;
}

function push(out: Writer, text: string): void {
  out.parts.push(text);
  out.sinceTurn += text.length;
}

async function turn(out: Writer): Promise<void> {
  if (out.sinceTurn < TURN_CHARS) return;
  out.sinceTurn = 0;
  await setImmediate();
}

async function write(value: unknown, depth: number, out: Writer): Promise<void> {
  if (depth >= PIECE_DEPTH || typeof value !== "object" || value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    push(out, JSON.stringify(value));
    return;
  }
  if (Array.isArray(value)) {
    push(out, "[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) push(out, ",");
      const item: unknown = value[i];
      if (omitted(item)) push(out, "null");
      else await write(item, depth + 1, out);
      await turn(out);
    }
    push(out, "]");
    return;
  }
  const record = value as Record<string, unknown>;
  push(out, "{");
  let first = true;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (omitted(item)) continue;
    push(out, `${first ? "" : ","}${JSON.stringify(key)}:`);
    first = false;
    await write(item, depth + 1, out);
    await turn(out);
  }
  push(out, "}");
}

/** JSON.stringify(value), written in pieces a turn of the event loop apart. */
export async function stringifyInPieces(value: unknown): Promise<string> {
  const out: Writer = { parts: [], sinceTurn: 0 };
  await write(value, 0, out);
  return out.parts.join("");
}
