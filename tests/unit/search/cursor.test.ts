/** Signed page cursors (issue 13): they round-trip, and refuse forgery, another query and old age. */
import { describe, expect, it } from "vitest";
import { RequestError } from "../../../server/errors.js";
import { createCursorCodec, fingerprint, seenHash } from "../../../server/search/cursor.js";

const secret = Buffer.alloc(32, 7);
let now = Date.UTC(2026, 10, 24, 12);
const codec = createCursorCodec(secret, () => now);
const query = fingerprint(["tent", "USD", "price_asc"]);

function refusal(run: () => unknown): RequestError {
  try {
    run();
  } catch (error) {
    if (error instanceof RequestError) return error;
    throw error;
  }
  throw new Error("accepted");
}

describe("cursors", () => {
  it("round-trip a keyset position and a set of shown products", () => {
    expect(codec.decode(codec.encode(query, { kind: "keyset", value: 34900, id: "pdp_1" }), query)).toEqual({
      kind: "keyset",
      value: 34900,
      id: "pdp_1",
    });
    const seen = new Set(["a", "b", "c"].map(seenHash));
    expect(codec.decode(codec.encode(query, { kind: "seen", seen }), query)).toEqual({ kind: "seen", seen });
  });

  it("refuse a cursor changed by a byte, signed with another secret, from another query, or over a day old", () => {
    const cursor = codec.encode(query, { kind: "keyset", value: 100, id: "pdp_1" });
    const [payload, signature] = cursor.split(".");
    const edited = `${Buffer.from(Buffer.from(payload!, "base64url").toString().replace("100", "101")).toString("base64url")}.${signature}`;
    expect(refusal(() => codec.decode(edited, query))).toMatchObject({ code: "invalid_cursor", param: "cursor" });
    expect(refusal(() => createCursorCodec(Buffer.alloc(32, 8), () => now).decode(cursor, query)).message).toMatch(/changed|not made/);
    expect(refusal(() => codec.decode(cursor, fingerprint(["kettle"]))).message).toMatch(/another query/);
    expect(refusal(() => codec.decode("garbage", query)).code).toBe("invalid_cursor");
    now += 25 * 60 * 60 * 1000;
    expect(refusal(() => codec.decode(cursor, query)).message).toMatch(/stale/);
  });
});
