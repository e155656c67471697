/**
 * Reads NDJSON product records line by line, parsing and validating each.
 * Lines are split from the byte stream here (not by readline) so that a line
 * longer than the cap is skipped as it streams by, never held in memory.
 */
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type { ImportLimits } from "./limits.js";
import { overCap } from "./limits.js";
import { describeIssues, exceedsLimits, ImportRecordSchema, type ImportRecord } from "./record.js";

export type ParsedLine = { source: string; line: number; record: ImportRecord } | { source: string; line: number; error: string };

/**
 * `limits` are the configured caps (server/config.ts); without them nothing is capped, which is for the
 * files the project ships (the sample catalog) and benchmarks, never for an operator's input.
 */
export async function* readNdjson(path: string, limits?: ImportLimits): AsyncGenerator<ParsedLine> {
  for await (const item of readJsonLines(path, limits)) yield "error" in item ? item : parseLine(path, item.line, item.text, limits);
}

/**
 * The non-empty lines of a JSON Lines file (gunzipped when it ends in `.gz`), numbered from 1, each as its text, or
 * as the error of one longer than IMPORT_MAX_LINE_BYTES: what every feed format reads (server/feeds) before parsing.
 */
export async function* readJsonLines(
  path: string,
  limits?: ImportLimits,
): AsyncGenerator<{ source: string; line: number; text: string } | { source: string; line: number; error: string }> {
  const raw = createReadStream(path);
  const input = path.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const maxLineBytes = limits?.maxLineBytes ?? Number.POSITIVE_INFINITY;
  let line = 0;
  for await (const item of splitLines(input, maxLineBytes)) {
    line++;
    if ("bytes" in item) {
      yield { source: path, line, error: overCap("line", "IMPORT_MAX_LINE_BYTES", maxLineBytes, item.bytes) };
      continue;
    }
    if (item.text.trim() === "") continue;
    yield { source: path, line, text: item.text };
  }
}

/** Lines of a byte stream (LF or CRLF), each as text, or as its size when it is longer than `maxBytes`. */
export async function* splitLines(input: Readable, maxBytes: number): AsyncGenerator<{ text: string } | { bytes: number }> {
  let parts: Buffer[] = [];
  let size = 0;
  const finish = () => {
    const item = size > maxBytes ? { bytes: size } : { text: Buffer.concat(parts).toString("utf8").replace(/\r$/, "") };
    parts = [];
    size = 0;
    return item;
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      size += end - start;
      if (size <= maxBytes) parts.push(chunk.subarray(start, end));
      else parts = [];
      if (newline === -1) break;
      yield finish();
      start = newline + 1;
    }
  }
  if (size > 0) yield finish();
}

/** A line's JSON object, or why it is not one. */
export function parseJsonObject(text: string): { json: Record<string, unknown> } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON (${(error as Error).message})` };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { error: "not a JSON object" };
  return { json: json as Record<string, unknown> };
}

export function parseLine(source: string, line: number, text: string, limits?: ImportLimits): ParsedLine {
  const object = parseJsonObject(text);
  return "error" in object ? { source, line, error: object.error } : parseRecord(source, line, object.json, limits);
}

/** A JSON object as an import record, validated and within the caps. */
export function parseRecord(source: string, line: number, json: unknown, limits?: ImportLimits): ParsedLine {
  const parsed = ImportRecordSchema.safeParse(json);
  if (!parsed.success) return { source, line, error: describeIssues(parsed.error) };
  const refused = limits && exceedsLimits(parsed.data, limits);
  return refused ? { source, line, error: refused } : { source, line, record: parsed.data };
}
