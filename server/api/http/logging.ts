/**
 * What a log line may hold of a request or an error, and the stream every logger writes through. Keys never reach
 * the logs: `Authorization` is redacted by the logger, these serializers keep out what an error object carries beyond
 * plain fields (Node's parser errors hold the raw request bytes, headers and all, in `rawPacket`, which would print as
 * a byte array), and the stream redacts every key-shaped run in each whole line, in any percent-encoding (a key in
 * the URL's query, in `host`, in a message), once, whichever field holds it.
 */
import type { FastifyRequest } from "fastify";
import { redactKeys } from "../../auth/keys.js";

/** How deep a chain of causes is followed. */
const MAX_CAUSES = 5;

interface LoggedError {
  type: string;
  message: string;
  stack: string;
  [field: string]: unknown;
}

/** A plain field as logged; buffers, objects and the like are left out. */
function plain(value: unknown): string | number | boolean | undefined {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? value : undefined;
}

/** An error as logged: type, message, stack and its other string, number and boolean fields, then its cause. */
function serializeError(error: Error, depth = 0): LoggedError {
  const logged: LoggedError = { type: error.name, message: error.message, stack: error.stack ?? "" };
  for (const [name, value] of Object.entries(error)) {
    const field = plain(value);
    if (field !== undefined) logged[name] = field;
  }
  if (error.cause instanceof Error && depth < MAX_CAUSES) logged.cause = serializeError(error.cause, depth + 1);
  else if (error.cause !== undefined) logged.cause = plain(error.cause);
  return logged;
}

function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export const logSerializers = { err: (error: Error) => serializeError(error), req: serializeRequest };

/** How lines are written (LOG_FORMAT once `auto` is settled). */
export type LogFormat = "json" | "human";

/** LOG_FORMAT settled: `auto` is human on a terminal, JSON for anything that reads lines (a file, a pipe, a collector). */
export function resolveLogFormat(setting: "auto" | LogFormat, stream: { isTTY?: boolean } = process.stdout): LogFormat {
  return setting === "auto" ? (stream.isTTY ? "human" : "json") : setting;
}

const LEVEL_NAMES: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
/** pino's own fields, said otherwise (the time, the level) or of no use to a person at a terminal. */
const SHOWN_OTHERWISE = new Set(["level", "time", "pid", "hostname", "msg", "req", "res", "responseTime", "reqId"]);

/** A pino line as one line for a person: time, level, message, the request in brief, then the other fields. */
export function humanLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString().slice(11, 23) : "";
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level ?? "");
  const req = entry.req as { method?: string; url?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  const parts = [time, level.padEnd(5), String(entry.msg ?? "")];
  if (req?.method) parts.push(`${req.method} ${req.url ?? ""}`);
  if (res?.statusCode !== undefined) parts.push(String(res.statusCode));
  if (typeof entry.responseTime === "number") parts.push(`${entry.responseTime.toFixed(1)} ms`);
  const rest = Object.entries(entry).filter(([name]) => !SHOWN_OTHERWISE.has(name));
  for (const [name, value] of rest) parts.push(`${name}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  return `${parts.filter(Boolean).join(" ")}\n`;
}

/**
 * What a logger writes through: each line with every key redacted, in any percent-encoding (redactKeys), whichever
 * field or message holds it, and as JSON or as a line for a person (LOG_FORMAT). The serializers above shape what
 * is logged; this is what guarantees no key is.
 */
export function redactingStream(out: { write(chunk: string): unknown } = process.stdout, format: LogFormat = "json"): { write(line: string): void } {
  return {
    write: (line) => {
      const redacted = redactKeys(line);
      out.write(format === "human" ? humanLine(redacted) : redacted);
    },
  };
}
