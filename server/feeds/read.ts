/**
 * Reading a feed file: each line parsed, validated against its format's schema, mapped to a record, and checked as
 * every imported record is (server/ingest/record.ts). A bad line is an error with its line number; the rest go on.
 */
import type { ZodError } from "zod";
import type { ImportLimits } from "../ingest/limits.js";
import { type ParsedLine, parseJsonObject, parseRecord, readJsonLines } from "../ingest/ndjson.js";
import { describeIssues } from "../ingest/record.js";
import { acpToRecord, AcpProductSchema } from "./acp.js";
import { ucpToRecord, UcpFeedProductSchema } from "./ucp.js";

export const FEED_FORMATS = ["ndjson", "acp", "ucp"] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

export function isFeedFormat(value: string): value is FeedFormat {
  return (FEED_FORMATS as readonly string[]).includes(value);
}

/**
 * The format a line's object is written in, by the members each format requires: a UCP product has `variants` (a
 * catalog answer, `products`); an ACP line has `link` and `title`; a record of ours has `url` or `name`.
 */
export function detectFormat(json: Record<string, unknown>): FeedFormat | undefined {
  if (Array.isArray(json.variants) || Array.isArray(json.products)) return "ucp";
  if ("link" in json && "title" in json) return "acp";
  if ("url" in json || "name" in json) return "ndjson";
  return undefined;
}

/**
 * The records of a JSON Lines file in `format`, or, without one, in the format its first recognisable line is
 * written in (a line before it that no format recognises is read as our own record, and reported as one would be).
 */
export async function* readFeed(path: string, limits: ImportLimits, format?: FeedFormat): AsyncGenerator<ParsedLine> {
  let known = format;
  for await (const item of readJsonLines(path, limits)) {
    if ("error" in item) {
      yield item;
      continue;
    }
    const { source, line } = item;
    const object = parseJsonObject(item.text);
    if ("error" in object) {
      yield { source, line, error: object.error };
      continue;
    }
    known ??= detectFormat(object.json);
    yield* parseObject(source, line, object.json, known ?? "ndjson", limits);
  }
}

function parseObject(source: string, line: number, json: Record<string, unknown>, format: FeedFormat, limits: ImportLimits): ParsedLine[] {
  if (format === "ndjson") return [parseRecord(source, line, json, limits)];
  if (format === "acp") {
    const parsed = AcpProductSchema.safeParse(json);
    return [parsed.success ? asRecord(source, line, acpToRecord(parsed.data)) : failure(source, line, parsed.error)];
  }
  // A catalog answer's products, each checked on its own: one bad product does not cost the others.
  if (Array.isArray(json.products)) return json.products.map((product, index) => parseUcp(source, line, product, `products.${index}.`));
  return [parseUcp(source, line, json, "")];
}

function parseUcp(source: string, line: number, json: unknown, at: string): ParsedLine {
  const parsed = UcpFeedProductSchema.safeParse(json);
  if (!parsed.success) return failure(source, line, parsed.error, at);
  const record = ucpToRecord(parsed.data);
  return "error" in record ? { source, line, error: `${at}${record.error}` } : asRecord(source, line, record, at);
}

function failure(source: string, line: number, error: ZodError, at = ""): ParsedLine {
  return { source, line, error: describeIssues(error, at) };
}

/** The mapped record through the import's own validation; what fails there is named as the record's field. */
function asRecord(source: string, line: number, record: unknown, at = ""): ParsedLine {
  const parsed = parseRecord(source, line, record);
  return "error" in parsed ? { source, line, error: `${at}as a record: ${parsed.error}` } : parsed;
}
