/**
 * What a log line may hold of a request or an error. Keys never reach the
 * logs: `Authorization` is redacted by the logger, and these serializers keep
 * out every other place a key could ride along: a key-shaped run in the URL
 * (a client that put its key in the query), and whatever an error object
 * carries beyond plain fields (Node's parser errors hold the raw request
 * bytes, headers and all, in `rawPacket`, which would print as a byte array).
 * Whatever else a line holds (a field someone logs later, a message) is
 * caught by the stream every logger writes through, which redacts whole lines.
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
  if (typeof value === "string") return redactKeys(value);
  return typeof value === "number" || typeof value === "boolean" ? value : undefined;
}

/** An error as logged: type, message, stack and its other string, number and boolean fields, then its cause. */
function serializeError(error: Error, depth = 0): LoggedError {
  const logged: LoggedError = { type: error.name, message: redactKeys(error.message), stack: redactKeys(error.stack ?? "") };
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
    url: redactKeys(request.url),
    host: redactKeys(request.host),
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export const logSerializers = { err: (error: Error) => serializeError(error), req: serializeRequest };

/**
 * What a logger writes through: each line with every key redacted, in any percent-encoding (redactKeys), whichever
 * field or message holds it. The serializers above shape what is logged; this is what guarantees no key is.
 */
export function redactingStream(out: { write(chunk: string): unknown } = process.stdout): { write(line: string): void } {
  return {
    write: (line) => {
      out.write(redactKeys(line));
    },
  };
}
