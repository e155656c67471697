/**
 * gzip/brotli for answers over 1 KB, done on the finished body: synchronously
 * when it is small (the common answer: a promise and a trip to the thread pool
 * would cost more than the compression), in libuv's thread pool past
 * ASYNC_THRESHOLD, so a large answer (raw page data: tens of MB, ~100 ms of
 * brotli) does not stall every other request while it is compressed (issue 47).
 * Why not @fastify/compress: its streaming path sent empty bodies for answers
 * over ~16 KB coming through trpc-to-openapi's adapter, which served REST then (seen in tests/integration/caching.test.ts);
 * our answers are built whole in memory anyway, so a one-shot compress is simpler.
 */
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from "node:zlib";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";
import { addVary } from "./cors.js";
import { failOnSend, finishOnSend } from "./on-send.js";

const THRESHOLD = 1024;
/** Bodies from this size are compressed off the event loop: at ~30 MB/s for brotli, 64 KB is about 2 ms of work. */
export const ASYNC_THRESHOLD = 65_536;
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

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
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  if (size >= ASYNC_THRESHOLD) return encoding === "br" ? brotliAsync(payload, BROTLI) : gzipAsync(payload);
  return encoding === "br" ? brotliCompressSync(payload, BROTLI) : gzipSync(payload);
}

/** The onSend hook; callback-style, as it runs on every answer (an async hook costs a promise and a microtask turn). */
const compressBody: onSendHookHandler = (request, reply, payload, done) => {
  let body: unknown;
  try {
    body = compressed(request, reply, payload);
  } catch (error) {
    return failOnSend(done, error);
  }
  finishOnSend(done, body);
};

/** Adds the compression step as each route's last onSend hook, after tagging and problem shaping; routes that compress their own bodies (static.ts) are left alone. */
export const compressionPlugin: FastifyPluginAsync = async (app) => {
  app.addHook("onRoute", (route) => {
    if (route.config?.precompressed) return;
    const existing = route.onSend ? (Array.isArray(route.onSend) ? route.onSend : [route.onSend]) : [];
    route.onSend = [...existing, compressBody];
  });
};
