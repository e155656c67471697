/**
 * MCP over stdio, for a desktop agent that starts `catalog mcp` itself.
 *
 * No API key and no rate limit: whoever can run the CLI can read the data dir
 * (or holds DATABASE_URL), and so could read the catalog and issue keys
 * anyway. The calls run as a principal of their own, the local user, with
 * the same operations as every other transport. Stdout carries only
 * JSON-RPC; logs go to stderr.
 */
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyBaseLogger } from "fastify";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Services } from "../services.js";
import type { Principal } from "../auth/service.js";
import { type AnswerSettings, answerBudget } from "../api/answer-cap.js";
import { redactingStream } from "../api/http/logging.js";
import { createMcpServer, MCP_ANSWER_COPIES } from "./tools.js";

const LOCAL_USER: Principal = { keyId: "local", name: "local user (mcp stdio)", environment: "dev", rateLimitPerMinute: null };

/** The server's own logger (pino, in the format the server logs), writing to stderr. */
function stderrLogger(level: string): FastifyBaseLogger {
  return Fastify({ logger: { level, stream: redactingStream(process.stderr) } }).log;
}

/** Serves MCP on stdin/stdout until the client closes stdin or the process is told to stop. */
export async function serveStdio(services: Services, options: { logLevel: string; answers: AnswerSettings }): Promise<void> {
  const log = stderrLogger(options.logLevel);
  const server = createMcpServer(() => ({
    services,
    principal: LOCAL_USER,
    requestId: `req_${randomUUID().replaceAll("-", "")}`,
    log,
    responseHeaders: new Map(),
    answer: answerBudget(options.answers, MCP_ANSWER_COPIES),
    // No key, no rate limit (see above): a surcharge is not metered either.
    charge: async () => undefined,
  }));
  server.onerror = (error) => log.warn({ err: error }, "MCP stdio message refused");
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  const stop = () => void server.close();
  process.stdin.once("end", stop);
  process.once("SIGTERM", stop).once("SIGINT", stop);
  try {
    await server.connect(new StdioServerTransport());
    log.info("MCP server on stdio");
    await closed;
  } finally {
    process.stdin.off("end", stop);
    process.off("SIGTERM", stop).off("SIGINT", stop);
  }
}
