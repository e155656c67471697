/**
 * Problem answers for what never reaches an operation: unknown routes,
 * Fastify's own errors, and what Node's HTTP parser refuses before Fastify
 * sees a request.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ErrorCode, Problem } from "../../../shared/schemas/index.js";
import { problem } from "../problems.js";
import { WWW_AUTHENTICATE } from "./context.js";

/** Every problem is a refusal of this request, not a page to keep: a cache must not answer the next one with it (404, 405 included). */
export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  if (body.status === 401) reply.header("www-authenticate", WWW_AUTHENTICATE);
  return reply.code(body.status).header("cache-control", "no-store").type("application/problem+json").send(JSON.stringify(body));
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, problem("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`, request.id));
}

/** Fastify's own 4xx errors (a body over BODY_LIMIT_BYTES is its 413) by status; the rest are the request's parameters (415: below). */
const CODE_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  401: "unauthorized",
  404: "not_found",
  408: "request_timeout",
  413: "payload_too_large",
  414: "uri_too_long",
  429: "rate_limited",
  431: "headers_too_large",
};

/** The problem for an error of Node's HTTP parser; its message is Node's own fixed text, never the request's bytes. */
function parserProblem(error: NodeJS.ErrnoException, requestId: string, timeoutMs: number): Problem {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return problem("request_timeout", `The request (head and body) did not arrive in full within ${timeoutMs} ms.`, requestId);
  }
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return problem(
      "headers_too_large",
      "The request line and headers are larger than the 16 KB the server reads; send fewer or shorter headers.",
      requestId,
    );
  }
  const reason = error.message.replace(/^Parse Error:\s*/, "").replace(/\.$/, "");
  return problem("malformed_request", `The request is not valid HTTP/1.1: ${reason}.`, requestId);
}

/**
 * Fastify's clientErrorHandler: answers what Node's parser refused (a head over 16 KB, bytes that are not HTTP, a request
 * slower than REQUEST_TIMEOUT_MS) with a problem and an X-Request-Id, then closes the connection. Logged at debug with its
 * code only: the error holds the raw request (rawPacket), keys and all.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const requestId = `req_${randomUUID().replaceAll("-", "")}`;
  const body = parserProblem(error, requestId, this.server.requestTimeout);
  this.log.debug({ request_id: requestId, code: error.code, status: body.status }, "client error");
  // Node's own check: no answer of ours if one was already under way on this connection. `_httpMessage` is its (untyped) response.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
        `X-Request-Id: ${requestId}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * Every method a path does not take, answered 405 with `Allow` (OPTIONS included) before any body is read: the handler is
 * never reached. `allowed` is what the path's own routes take (GET implies HEAD).
 */
export function refuseOtherMethods(app: FastifyInstance, url: string, allowed: readonly string[]): void {
  const taken = [...new Set(allowed.flatMap((method) => (method === "GET" ? ["GET", "HEAD"] : [method])))];
  const refuse = async (request: FastifyRequest, reply: FastifyReply) =>
    sendProblem(
      reply.header("allow", [...taken, "OPTIONS"].join(", ")),
      problem("method_not_allowed", `${request.method} is not allowed here; use ${taken.filter((m) => m !== "HEAD").join(" or ")}.`, request.id),
    );
  app.route({ method: METHODS.filter((method) => !taken.includes(method)), url, onRequest: refuse, handler: refuse });
}

export function installErrorHandlers(app: FastifyInstance): void {
  // An unknown path is answered before its body is read: Fastify would parse it before the not-found handler.
  app.addHook("onRequest", (request, reply, done) => {
    if (request.is404) notFound(request, reply);
    else done();
  });
  app.setNotFoundHandler(notFound);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    // Fastify's own words name the type as sent; ours say what to send.
    if (status === 415)
      return sendProblem(reply, problem("unsupported_media_type", "The body must be JSON, sent with Content-Type: application/json.", request.id));
    if (status >= 400 && status < 500) return sendProblem(reply, problem(CODE_BY_STATUS[status] ?? "invalid_parameter", error.message, request.id));
    request.log.error({ err: error }, "internal error");
    return sendProblem(reply, problem("internal", "Something went wrong on our side; quote the request id if you report it.", request.id));
  });
}
