import type { FastifyRequest } from "fastify";
import type { Services } from "../../services.js";
import type { Admission } from "../admission.js";
import type { AnswerBudget } from "../answer-cap.js";
import type { CallContext } from "../context.js";

/** The call context of a request the gate let through (gate.ts); `answer` is the request's one budget, whatever its calls. */
export function callContext(services: Services, request: FastifyRequest, answer: AnswerBudget, admission: Admission): CallContext {
  if (!request.principal) throw new Error(`no principal on ${request.method} ${request.routeOptions.url}: the route has no gate`);
  return { services, principal: request.principal, requestId: request.id, log: request.log, responseHeaders: new Map(), answer, admission };
}

/** Headers the call asked for, plus the challenge on 401s. */
export function responseHeaders(ctx: Pick<CallContext, "responseHeaders"> | undefined, status: number): Record<string, string> {
  const headers = Object.fromEntries(ctx?.responseHeaders ?? []);
  if (status === 401) headers["www-authenticate"] = WWW_AUTHENTICATE;
  return headers;
}

export const WWW_AUTHENTICATE = 'Bearer realm="product-catalog"';
