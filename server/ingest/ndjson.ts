/** Reads NDJSON product records line by line, parsing and validating each. */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import { describeIssues, ImportRecordSchema, type ImportRecord } from "./record.js";

export type ParsedLine = { source: string; line: number; record: ImportRecord } | { source: string; line: number; error: string };

export async function* readNdjson(path: string): AsyncGenerator<ParsedLine> {
  const raw = createReadStream(path);
  const input = path.endsWith(".gz") ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === "") continue;
    yield parseLine(path, line, text);
  }
}

export function parseLine(source: string, line: number, text: string): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { source, line, error: `not valid JSON (${(error as Error).message})` };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { source, line, error: "not a JSON object" };
  }
  const parsed = ImportRecordSchema.safeParse(json);
  return parsed.success ? { source, line, record: parsed.data } : { source, line, error: describeIssues(parsed.error) };
}
