/**
 * The Universal Commerce Protocol's REST binding: one POST route per UCP
 * operation of the table under UCP_BASE (`/ucp/catalog/search`, …), and the
 * business profile at /.well-known/ucp (public).
 *
 * Behind the same gate as every keyed route (the key, the operation's cost),
 * but in the protocol's terms: every request names its platform in
 * `UCP-Agent`; business outcomes are 200 answers with `messages`; what stops a
 * request (a body that is not JSON, an invalid member, a batch too large, no
 * key, a spent limit) keeps its HTTP status and answers the protocol's error
 * envelope (`ucp.status: "error"`, `messages`) instead of a problem.
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Problem } from "../../../shared/schemas/index.js";
import type { Services } from "../../services.js";
import { readAgentHeader } from "../../ucp/agent.js";
import { errorResponse, fromProblem, transportError, type UcpTransportError } from "../../ucp/envelope.js";
import { businessProfile } from "../../ucp/profile.js";
import { type AnswerSettings, answerBudget } from "../answer-cap.js";
import { checkedOutput, runCall } from "../invoke.js";
import { type AnyOperation, baseOf, operationList } from "../operations/index.js";
import { problem, problemFromThrown } from "../problems.js";
import type { Admission } from "../admission.js";
import { callContext, responseHeaders, WWW_AUTHENTICATE } from "./context.js";
import { addVary, optionsRoute } from "./cors.js";
import { sendProblem } from "./errors.js";

export interface UcpRoute {
  url: string;
  operation: AnyOperation;
}

/** Every UCP operation's route under the base. */
export function ucpRoutes(base: string): UcpRoute[] {
  return operationList
    .filter(({ operation }) => baseOf(operation) === "ucp")
    .map(({ operation }) => ({ url: `${base}${operation.rest.path}`, operation }));
}

function send(reply: FastifyReply, error: UcpTransportError): FastifyReply {
  if (error.status === 401) reply.header("www-authenticate", WWW_AUTHENTICATE);
  return reply.code(error.status).type("application/json; charset=utf-8").send(error.body);
}

/** The gate's refusal (401, 429, 503) in the protocol's envelope; Retry-After is already set. */
function refuse(_request: FastifyRequest, reply: FastifyReply, refusal: Problem): FastifyReply {
  return send(reply, fromProblem(refusal));
}

/** What Fastify refuses before the handler (a body that is not JSON, another media type, one too large), in the protocol's envelope. */
function refuseParsed(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode;
  // Not a refusal of the request but a fault: the boundary's 500 (logged, with the request id), in the envelope.
  if (status === undefined || status < 400 || status >= 500) return send(reply, fromProblem(problemFromThrown(error, request.id, request.log)));
  const code = status === 413 ? "payload_too_large" : status === 415 ? "unsupported_media_type" : "invalid_json";
  const content =
    code === "invalid_json"
      ? "The request body is not valid JSON."
      : code === "unsupported_media_type"
        ? "Send the request as application/json."
        : "The request body is larger than the server reads.";
  request.log.debug({ code: error.code }, "UCP request refused before parsing");
  return send(reply, { status, body: errorResponse([{ type: "error", code, content, severity: "recoverable" }]) });
}

export const ucpPlugin: FastifyPluginAsync<{
  services: Services;
  base: string;
  publicUrl: string | undefined;
  answers: AnswerSettings;
  admission: Admission;
}> = async (app, opts) => {
  // Another media type is the protocol's 415 (docs/ucp.md), not a body read as a string and refused member by member.
  app.removeContentTypeParser("text/plain");

  async function answer(operation: AnyOperation, request: FastifyRequest, reply: FastifyReply) {
    const agent = readAgentHeader(request.headers["ucp-agent"]);
    if (!agent.ok) {
      return send(reply, {
        status: 400,
        body: errorResponse([{ type: "error", code: "invalid_profile_url", content: agent.reason, severity: "recoverable" }]),
      });
    }
    const ctx = callContext({ services: opts.services, app, request, reply, answer: answerBudget(opts.answers), admission: opts.admission });
    try {
      const output = checkedOutput(operation, await runCall(operation, ctx, request.body));
      reply.headers(responseHeaders(ctx, 200));
      return reply.type("application/json; charset=utf-8").send(output);
    } catch (thrown) {
      // Retry-After of an overloaded search, set by callOperation.
      reply.headers(responseHeaders(ctx, 503));
      return send(reply, transportError(thrown, request.id, request.log));
    }
  }

  for (const route of ucpRoutes(opts.base)) {
    app.route({
      method: "POST",
      url: route.url,
      config: { gate: { cost: route.operation.cost, refuse, apiKeyHeader: true } },
      errorHandler: refuseParsed,
      handler: (request, reply) => answer(route.operation, request, reply),
    });
    optionsRoute(app, route.url, ["POST"]);
    // Answered before any body is read; the handler is never reached.
    const wrongMethod = async (request: FastifyRequest, reply: FastifyReply) =>
      send(
        reply.header("allow", "POST, OPTIONS"),
        fromProblem(problem("method_not_allowed", `${request.method} is not allowed here; use POST.`, request.id)),
      );
    app.route({ method: ["GET", "HEAD", "PUT", "PATCH", "DELETE"], url: route.url, onRequest: wrongMethod, handler: wrongMethod });
  }

  // Public, like /openapi.json: a platform reads it before it has a key. Absolute URLs, from PUBLIC_URL or the request's origin.
  app.get("/.well-known/ucp", (request, reply) => {
    const profile = (origin: string) => reply.type("application/json; charset=utf-8").send(businessProfile(origin, opts.base));
    // PUBLIC_URL: the same answer for every request, which any cache may keep.
    if (opts.publicUrl !== undefined) {
      reply.header("cache-control", "public, max-age=300");
      return profile(opts.publicUrl);
    }
    // Else the answer names whatever Host the client sent: a shared cache must never hand one client's Host to
    // another (cache poisoning), and a Host that is not a host (`evil.example/x?`, `a b`) names no endpoint at all.
    addVary(reply, "host");
    reply.header("cache-control", "private, max-age=300");
    const host = wellFormedHost(request.host);
    if (host === null) {
      return sendProblem(
        reply,
        problem(
          "invalid_parameter",
          "The Host header is not a host name with an optional port, so the profile's endpoints cannot be named; set PUBLIC_URL.",
          request.id,
        ),
      );
    }
    return profile(`${request.protocol}://${host}`);
  });
};

/** A Host header as a host name or IP literal with an optional port, lower-cased; null for anything more or less. */
export function wellFormedHost(value: string | undefined): string | null {
  if (!value || !/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(value)) return null;
  try {
    const url = new URL(`http://${value}/`);
    // The URL parser's spelling must be the header's own (no user, path or query slipped in; a port it keeps).
    return url.host === value.toLowerCase() || `${url.host}:80` === value.toLowerCase() ? value.toLowerCase() : null;
  } catch {
    return null;
  }
}
