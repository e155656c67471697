/**
 * gzip/brotli for answers over 1 KB, done synchronously on the finished body.
 * Why not @fastify/compress: its streaming path sent empty bodies for answers
 * over ~16 KB coming through trpc-to-openapi's adapter, which served REST then (seen in tests/integration/caching.test.ts);
 * our answers are built whole in memory anyway, so a one-shot compress is simpler.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";
import { addVary } from "./cors.js";

const THRESHOLD = 1024;

/** The encoding to use: br before gzip, anything the client gave q=0 excluded. */
export function chooseEncoding(header: string | undefined): "br" | "gzip" | null {
  const accepted = new Set(
    (header ?? "")
      .split(",")
      .map((part) => part.trim().split(";"))
      .filter(([, ...params]) => !params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param)))
      .map(([name]) => name!.trim().toLowerCase()),
  );
  if (accepted.has("br")) return "br";
  if (accepted.has("gzip") || accepted.has("*")) return "gzip";
  return null;
}

function compressed(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return payload;
  addVary(reply, "accept-encoding");
  // Most API clients send no Accept-Encoding: the body is then left as it is, not even measured (the hot lookup path).
  const accepted = request.headers["accept-encoding"];
  if (accepted === undefined || reply.hasHeader("content-encoding")) return payload;
  if ((typeof payload === "string" ? Buffer.byteLength(payload) : payload.length) < THRESHOLD) return payload;
  const encoding = chooseEncoding(accepted);
  if (!encoding) return payload;
  reply.header("content-encoding", encoding);
  reply.removeHeader("content-length");
  return encoding === "br" ? brotliCompressSync(payload, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }) : gzipSync(payload);
}

/** The onSend hook; callback-style, as it runs on every answer (an async hook costs a promise and a microtask turn). */
const compressBody: onSendHookHandler = (request, reply, payload, done) => {
  let body: unknown;
  try {
    body = compressed(request, reply, payload);
  } catch (error) {
    return done(error instanceof Error ? error : new Error(String(error)));
  }
  done(null, body);
};

/** Adds the compression step as each route's last onSend hook, after tagging and problem shaping; routes that compress their own bodies (static.ts) are left alone. */
export const compressionPlugin: FastifyPluginAsync = async (app) => {
  app.addHook("onRoute", (route) => {
    if (route.config?.precompressed) return;
    const existing = route.onSend ? (Array.isArray(route.onSend) ? route.onSend : [route.onSend]) : [];
    route.onSend = [...existing, compressBody];
  });
};
