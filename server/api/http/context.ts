import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RequestError } from "../../errors.js";
import type { Services } from "../../services.js";
import type { Admission } from "../admission.js";
import type { AnswerBudget } from "../answer-cap.js";
import type { CallContext } from "../context.js";

/**
 * The call context of a request the gate let through (gate.ts); `answer` is the request's one budget, whatever its
 * calls. A call's surcharge goes to the same key's counter as the gate's charge, and its rate-limit headers replace
 * the gate's on the reply (`onCharged` copies them on where the reply was hijacked: MCP).
 */
export function callContext(parts: {
  services: Services;
  app: Pick<FastifyInstance, "chargeRateLimit">;
  request: FastifyRequest;
  reply: FastifyReply;
  answer: AnswerBudget;
  admission: Admission;
  onCharged?: () => void;
}): CallContext {
  const { services, app, request, reply, answer, admission, onCharged } = parts;
  if (!request.principal) throw new Error(`no principal on ${request.method} ${request.routeOptions.url}: the route has no gate`);
  return {
    services,
    principal: request.principal,
    requestId: request.id,
    log: request.log,
    responseHeaders: new Map(),
    answer,
    admission,
    async charge(units) {
      const limited = await app.chargeRateLimit(request, reply, units);
      onCharged?.();
      if (limited) throw new RequestError("rate_limited", limited.detail);
    },
  };
}

/** Headers the call asked for, plus the challenge on 401s. */
export function responseHeaders(ctx: Pick<CallContext, "responseHeaders"> | undefined, status: number): Record<string, string> {
  const headers = Object.fromEntries(ctx?.responseHeaders ?? []);
  if (status === 401) headers["www-authenticate"] = WWW_AUTHENTICATE;
  return headers;
}

export const WWW_AUTHENTICATE = 'Bearer realm="product-catalog"';
