/**
 * Cheap repeated reads for REST answers: a strong ETag (SHA-256 of the body),
 * `If-None-Match` → 304 with no body, and `Cache-Control: private, max-age=0,
 * must-revalidate` because answers belong to the key that asked. The answer is
 * still computed; what a match saves is the transfer (and the client's parse).
 */
import { hash } from "node:crypto";
import type { FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";

const CACHE_CONTROL = "private, max-age=0, must-revalidate";

export function strongEtag(body: string | Buffer): string {
  return `"${hash("sha256", body, "base64url")}"`;
}

/** RFC 9110 §13.1.2: If-None-Match compares weakly, so `W/"x"` matches `"x"`; `*` matches any. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

const envelopes = new WeakMap<object, { body: Buffer; etag: string }>();

/**
 * The `{"pdp": …}` answer for a product, checked (`checked` gives the answer
 * as the output schema parses it), serialised and tagged once per product
 * object: one from the product cache is the same object on every hit, so a
 * repeated lookup neither re-checks, re-serialises, re-encodes nor re-hashes it
 * (the bytes are kept, not the string, which each write would encode again).
 */
export function productEnvelope(pdp: object, checked: () => unknown): { body: Buffer; etag: string } {
  let envelope = envelopes.get(pdp);
  if (!envelope) {
    const body = Buffer.from(JSON.stringify(checked()));
    envelope = { body, etag: strongEtag(body) };
    envelopes.set(pdp, envelope);
  }
  return envelope;
}

/** Tags successful GET answers (unless tagged already) and turns a matching conditional request into a 304. */
function tagged(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if ((request.method !== "GET" && request.method !== "HEAD") || reply.statusCode !== 200) return payload;
  if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return payload;
  const given = reply.getHeader("etag");
  const etag = typeof given === "string" ? given : strongEtag(payload);
  reply.header("etag", etag).header("cache-control", CACHE_CONTROL);
  if (!noneMatch(request.headers["if-none-match"], etag)) return payload;
  reply.code(304).removeHeader("content-type").removeHeader("content-length");
  return "";
}

/** The onSend hook; callback-style, as it runs on every answer (an async hook costs a promise and a microtask turn). */
export const conditionalGet: onSendHookHandler = (request, reply, payload, done) => done(null, tagged(request, reply, payload));
