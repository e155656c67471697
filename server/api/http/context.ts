import type { FastifyRequest } from "fastify";
import type { Services } from "../../services.js";
import { keyFromAuthorization } from "../../auth/keys.js";
import { createContext, type Context } from "../trpc.js";

/** The tRPC context for an HTTP request (REST bridge and /trpc alike). */
export function contextFromRequest(services: Services, request: FastifyRequest): Promise<Context> {
  return createContext({
    services,
    requestId: request.id,
    log: request.log,
    apiKey: keyFromAuthorization(request.headers.authorization),
  });
}

/** Headers the procedure asked for, plus the challenge on 401s. */
export function responseHeaders(ctx: Context | undefined, status: number): Record<string, string> {
  const headers = Object.fromEntries(ctx?.responseHeaders ?? []);
  if (status === 401) headers["www-authenticate"] = WWW_AUTHENTICATE;
  return headers;
}

export const WWW_AUTHENTICATE = 'Bearer realm="product-catalog"';
