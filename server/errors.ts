/**
 * Errors a service throws for an expected outcome that is not an answer, named
 * by a stable problem code and, when one parameter is to blame, that parameter:
 * the request itself at fault (4xx), or a merchant's site that a live lookup
 * fetched from (502, 504). The error boundary (api/problems.ts) turns them into
 * problems; services stay free of HTTP and tRPC.
 */
import type { ErrorCode } from "../shared/schemas/index.js";

export class RequestError extends Error {
  override readonly name = "RequestError";
  constructor(
    readonly code: Exclude<ErrorCode, "internal" | "unavailable">,
    message: string,
    readonly param?: string,
    /** For `gone`: when the product's page was found withdrawn. */
    readonly goneAt?: Date,
  ) {
    super(message);
  }
}

/** A product whose page was withdrawn (404 or 410): 410 `gone`, saying when. */
export function goneError(what: string, goneAt: Date): RequestError {
  return new RequestError("gone", `${what} left the catalog: its page was found withdrawn on ${goneAt.toISOString()}.`, undefined, goneAt);
}
