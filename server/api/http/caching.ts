/**
 * Cheap repeated reads for REST answers: a strong ETag (SHA-256 of the body, hashed in the thread pool past
 * ASYNC_HASH_BYTES, so a large answer's hash does not stall other requests: issue 47),
 * `If-None-Match` → 304 with no body, and `Cache-Control: private, max-age=0,
 * must-revalidate` because answers belong to the key that asked. The answer is
 * still computed; what a match saves is the transfer (and the client's parse).
 */
import { hash, webcrypto } from "node:crypto";
import type { FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";
import { finishOnSend } from "./on-send.js";

const CACHE_CONTROL = "private, max-age=0, must-revalidate";
/** Bodies from this size are hashed off the event loop (WebCrypto's digest runs in the thread pool); ~0.5 ms of SHA-256. */
export const ASYNC_HASH_BYTES = 262_144;

export function strongEtag(body: string | Buffer): string {
  return `"${hash("sha256", body, "base64url")}"`;
}

/** The same tag as strongEtag, computed in the thread pool. */
export async function strongEtagAsync(body: string | Buffer): Promise<string> {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  return `"${Buffer.from(await webcrypto.subtle.digest("SHA-256", bytes)).toString("base64url")}"`;
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
export function productEnvelope(pdp: object, checked: () => unknown): { body: Buffer; etag: string | undefined } {
  let envelope = envelopes.get(pdp);
  if (!envelope) {
    const body = Buffer.from(JSON.stringify(checked()));
    // A large one (raw data, read afresh each time, so never reused) is left to conditionalGet, which hashes it off the loop.
    if (body.length >= ASYNC_HASH_BYTES) return { body, etag: undefined };
    envelope = { body, etag: strongEtag(body) };
    envelopes.set(pdp, envelope);
  }
  return envelope;
}

/** Sets the tag and caching headers, and turns a matching conditional request into a 304. */
function withTag(request: FastifyRequest, reply: FastifyReply, payload: string | Buffer, etag: string): string | Buffer {
  reply.header("etag", etag).header("cache-control", CACHE_CONTROL);
  if (!noneMatch(request.headers["if-none-match"], etag)) return payload;
  reply.code(304).removeHeader("content-type").removeHeader("content-length");
  return "";
}

/** Tags successful GET answers (unless tagged already); a large body's tag comes in a promise (hashed off the loop). */
function tagged(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if ((request.method !== "GET" && request.method !== "HEAD") || reply.statusCode !== 200) return payload;
  if (typeof payload !== "string" && !Buffer.isBuffer(payload)) return payload;
  const given = reply.getHeader("etag");
  if (typeof given === "string") return withTag(request, reply, payload, given);
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
  if (size < ASYNC_HASH_BYTES) return withTag(request, reply, payload, strongEtag(payload));
  return strongEtagAsync(payload).then((etag) => withTag(request, reply, payload, etag));
}

/** The onSend hook; callback-style, as it runs on every answer (an async hook costs a promise and a microtask turn). */
export const conditionalGet: onSendHookHandler = (request, reply, payload, done) => finishOnSend(done, tagged(request, reply, payload));
