/**
 * The one error boundary: every failure becomes an RFC 9457 problem with a
 * stable machine code. Internal messages never reach a client.
 */
import { getTRPCErrorFromUnknown, TRPCError } from "@trpc/server";
import type { FastifyBaseLogger } from "fastify";
import { isDatabaseUnavailable } from "../db/errors.js";
import { RequestError } from "../errors.js";
import type { $ZodIssue } from "zod/v4/core";
import type { ErrorCode, Problem } from "../../shared/schemas/index.js";

const STATUS: Record<ErrorCode, number> = {
  invalid_parameter: 400,
  invalid_cursor: 400,
  malformed_request: 400,
  // The request was fine but what it asks for is bigger than one answer may be: ask for less (see answer-cap.ts).
  answer_too_large: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  gone: 410,
  request_timeout: 408,
  payload_too_large: 413,
  // A POST body that is not JSON (text/plain, a form): said so, rather than as a missing member.
  unsupported_media_type: 415,
  uri_too_long: 414,
  headers_too_large: 431,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  // Busy with other searches (api/admission.ts): refused at once, with Retry-After, rather than queued for seconds.
  overloaded: 503,
  // A live lookup's fetch (LIVE_LOOKUP_HOSTS): the merchant's site failed (5xx, a reset, a redirect loop), or did not answer in time.
  upstream_error: 502,
  upstream_timeout: 504,
};

const TITLE: Record<ErrorCode, string> = {
  invalid_parameter: "Invalid parameter",
  invalid_cursor: "Invalid cursor",
  malformed_request: "Malformed request",
  answer_too_large: "Answer too large",
  unauthorized: "Unauthorized",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  gone: "Gone",
  request_timeout: "Request timeout",
  payload_too_large: "Request body too large",
  unsupported_media_type: "Unsupported media type",
  uri_too_long: "URI too long",
  headers_too_large: "Request headers too large",
  rate_limited: "Too many requests",
  internal: "Internal error",
  unavailable: "Service unavailable",
  overloaded: "Too busy",
  upstream_error: "Merchant site failed",
  upstream_timeout: "Merchant site timed out",
};

const DOCS = "https://product-catalog.example/problems/";

export function problem(code: ErrorCode, detail: string, requestId: string, errors?: Problem["errors"], goneAt?: Date): Problem {
  return {
    type: `${DOCS}${code.replaceAll("_", "-")}`,
    title: TITLE[code],
    status: STATUS[code],
    detail,
    code,
    request_id: requestId,
    ...(errors ? { errors } : {}),
    ...(goneAt ? { gone_at: goneAt.toISOString() } : {}),
  };
}

function isZodError(value: unknown): value is Error & { issues: $ZodIssue[] } {
  return value instanceof Error && value.name === "ZodError" && Array.isArray((value as { issues?: unknown }).issues);
}

/**
 * `[{param, message}]` from Zod issues; the path names the parameter (`limit`, `inputs.3.gtin`). An item of a list
 * parameter is named by its list (`facets`, not `facets.0`): a query string has no index to point at.
 */
function parameterErrors(issues: readonly $ZodIssue[]): NonNullable<Problem["errors"]> {
  const seen = new Set<string>();
  return issues.flatMap((issue) => {
    const path = typeof issue.path.at(-1) === "number" ? issue.path.slice(0, -1) : issue.path;
    const param = path.length > 0 ? path.map(String).join(".") : "(input)";
    if (seen.has(param)) return [];
    seen.add(param);
    return [{ param, message: worded(issue) }];
  });
}

/**
 * A client's words for Zod's own on a value of the wrong type ("Invalid input: expected string, received undefined"),
 * which the shared schemas' own messages do not cover (a tRPC or MCP input without a member the REST route always has).
 */
function worded(issue: $ZodIssue): string {
  if (issue.code !== "invalid_type" || !issue.message.startsWith("Invalid input")) return issue.message;
  if (issue.message.endsWith("received undefined")) return issue.path.length === 0 ? "is required: an object of parameters" : "is required";
  const expected = String(issue.expected);
  return `must be ${/^[aeiou]/.test(expected) ? "an" : "a"} ${expected}`;
}

const CODE_BY_TRPC: Partial<Record<TRPCError["code"], ErrorCode>> = {
  BAD_REQUEST: "invalid_parameter",
  PARSE_ERROR: "invalid_parameter",
  // A request the API cannot take as sent (wrong method, body type or size) is the client's to fix.
  METHOD_NOT_SUPPORTED: "invalid_parameter",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  PAYLOAD_TOO_LARGE: "payload_too_large",
  UNPROCESSABLE_CONTENT: "invalid_parameter",
  FORBIDDEN: "unauthorized",
  UNAUTHORIZED: "unauthorized",
  NOT_FOUND: "not_found",
  TOO_MANY_REQUESTS: "rate_limited",
  SERVICE_UNAVAILABLE: "unavailable",
  TIMEOUT: "unavailable",
  BAD_GATEWAY: "upstream_error",
  GATEWAY_TIMEOUT: "upstream_timeout",
};

/**
 * A request the HTTP gate refused (401, 429, 503) before any call ran, carrying the problem it
 * decided on; tRPC answers it in tRPC's shape with the same code and detail.
 */
class Refusal extends Error {
  override readonly name = "Refusal";
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

const TRPC_BY_CODE: Partial<Record<ErrorCode, TRPCError["code"]>> = {
  invalid_cursor: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  // tRPC has no 410; its error's `data` carries the problem's code `gone` and status 410.
  gone: "NOT_FOUND",
  unauthorized: "UNAUTHORIZED",
  rate_limited: "TOO_MANY_REQUESTS",
  unavailable: "SERVICE_UNAVAILABLE",
  overloaded: "SERVICE_UNAVAILABLE",
  invalid_parameter: "BAD_REQUEST",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  answer_too_large: "BAD_REQUEST",
  upstream_error: "BAD_GATEWAY",
  upstream_timeout: "GATEWAY_TIMEOUT",
};

/** The TRPCError for a refusal, with the HTTP status its problem has. */
export function refusalError(problem: Problem): TRPCError {
  return new TRPCError({ code: TRPC_BY_CODE[problem.code] ?? "INTERNAL_SERVER_ERROR", message: problem.detail, cause: new Refusal(problem) });
}

export function problemFromTrpcError(error: TRPCError, requestId: string): Problem {
  if (error.cause instanceof Refusal) return error.cause.problem;
  if (error.cause instanceof RequestError) {
    const { code, message, param, goneAt } = error.cause;
    return problem(code, message, requestId, param ? [{ param, message }] : undefined, goneAt);
  }
  // Only a refused input is the client's to fix; an answer that fails its output schema is ours.
  if (error.code === "BAD_REQUEST" && isZodError(error.cause)) {
    const errors = parameterErrors(error.cause.issues);
    const detail = errors.map((e) => `${e.param} ${e.message}`).join("; ");
    return problem("invalid_parameter", detail, requestId, errors);
  }
  const code = CODE_BY_TRPC[error.code] ?? "internal";
  const detail = code === "internal" ? "Something went wrong on our side; quote the request id if you report it." : error.message;
  return problem(code, detail, requestId);
}

/**
 * The TRPCError, with the right status, for what a call threw that is not one already: a request
 * error of a service (4xx), or a database that does not answer (503). Undefined otherwise.
 */
export function classified(thrown: unknown): TRPCError | undefined {
  if (thrown instanceof TRPCError) return undefined;
  if (thrown instanceof RequestError)
    return new TRPCError({ code: TRPC_BY_CODE[thrown.code] ?? "BAD_REQUEST", message: thrown.message, cause: thrown });
  if (isDatabaseUnavailable(thrown)) return unavailable(thrown);
  return undefined;
}

export function unavailable(cause: unknown): TRPCError {
  return new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "The catalog database is not answering.", cause });
}

/**
 * The problem for whatever a call outside tRPC's chain threw (the REST routes,
 * the MCP tools): a database that does not answer is 503 `unavailable`, and an
 * unexpected failure is logged, then masked as `internal`.
 */
export function problemFromThrown(thrown: unknown, requestId: string, log: FastifyBaseLogger): Problem {
  const error = classified(thrown) ?? getTRPCErrorFromUnknown(thrown);
  const problem = problemFromTrpcError(error, requestId);
  if (problem.code === "internal") log.error({ err: error.cause ?? error }, "internal error");
  return problem;
}
