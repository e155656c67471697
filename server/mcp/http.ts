/**
 * MCP over Streamable HTTP at /mcp, for agents that reach the running server.
 * Stateless: each POST gets its own MCP server and transport and a JSON
 * answer, so nothing is kept between requests. The gate (api/http/gate.ts) has
 * checked the key before the body was read; once it is parsed, the POST is
 * charged what its messages cost together (a JSON-RPC batch holds several).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Services } from "../services.js";
import type { Admission } from "../api/admission.js";
import { callContext } from "../api/http/context.js";
import { optionsRoute } from "../api/http/cors.js";
import { sendProblem } from "../api/http/errors.js";
import { problem } from "../api/problems.js";
import { answerBudget } from "../api/answer-cap.js";
import { createMcpServer, MCP_ANSWER_COPIES, messageCost } from "./tools.js";

export const mcpPlugin: FastifyPluginAsync<{
  services: Services;
  maxBatchSize: number;
  answerMaxBytes: number;
  admission: Admission;
}> = async (app, opts) => {
  app.post("/mcp", { config: { gate: { cost: "per-call" } } }, async (request, reply) => {
    const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
    if (messages.length > opts.maxBatchSize) {
      return sendProblem(
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
    if (limited) return sendProblem(reply, limited);

    const ctx = callContext(opts.services, request, answerBudget(opts.answerMaxBytes, MCP_ANSWER_COPIES), opts.admission);
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
  });

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
