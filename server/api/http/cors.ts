/**
 * CORS for browser front-ends on other origins (CORS_ORIGINS). Off by default:
 * with no origins configured no hook is added and no answer carries
 * `Access-Control-*`. Preflights (OPTIONS with `Access-Control-Request-Method`)
 * are answered by each path's OPTIONS route (`optionsRoute`), before the gate,
 * since a browser sends no key with them.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";

/** What a cross-origin page may read of an answer beyond the CORS-safelisted headers. */
const EXPOSED = ["x-request-id", "etag", "x-rerank", "ratelimit", "ratelimit-policy", "retry-after", "www-authenticate", "allow"].join(", ");
/** What a cross-origin page may send: the key, JSON bodies, conditional requests, its own request id, MCP's and UCP's headers (UCP's key header too). */
const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "if-none-match",
  "x-request-id",
  "mcp-protocol-version",
  "mcp-session-id",
  "ucp-agent",
  "x-api-key",
].join(", ");
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export type CorsOrigins = "*" | readonly string[];

declare module "fastify" {
  interface FastifyInstance {
    /** The origin to allow for this request's `Origin`, or null: not configured, no Origin, or not an allowed one. */
    corsOrigin(request: FastifyRequest): string | null;
  }
}

/** Appends to `Vary` rather than replacing what another step set. */
export function addVary(reply: FastifyReply, field: string): void {
  const existing = reply.getHeader("vary");
  if (typeof existing !== "string" || existing === "") reply.header("vary", field);
  else if (
    !existing
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes(field)
  )
    reply.header("vary", `${existing}, ${field}`);
}

const plugin: FastifyPluginAsync<{ origins: CorsOrigins }> = async (app, opts) => {
  const allowed = opts.origins === "*" ? null : new Set(opts.origins);
  const enabled = opts.origins === "*" || opts.origins.length > 0;

  app.decorate("corsOrigin", (request: FastifyRequest): string | null => {
    const origin = request.headers.origin;
    if (!enabled || origin === undefined) return null;
    if (allowed === null) return "*";
    return allowed.has(origin) ? origin : null;
  });
  if (!enabled) return;

  app.addHook("onRequest", async (request, reply) => {
    // With a list, the answer depends on Origin, so shared caches must key on it (even when none was sent).
    if (allowed !== null) addVary(reply, "origin");
    const origin = app.corsOrigin(request);
    if (origin === null) return;
    reply.header("access-control-allow-origin", origin);
    reply.header("access-control-expose-headers", EXPOSED);
  });
};

export const corsPlugin = fp(plugin, { name: "catalog-cors", fastify: "5.x" });

/**
 * OPTIONS on a path: 204 with `Allow`, and for a preflight from an allowed origin the methods and
 * headers it may use. A preflight from any other origin gets no `Access-Control-*`, so the browser
 * refuses the call; nothing is read or charged either way.
 */
export function optionsRoute(app: FastifyInstance, url: string, methods: readonly string[]): void {
  const allow = [...methods, "OPTIONS"].join(", ");
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header("allow", allow);
    if (app.corsOrigin(request) !== null && request.headers["access-control-request-method"] !== undefined) {
      reply.header("access-control-allow-methods", allow);
      reply.header("access-control-allow-headers", ALLOWED_HEADERS);
      reply.header("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    return reply.code(204).send();
  };
  app.route({ method: "OPTIONS", url, onRequest: answer, handler: answer });
}
