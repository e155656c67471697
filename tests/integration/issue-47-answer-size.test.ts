/**
 * Issue 47, second finding: an answer's size was neither charged nor kept off the event loop. A 5-unit search with
 * raw data answered 31 MB, serialised, hashed and compressed synchronously, within its key's limit. Now an answer
 * costs a unit per ANSWER_BYTES_PER_UNIT it holds on top of its operation's cost, charged once it is measured and
 * before it is serialised (a key it would take past its limit is refused, 429, with nothing built), and a large body
 * is hashed and compressed in the thread pool.
 */
import { gunzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { BIG, bigId, FIXTURE } from "../helpers/catalog.js";

/** A unit per 64 KiB: the big product's ~340 KB of raw page costs 5 more. */
const PER_UNIT = 65_536;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ records: [...FIXTURE, BIG], config: { ANSWER_BYTES_PER_UNIT: PER_UNIT, RATE_LIMIT_PER_MINUTE: 1000 } });
});
afterAll(() => t.close());

const remaining = (header: unknown) => Number(/r=(\d+)/.exec(String(header))?.[1]);

describe("an answer's size is charged (issue 47)", () => {
  it("charges a unit per ANSWER_BYTES_PER_UNIT of answer on top of the operation's cost, in the rate-limit headers", async () => {
    const { key } = await t.services.keys.issue({ name: "size", environment: "dev" });
    const lean = await t.app.inject({ url: `/api/v1/products/${bigId}`, headers: { authorization: key } });
    expect(lean.statusCode).toBe(200);
    expect(remaining(lean.headers.ratelimit)).toBe(999); // small: the lookup's 1 unit alone
    const raw = await t.app.inject({ url: `/api/v1/products/${bigId}?include_raw_data=1`, headers: { authorization: key } });
    expect(raw.statusCode).toBe(200);
    const units = Math.floor(raw.body.length / PER_UNIT);
    expect(units).toBe(5);
    expect(remaining(raw.headers.ratelimit)).toBe(999 - 1 - units);
  });

  it("charges a tRPC batch by what its answers hold together", async () => {
    const { key } = await t.services.keys.issue({ name: "batch size", environment: "dev" });
    const input = encodeURIComponent(JSON.stringify({ 0: { id: bigId, include_raw_data: true }, 1: { id: bigId, include_raw_data: true } }));
    const response = await t.app.inject({ url: `/trpc/products.byId,products.byId?batch=1&input=${input}`, headers: { authorization: key } });
    expect(response.statusCode).toBe(200);
    // Two lookups (1 unit each) and two answers of ~340 KB: 10 units of size.
    expect(remaining(response.headers.ratelimit)).toBe(1000 - 2 - 10);
  });

  it("refuses with 429, before serialising it, an answer whose size would take the key past its limit", async () => {
    const { key } = await t.services.keys.issue({ name: "small limit", environment: "dev", rateLimitPerMinute: 8 });
    const get = () => t.app.inject({ url: `/api/v1/products/${bigId}?include_raw_data=1`, headers: { authorization: key } });
    expect((await get()).statusCode).toBe(200); // 6 of 8
    const refused = await get();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ code: "rate_limited", status: 429 });
    expect(refused.headers["retry-after"]).toBeDefined();
    expect(refused.body.length).toBeLessThan(1_000);
    expect(remaining(refused.headers.ratelimit)).toBe(0);
  });
});

describe("raw data past the answer cap (issue 47)", () => {
  it("is refused with 400 answer_too_large as it is read, before the rest is read or the answer built", async () => {
    const capped = await createTestApp({
      records: Array.from({ length: 5 }, (_, i) => ({ ...BIG, url: `https://big.example/p/huge-tent-${i}` })),
      config: { ANSWER_MAX_BYTES: 1_048_576 },
    });
    try {
      const refused = await capped.app.inject({
        url: "/api/v1/products/search?q=tent&include_raw_data=true",
        headers: { authorization: capped.key },
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(refused.json()).toMatchObject({ code: "answer_too_large", status: 400 });
      expect(refused.json().detail).toMatch(/refused before the rest was read/);
      expect(refused.json().detail).toMatch(/ANSWER_MAX_BYTES.*include_raw_data.*limit/);
    } finally {
      await capped.close();
    }
  });
});

describe("a large answer's hash and compression (issue 47)", () => {
  it("tags and compresses a large body, off the event loop, to the same bytes and tag as the small path would", async () => {
    const url = `/api/v1/products/${bigId}?include_raw_data=1`;
    const plain = await t.app.inject({ url, headers: { authorization: t.key } });
    const zipped = await t.app.inject({ url, headers: { authorization: t.key, "accept-encoding": "gzip" } });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    const etag = `"${createHash("sha256").update(plain.rawPayload).digest("base64url")}"`;
    expect(plain.headers.etag).toBe(etag);
    expect(zipped.headers.etag).toBe(etag);
    const again = await t.app.inject({ url, headers: { authorization: t.key, "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
  });
});
