/**
 * MCP over Streamable HTTP at /mcp, for agents that reach the running server.
 * Stateless: each POST gets its own MCP server and transport and a JSON
 * answer, so nothing is kept between requests. The gate (api/http/gate.ts) has
 * checked the key before the body was read; once it is parsed, the POST is
 * charged what its messages cost together (a JSON-RPC batch holds several).
 *
 * What stops a POST before MCP handles it (no key, a spent limit, a batch too
 * long) keeps its HTTP status and is a JSON-RPC error whose `data` is the
 * problem, as the Universal Commerce Protocol's MCP binding asks of transport
 * errors (`-32000`, with `retry_after` on 429 and 503).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type { Problem } from "../../shared/schemas/index.js";
import { WWW_AUTHENTICATE } from "../api/http/context.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Services } from "../services.js";
import type { Admission } from "../api/admission.js";
import { callContext } from "../api/http/context.js";
import { optionsRoute } from "../api/http/cors.js";
import { sendProblem } from "../api/http/errors.js";
import { problem } from "../api/problems.js";
import { type AnswerSettings, answerBudget } from "../api/answer-cap.js";
import { createMcpServer, MCP_ANSWER_COPIES, messageCost } from "./tools.js";

/** A refusal as a JSON-RPC error (no message was read, so no id to answer), with the problem as its data. */
function refuse(reply: FastifyReply, refusal: Problem): FastifyReply {
  if (refusal.status === 401) reply.header("www-authenticate", WWW_AUTHENTICATE);
  const retryAfter = Number(reply.getHeader("retry-after"));
  const code = refusal.status === 400 ? ErrorCode.InvalidRequest : -32000;
  return reply
    .code(refusal.status)
    .type("application/json; charset=utf-8")
    .send({
      jsonrpc: "2.0",
      id: null,
      error: {
        code,
        message: refusal.detail,
        data: { ...refusal, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retry_after: retryAfter } : {}) },
      },
    });
}

export const mcpPlugin: FastifyPluginAsync<{ services: Services; maxBatchSize: number; answers: AnswerSettings; admission: Admission }> = async (
  app,
  opts,
) => {
  app.post(
    "/mcp",
    { config: { gate: { cost: "per-call", refuse: (_request, reply, refusal) => refuse(reply, refusal) } } },
    async (request, reply) => {
      const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
      if (messages.length > opts.maxBatchSize) {
        return refuse(
          reply,
          problem(
            "invalid_parameter",
            `A JSON-RPC batch may hold at most ${opts.maxBatchSize} messages; this one holds ${messages.length}.`,
            request.id,
          ),
        );
      }
      const limited = await app.chargeRateLimit(
        request,
        reply,
        messages.reduce<number>((sum, message) => sum + messageCost(message), 0),
      );
      if (limited) return refuse(reply, limited);

      const ctx = callContext({
        services: opts.services,
        app,
        request,
        reply,
        answer: answerBudget(opts.answers, MCP_ANSWER_COPIES),
        admission: opts.admission,
        // The transport writes the hijacked reply itself: a surcharge's rate-limit headers go to it while it has not started.
        onCharged: () => {
          if (reply.raw.headersSent) return;
          for (const name of ["ratelimit-policy", "ratelimit", "retry-after"]) {
            const value = reply.getHeader(name);
            if (value !== undefined) reply.raw.setHeader(name, value);
          }
        },
      });
      const server = createMcpServer(() => ctx);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // The transport writes the answer itself, so it gets the raw response with the headers set so far (request id, rate limit).
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } finally {
        await server.close();
      }
    },
  );

  // Streamable HTTP's GET opens a server-to-client event stream and DELETE ends a session; stateless, there is neither.
  // Answered before any body is read; the handler is never reached.
  optionsRoute(app, "/mcp", ["POST"]);
  const refuseMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    sendProblem(
      reply.header("allow", "POST, OPTIONS"),
      problem(
        "method_not_allowed",
        "This MCP endpoint is stateless: POST each JSON-RPC message. It opens no event stream (GET) and has no session to end (DELETE).",
        request.id,
      ),
    );
  app.route({ method: ["GET", "DELETE", "PUT", "PATCH"], url: "/mcp", onRequest: refuseMethod, handler: refuseMethod });
};
