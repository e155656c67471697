/**
 * MCP over Streamable HTTP at /mcp, for agents that reach the running server.
 * Stateless: each POST gets its own MCP server and transport and a JSON
 * answer, so nothing is kept between requests. Registered in the API scope
 * after the rate-limit plugin, whose onRequest hook has verified the key and
 * charged the request a lookup by the time a handler runs; a tool call that
 * costs more (a search) is charged the difference here, once the parsed body
 * says what is called.
 */
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { TRPCError } from "@trpc/server";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Services } from "../services.js";
import { VERIFY_FAILURE_MESSAGES } from "../auth/service.js";
import type { Context } from "../api/trpc.js";
import { problem, problemFromTrpcError } from "../api/problems.js";
import { contextFromRequest } from "../api/http/context.js";
import { sendProblem } from "../api/http/errors.js";
import { requestCost } from "../api/http/ratelimit.js";
import { createMcpServer, toolCost } from "./tools.js";

/** What the tool calls in a POST cost together (a JSON-RPC batch holds several messages). */
function toolCallsCost(body: unknown): number {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.reduce<number>((sum, message) => {
    const call = CallToolRequestSchema.safeParse(message);
    return sum + (call.success ? toolCost(call.data.params.name) : 0);
  }, 0);
}

export const mcpPlugin: FastifyPluginAsync<{ services: Services }> = async (app, opts) => {
  // Fails at boot, not per request, if the rate-limit plugin is not registered before this one.
  const chargeRateLimit = app.getDecorator<FastifyInstance["chargeRateLimit"]>("chargeRateLimit");

  app.post("/mcp", async (request, reply) => {
    let context: Context;
    try {
      context = await contextFromRequest(opts.services, request);
    } catch (error) {
      // The database did not answer the key check (503); anything else is Fastify's 500.
      if (!(error instanceof TRPCError)) throw error;
      return sendProblem(reply, problemFromTrpcError(error, request.id));
    }
    // The MCP handshake runs no procedure, so the key is checked here, refused as REST refuses it.
    if ("failure" in context.auth) return sendProblem(reply, problem("unauthorized", VERIFY_FAILURE_MESSAGES[context.auth.failure], request.id));
    const extra = toolCallsCost(request.body) - requestCost(request.url);
    if (extra > 0) {
      const refused = await chargeRateLimit(request, reply, extra);
      if (refused) return refused;
    }

    const server = createMcpServer(async () => context);
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
  app.route({
    method: ["GET", "DELETE"],
    url: "/mcp",
    handler: (request, reply) =>
      sendProblem(
        reply.header("allow", "POST"),
        problem(
          "method_not_allowed",
          "This MCP endpoint is stateless: POST each JSON-RPC message. It opens no event stream (GET) and has no session to end (DELETE).",
          request.id,
        ),
      ),
  });
};
