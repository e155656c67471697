/** Problem answers for what never reaches an operation: unknown routes and Fastify's own errors. */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Problem } from "../../../shared/schemas/index.js";
import { problem } from "../problems.js";
import { WWW_AUTHENTICATE } from "./context.js";

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  if (body.status === 401) reply.header("www-authenticate", WWW_AUTHENTICATE);
  return reply.code(body.status).type("application/problem+json").send(JSON.stringify(body));
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendProblem(reply, problem("not_found", `No route ${request.method} ${request.url.split("?")[0]}.`, request.id));
}

export function installErrorHandlers(app: FastifyInstance): void {
  // An unknown path is answered before its body is read: Fastify would parse it before the not-found handler.
  app.addHook("onRequest", async (request, reply) => {
    if (request.is404) return notFound(request, reply);
  });
  app.setNotFoundHandler(notFound);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code = status === 404 ? "not_found" : status === 401 ? "unauthorized" : status === 429 ? "rate_limited" : "invalid_parameter";
      return sendProblem(reply, problem(code, error.message, request.id));
    }
    request.log.error({ err: error }, "internal error");
    return sendProblem(reply, problem("internal", "Something went wrong on our side; quote the request id if you report it.", request.id));
  });
}
