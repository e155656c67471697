/** Whether an error means "the database is not answering" (as opposed to a bad query). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
    if (/PGlite is closed|connection (?:terminated|ended|closed)/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** The database did not answer within the client's deadline (see `PostgresTimeouts` in open.ts). */
export class DatabaseTimeoutError extends Error {
  override readonly name = "DatabaseTimeoutError";
  readonly code = "DATABASE_TIMEOUT";
  constructor(
    message: string,
    readonly deadlineMs: number,
  ) {
    super(message);
  }
}

/**
 * A read this process chose not to send, to keep the database answering under
 * a flood (of unknown API keys, say): to the client, the same as a database
 * that is not answering, and as retryable.
 */
export class DatabaseShedError extends Error {
  override readonly name = "DatabaseShedError";
  readonly code = "DATABASE_SHED";
}

const UNAVAILABLE_CODES = new Set([
  "DATABASE_TIMEOUT",
  "DATABASE_SHED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOENT",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "53300", // too_many_connections
]);

/**
 * A database error in words safe to print: the driver's own message and SQLSTATE, never the query's
 * parameters (drizzle puts every parameter of a failed query in its message, a whole batch of records).
 */
export function describeDatabaseError(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (!current.message.startsWith("Failed query:")) {
      const code = (current as { code?: unknown }).code;
      const message = current.message.replace(/\s+/g, " ").slice(0, 300);
      return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? `${message} (SQLSTATE ${code})` : message;
    }
    current = current.cause;
  }
  return current instanceof Error ? "the query failed" : String(current).slice(0, 300);
}
