import type { FastifyRequest } from "fastify";
import { TRPCError } from "@trpc/server";
import type { Services } from "../../services.js";
import { keyFromAuthorization } from "../../auth/keys.js";
import type { VerifyResult } from "../../auth/service.js";
import { createContext, type Context } from "../trpc.js";

/** The tRPC context for an HTTP request (/trpc and /mcp). */
export async function contextFromRequest(services: Services, request: FastifyRequest): Promise<Context> {
  if (request.rateLimitExceeded) throw new TRPCError({ code: "TOO_MANY_REQUESTS", message: request.rateLimitExceeded });
  return createContext({
    services: servicesForRequest(services, request),
    requestId: request.id,
    log: request.log,
    apiKey: keyFromAuthorization(request.headers.authorization),
  });
}

/** The key check the rate-limit hook made for this request, or one made now if the database did not answer it then. */
export async function verifiedKey(services: Services, request: FastifyRequest): Promise<VerifyResult> {
  return request.keyVerification ?? services.keys.verify(keyFromAuthorization(request.headers.authorization));
}

/** Headers the procedure asked for, plus the challenge on 401s. */
export function responseHeaders(ctx: Pick<Context, "responseHeaders"> | undefined, status: number): Record<string, string> {
  const headers = Object.fromEntries(ctx?.responseHeaders ?? []);
  if (status === 401) headers["www-authenticate"] = WWW_AUTHENTICATE;
  return headers;
}

export const WWW_AUTHENTICATE = 'Bearer realm="product-catalog"';

/**
 * The services as the tRPC context sees them: a key the rate-limit hook
 * already verified for this request is not verified a second time.
 */
function servicesForRequest(services: Services, request: FastifyRequest): Services {
  const known = request.keyVerification;
  if (!known) return services;
  return { ...services, keys: { ...services.keys, verify: async () => known } };
}
