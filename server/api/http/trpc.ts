/**
 * tRPC over HTTP at /trpc, for TypeScript consumers (see shared/client.ts), on
 * a route of our own so that the gate (gate.ts) sees it: the key is checked
 * before any body is read, and a refusal is answered in tRPC's own shape so
 * tRPC clients see the machine code. A call's cost is charged once tRPC has
 * routed it: a batch costs the sum of its calls' operations, whatever the path
 * looked like on the wire, and a batch longer than `maxBatchSize` is refused.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { fastifyRequestHandler } from "@trpc/server/adapters/fastify";
import { resolveResponse, type TRPCRequestInfo } from "@trpc/server/http";
import type { Problem } from "../../../shared/schemas/index.js";
import type { Services } from "../../services.js";
import type { Admission } from "../admission.js";
import { type AnswerSettings, answerBudget } from "../answer-cap.js";
import type { CallContext } from "../context.js";
import { operationAt, UNIT_COST } from "../operations/index.js";
import { problem, refusalError } from "../problems.js";
import { appRouter } from "../router.js";
import { callContext, responseHeaders } from "./context.js";
import { optionsRoute } from "./cors.js";
import { sendProblem } from "./errors.js";

type TrpcRequest = FastifyRequest<{ Params: { path: string } }>;

/** tRPC decodes the path parameter once more itself; a malformed escape is its 400 to give. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export const trpcPlugin: FastifyPluginAsync<{
  services: Services;
  maxBatchSize: number;
  answers: AnswerSettings;
  admission: Admission;
}> = async (app, opts) => {
  // tRPC parses its JSON itself: the body reaches it as text.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));
  // tRPC's adapter (and `refuse` below) send a fetch Response, which Fastify's HEAD route cannot measure (a 500, logged with
  // its stack): for HEAD its status and headers are applied here and its body, counted then dropped by Fastify, passed on.
  app.addHook("onSend", (request, reply, payload, done) => {
    if (request.method !== "HEAD" || !(payload instanceof Response)) return done(null, payload);
    reply.code(payload.status);
    for (const [name, value] of payload.headers) reply.header(name, value);
    payload.text().then((body) => done(null, body), done);
  });

  const common = {
    router: appRouter,
    maxBatchSize: opts.maxBatchSize,
    responseMeta: ({ ctx, errors }: { ctx?: CallContext | undefined; errors: { code: string }[] }) => ({
      headers: responseHeaders(ctx, errors.some((error) => error.code === "UNAUTHORIZED") ? 401 : 200),
    }),
    onError: ({ error, req }: { error: { code: string; cause?: unknown }; req: { log?: FastifyRequest["log"] } | Request }) => {
      if (error.code === "INTERNAL_SERVER_ERROR" && "log" in req) req.log?.error({ err: error.cause ?? error }, "internal error");
    },
  };

  /** The tRPC context: the gate's principal, once the batch's calls are charged. */
  async function context(request: TrpcRequest, reply: FastifyReply, info: TRPCRequestInfo): Promise<CallContext> {
    const cost = info.calls.reduce((sum, call) => sum + (operationAt(call.path)?.cost ?? UNIT_COST), 0);
    const limited = await app.chargeRateLimit(request, reply, cost);
    if (limited) throw refusalError(limited);
    return callContext({ services: opts.services, app, request, reply, answer: answerBudget(opts.answers), admission: opts.admission });
  }

  /**
   * The gate's refusal in tRPC's shape: tRPC answers every call with it, reading no input (so no body).
   * Asked with the method the calls take, so a wrong method is not what the caller hears about first.
   */
  async function refuse(request: FastifyRequest, reply: FastifyReply, refusal: Problem): Promise<FastifyReply> {
    const { path } = (request as TrpcRequest).params;
    const mutation = safeDecode(path)
      .split(",")
      .some((call) => operationAt(call)?.kind === "mutation");
    const req = new Request(new URL(request.url, "http://trpc.internal"), {
      method: mutation ? "POST" : "GET",
      headers: { "content-type": "application/json" },
      ...(mutation ? { body: "" } : {}),
    });
    const response = await resolveResponse({
      ...common,
      req,
      path,
      error: null,
      createContext: async () => {
        throw refusalError(refusal);
      },
    });
    return reply.send(response);
  }

  app.route<{ Params: { path: string } }>({
    method: ["GET", "POST"],
    url: "/trpc/:path",
    config: { gate: { cost: "per-call", refuse } },
    handler: (request, reply) =>
      fastifyRequestHandler({
        ...common,
        req: request,
        res: reply,
        path: request.params.path,
        createContext: ({ info }) => context(request, reply, info),
      }),
  });

  // Answered before any body is read; the handler is never reached.
  optionsRoute(app, "/trpc/:path", ["GET", "HEAD", "POST"]);
  const refuseMethod = async (request: FastifyRequest, reply: FastifyReply) =>
    sendProblem(
      reply.header("allow", "GET, HEAD, POST, OPTIONS"),
      problem("method_not_allowed", `${request.method} is not allowed here; tRPC uses GET for queries and POST for mutations.`, request.id),
    );
  app.route({ method: ["PUT", "PATCH", "DELETE"], url: "/trpc/:path", onRequest: refuseMethod, handler: refuseMethod });
};
