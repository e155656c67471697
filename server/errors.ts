/**
 * Errors a service throws when the request itself is at fault, named by a
 * stable problem code and, when one parameter is to blame, that parameter. The
 * error boundary (api/problems.ts) turns them into 4xx problems; services stay
 * free of HTTP and tRPC.
 */
import type { ErrorCode } from "../shared/schemas/index.js";

export class RequestError extends Error {
  override readonly name = "RequestError";
  constructor(
    readonly code: Exclude<ErrorCode, "internal" | "unavailable">,
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}
