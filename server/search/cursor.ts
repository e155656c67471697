/**
 * Opaque page cursors, signed so a client can neither forge nor edit one.
 *
 * A cursor is bound to its query (a digest of `q`, the filters and the sort)
 * and continues from where the last page stopped:
 * - sorted by price or by age, it names the last product's sort key and id
 *   (keyset): the next page is what sorts after it, so pages never repeat or
 *   skip a product while imports add others;
 * - by relevance, no such key exists (fusion is by rank, and the reranker
 *   weighs words by their frequency in the whole catalog, so a product's
 *   score moves when others are imported). The cursor then carries short
 *   hashes of the products already shown, and each page is the best of the
 *   rest: nothing is shown twice, and nothing that still matches is skipped.
 *   Relevance pages end at SEARCH_MAX_RESULTS products (see docs/search.md).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { RequestError } from "../errors.js";

/** A cursor older than this is stale: the client starts again from the first page. */
const TTL_SECONDS = 24 * 60 * 60;
const VERSION = 1;
/** Bytes of a shown product's id hash: one false "already shown" in ~10^13 pairs. */
const SEEN_BYTES = 6;

const PayloadSchema = z.object({
  v: z.literal(VERSION),
  f: z.string(),
  t: z.number().int(),
  /** Keyset: the last product's sort value (minor units, or a timestamp in ms) and id. */
  k: z.tuple([z.number(), z.string()]).optional(),
  /** Relevance: hashes of the products shown so far, concatenated, base64url. */
  s: z.string().optional(),
});

export type CursorPosition = { kind: "keyset"; value: number; id: string } | { kind: "seen"; seen: ReadonlySet<string> };

export interface CursorCodec {
  encode(fingerprint: string, position: CursorPosition): string;
  /** The position a cursor holds, once its signature, query and age check out; a RequestError `invalid_cursor` otherwise. */
  decode(cursor: string, fingerprint: string): CursorPosition;
}

/** A short hash of a product id, as the relevance cursor remembers it. */
export function seenHash(id: string): string {
  return createHash("sha256").update(id).digest().subarray(0, SEEN_BYTES).toString("base64url");
}

/** A digest of what a page depends on, so a cursor continues only the query it came from. */
export function fingerprint(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 16);
}

function invalid(message: string): RequestError {
  return new RequestError("invalid_cursor", message, "cursor");
}

export function createCursorCodec(secret: Buffer, now: () => number = Date.now): CursorCodec {
  const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest().subarray(0, 16);
  return {
    encode(fingerprintValue, position) {
      const payload = {
        v: VERSION,
        f: fingerprintValue,
        t: Math.floor(now() / 1000),
        ...(position.kind === "keyset"
          ? { k: [position.value, position.id] }
          : { s: Buffer.concat([...position.seen].map((hash) => Buffer.from(hash, "base64url"))).toString("base64url") }),
      };
      const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
      return `${encoded}.${sign(encoded).toString("base64url")}`;
    },
    decode(cursor, fingerprintValue) {
      const [encoded, signature, ...rest] = cursor.split(".");
      if (!encoded || !signature || rest.length > 0) throw invalid("The cursor is not one this service gave: pass next_cursor as it was.");
      const given = Buffer.from(signature, "base64url");
      const expected = sign(encoded);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw invalid("The cursor has been changed or was not made by this catalog: pass next_cursor as it was.");
      }
      let parsed: z.infer<typeof PayloadSchema>;
      try {
        parsed = PayloadSchema.parse(JSON.parse(Buffer.from(encoded, "base64url").toString("utf8")));
      } catch {
        throw invalid("The cursor is not one this version of the service reads: start again from the first page.");
      }
      if (parsed.f !== fingerprintValue)
        throw invalid("The cursor belongs to another query: send the same q, filters and sort as the page it came from.");
      if (now() / 1000 - parsed.t > TTL_SECONDS) throw invalid("The cursor is stale (over a day old): start again from the first page.");
      if (parsed.k) return { kind: "keyset", value: parsed.k[0], id: parsed.k[1] };
      const bytes = Buffer.from(parsed.s ?? "", "base64url");
      const seen = new Set<string>();
      for (let at = 0; at + SEEN_BYTES <= bytes.length; at += SEEN_BYTES) seen.add(bytes.subarray(at, at + SEEN_BYTES).toString("base64url"));
      return { kind: "seen", seen };
    },
  };
}
