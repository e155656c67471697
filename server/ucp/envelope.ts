/**
 * The protocol's envelope: the `ucp` member every answer carries, its
 * messages, and the error answer (`ucp.status: "error"`) that is both
 * get_product's not-found outcome and, on this service's UCP routes, the body of
 * every transport error (400, 401, 429, 503, …): the REST binding fixes those
 * errors' status codes but not their bodies, and this is the protocol's own
 * error shape, so a UCP client parses one shape whatever went wrong.
 */
import { TRPCError } from "@trpc/server";
import type { FastifyBaseLogger } from "fastify";
import type { $ZodIssue } from "zod/v4/core";
import { type Problem, UCP_VERSION, type UcpErrorResponse, type UcpMessage } from "../../shared/schemas/index.js";
import { problemFromThrown } from "../api/problems.js";
import { RequestError } from "../errors.js";

/** The `ucp` member of an answer of `capability`: the version and the one capability it ran. */
export function ucpMeta(capability: string, status?: "error") {
  return { version: UCP_VERSION, ...(status ? { status } : {}), capabilities: { [capability]: [{ version: UCP_VERSION }] } };
}

export function info(code: string, content: string): UcpMessage {
  return { type: "info", code, content };
}

/** A JSONPath (RFC 9535) for a request member: `["filters", "price", "min"]` → `$.filters.price.min`. */
function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (at, part) =>
      typeof part === "number"
        ? `${at}[${part}]`
        : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(part))
          ? `${at}.${String(part)}`
          : `${at}['${String(part)}']`,
    "$",
  );
}

/** What a refused request is told: an HTTP status and the protocol's error answer. */
export interface UcpTransportError {
  status: number;
  body: UcpErrorResponse;
}

export function errorResponse(messages: UcpMessage[], capability?: string): UcpErrorResponse {
  return { ucp: capability ? ucpMeta(capability, "error") : { version: UCP_VERSION, status: "error" }, messages };
}

/** A transport error's message: recoverable, since the platform can fix the request (or wait) and send it again. */
function errorMessage(code: string, content: string, path?: string): UcpMessage {
  return { type: "error", code, content, severity: "recoverable", ...(path ? { path } : {}) };
}

export function fromProblem(problem: Problem): UcpTransportError {
  const messages = problem.errors?.length
    ? problem.errors.map((error) => errorMessage(problem.code, `${error.param} ${error.message}`, jsonPath(error.param.split("."))))
    : [errorMessage(problem.code, problem.code === "internal" ? `${problem.detail} (${problem.request_id})` : problem.detail)];
  return { status: problem.status, body: errorResponse(messages) };
}

function isZodError(value: unknown): value is Error & { issues: $ZodIssue[] } {
  return value instanceof Error && value.name === "ZodError" && Array.isArray((value as { issues?: unknown }).issues);
}

/** A batch over the limit is the binding's `request_too_large`; any other refused member `invalid_parameter`. */
function issueCode(issue: $ZodIssue): string {
  return issue.code === "too_big" && issue.path.length === 1 && issue.path[0] === "ids" ? "request_too_large" : "invalid_parameter";
}

/** The transport error for what a UCP call threw: its input refused (400, one message per member), or what the boundary makes of it. */
export function transportError(thrown: unknown, requestId: string, log: FastifyBaseLogger): UcpTransportError {
  const cause = thrown instanceof TRPCError ? thrown.cause : undefined;
  if (thrown instanceof TRPCError && thrown.code === "BAD_REQUEST" && isZodError(cause)) {
    const messages = cause.issues.map((issue) => {
      const member = issue.path.map(String).join(".");
      return errorMessage(issueCode(issue), member ? `${member} ${issue.message}` : issue.message, jsonPath(issue.path));
    });
    return { status: 400, body: errorResponse(messages) };
  }
  // A refusal of what was asked is the protocol's 400 naming the member; gone (410) and overloaded (503) keep their status.
  if (thrown instanceof RequestError && thrown.code !== "gone" && thrown.code !== "overloaded") {
    return {
      status: 400,
      body: errorResponse([errorMessage(thrown.code, thrown.message, thrown.param ? jsonPath(thrown.param.split(".")) : undefined)]),
    };
  }
  return fromProblem(problemFromThrown(thrown, requestId, log));
}
