/**
 * Cheap repeated reads: strong ETags and 304s on REST answers, and
 * compression negotiated from Accept-Encoding. Real app, real database.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { sharedEmbedder } from "../helpers/embedder.js";
import { ProblemSchema } from "../../shared/schemas/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const tent = FIXTURE[0]!;
const tentId = productIdFromUrlKey(productUrlKey(tent.url)!);

function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: "GET", url, headers: { authorization: t.key, ...headers } });
}

describe("ETag and If-None-Match", () => {
  it.each([
    ["by id", `/api/v1/products/${tentId}`],
    ["by url", `/v1/products?url=${encodeURIComponent(tent.url)}`],
    ["search", "/api/v1/products/search?q=backpacking%20tent&limit=3"],
  ])("round-trips a 304 with no body (%s)", async (_name, url) => {
    const first = await get(url);
    expect(first.statusCode).toBe(200);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers["cache-control"]).toBe("private, max-age=0, must-revalidate");

    const again = await get(url, { "if-none-match": etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(etag);
    expect(again.headers["cache-control"]).toBe("private, max-age=0, must-revalidate");
    expect(again.headers.ratelimit).toBeDefined();
    expect(again.headers["content-encoding"]).toBeUndefined();

    // A list with the tag, or its weak form, matches; another tag does not.
    expect((await get(url, { "if-none-match": `"other", W/${etag}` })).statusCode).toBe(304);
    const miss = await get(url, { "if-none-match": '"other"' });
    expect(miss.statusCode).toBe(200);
    expect(miss.body).toBe(first.body);
  });

  it("gives a different body a different tag", async () => {
    const plain = await get(`/api/v1/products/${tentId}`);
    const raw = await get(`/api/v1/products/${tentId}?include_raw_data=true`);
    expect(raw.headers.etag).not.toBe(plain.headers.etag);
  });

  it("changes the tag when the product changes", async () => {
    const url = `/api/v1/products/${tentId}`;
    const before = await get(url);
    const line = parseLine("changed", 1, JSON.stringify({ ...tent, price_label: "$299.00" }));
    const summary = await importRecords({ db: t.database.db, embedder: await sharedEmbedder() }, [line]);
    expect(summary.failed).toBe(0);
    // Cached until the server's next catalog check (every second in server/main.ts).
    expect((await get(url)).json().pdp.price_label).toBe(before.json().pdp.price_label);
    await t.services.catalog.syncCache();
    const after = await get(url, { "if-none-match": before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(after.json().pdp.price_label).toBe("$299.00");
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it("tags no error answers", async () => {
    const missing = await get("/api/v1/products/pdp_nothing", { "if-none-match": "*" });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    ProblemSchema.parse(missing.json());
  });
});

describe("compression", () => {
  // Words of every fixture product, so the answer holds them all (search answers only what matches).
  const big = `/api/v1/products/search?q=tent%20bag%20skillet%20saucepan%20headphones%20shoes&limit=20&include_raw_data=true`;

  it("answers brotli when asked for br", async () => {
    const plain = await get(big, { "accept-encoding": "identity" });
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    const response = await get(big, { "accept-encoding": "br" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-encoding"]).toBe("br");
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(response.rawPayload).toString()).toBe(plain.body);
    // The tag names the representation's content, so it survives the encoding.
    expect(response.headers.etag).toBe(plain.headers.etag);
  });

  it("compresses answers over 16 KB whole (regression: @fastify/compress sent them empty through the REST bridge)", async () => {
    const records = Array.from({ length: 150 }, (_, i) => ({
      url: `https://lamps.example/p/${i}`,
      name: `Lamp ${i}`,
      desc: "warm light ".repeat(20),
    }));
    const lamps = await createTestApp({ records });
    try {
      const large = (encoding: string) =>
        // A browse, not a search: its order does not depend on the reranker having warmed up between the two calls (on a loaded machine it may not have).
        lamps.app.inject({
          url: "/api/v1/products/search?brand_url=https://lamps.example&sort=newest&limit=100",
          headers: { authorization: lamps.key, "accept-encoding": encoding },
        });
      const plain = await large("identity");
      expect(plain.rawPayload.length).toBeGreaterThan(16 * 1024);
      const response = await large("gzip, deflate, br;q=0");
      expect(response.headers["content-encoding"]).toBe("gzip");
      // Products compared, not bytes: the next page's cursor carries the second it was issued in, which may differ.
      const products = (body: string) => (JSON.parse(body) as { products: unknown[] }).products;
      expect(products(gunzipSync(response.rawPayload).toString())).toEqual(products(plain.body));
    } finally {
      await lamps.close();
    }
  });

  it("answers gzip when asked for gzip", async () => {
    const plain = await get(big);
    const response = await get(big, { "accept-encoding": "gzip" });
    expect(response.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(response.rawPayload).toString()).toBe(plain.body);
  });

  it("sends identity when no encoding is asked for, and leaves small answers alone", async () => {
    const response = await get(big);
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.json().products.length).toBeGreaterThan(0);
    const small = await get("/api/v1/products/pdp_nothing", { "accept-encoding": "br, gzip" });
    expect(small.statusCode).toBe(404);
    expect(small.headers["content-encoding"]).toBeUndefined();
    expect(small.headers["content-type"]).toMatch(/^application\/problem\+json/);
    ProblemSchema.parse(small.json());
  });

  it("compresses /trpc answers too", async () => {
    const input = encodeURIComponent(JSON.stringify({ q: "tent", include_raw_data: true }));
    const response = await get(`/trpc/products.search?input=${input}`, { "accept-encoding": "gzip" });
    expect(response.statusCode).toBe(200);
    const body = response.headers["content-encoding"] === "gzip" ? gunzipSync(response.rawPayload).toString() : response.body;
    expect(JSON.parse(body).result.data.products.length).toBeGreaterThan(0);
  });

  it("still serves /docs and /openapi.json", async () => {
    const docs = await t.app.inject({ method: "GET", url: "/docs", headers: { "accept-encoding": "br, gzip" } });
    expect([200, 301, 302]).toContain(docs.statusCode);
    const page =
      docs.statusCode !== 200
        ? await t.app.inject({ method: "GET", url: docs.headers.location as string, headers: { "accept-encoding": "gzip" } })
        : docs;
    expect(page.statusCode).toBe(200);
    const html =
      page.headers["content-encoding"] === "gzip"
        ? gunzipSync(page.rawPayload).toString()
        : page.headers["content-encoding"] === "br"
          ? brotliDecompressSync(page.rawPayload).toString()
          : page.body;
    expect(html).toMatch(/<html/i);
    const doc = await t.app.inject({ method: "GET", url: "/openapi.json", headers: { "accept-encoding": "br" } });
    expect(doc.statusCode).toBe(200);
    const json = doc.headers["content-encoding"] === "br" ? brotliDecompressSync(doc.rawPayload).toString() : doc.body;
    expect(JSON.parse(json).openapi).toMatch(/^3\.1/);
  });
});
