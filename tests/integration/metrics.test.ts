/**
 * GET /metrics on the API: behind a key, Prometheus text, requests labelled by
 * route pattern (never by raw URL), search stages and rerank fallbacks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import type { Reranker } from "../../server/search/reranker.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function scrape(app: TestApp): Promise<string> {
  const response = await app.app.inject({ url: "/metrics", headers: { authorization: `Bearer ${app.key}` } });
  expect(response.statusCode).toBe(200);
  expect(response.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.body;
}

/** The value of one series, e.g. `catalog_http_requests_total{method="GET",…}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("/metrics on the API", () => {
  it("refuses a request without a valid key with the usual 401 problem", async () => {
    for (const headers of [{}, { authorization: "pcl_test_notakey" }]) {
      const response = await t.app.inject({ url: "/metrics", headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(response.headers["www-authenticate"]).toBeDefined();
      expect(response.json()).toMatchObject({ code: "unauthorized", status: 401 });
    }
  });

  it("counts and times requests by route pattern and status, never by raw URL", async () => {
    const headers = { authorization: t.key };
    const found = await t.app.inject({ url: "/api/v1/products/search?q=tent&limit=1", headers });
    expect(found.statusCode).toBe(200);
    const id = (found.json() as { products: { pdp: { id: string } }[] }).products[0]!.pdp.id;
    expect((await t.app.inject({ url: `/api/v1/products/${id}`, headers })).statusCode).toBe(200);
    expect((await t.app.inject({ url: "/api/v1/products/pdp_does_not_exist", headers })).statusCode).toBe(404);
    expect((await t.app.inject({ url: "/no/such/route/pdp_123" })).statusCode).toBe(404);

    const text = await scrape(t);
    expect(sample(text, 'catalog_http_requests_total{method="GET",route="/api/v1/products/search",status_code="200"}')).toBe(1);
    expect(sample(text, 'catalog_http_requests_total{method="GET",route="/api/v1/products/:id",status_code="200"}')).toBe(1);
    expect(sample(text, 'catalog_http_requests_total{method="GET",route="/api/v1/products/:id",status_code="404"}')).toBe(1);
    expect(sample(text, 'catalog_http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(1);
    expect(sample(text, 'catalog_http_request_duration_seconds_count{method="GET",route="/api/v1/products/search",status_code="200"}')).toBe(1);
    // Ids, queries and unknown paths would each make a series of their own.
    for (const raw of [id, "pdp_does_not_exist", "q=tent", "/no/such/route"]) expect(text).not.toContain(raw);
  });

  it("times each search stage, over REST and tRPC alike", async () => {
    const before = sample(await scrape(t), 'catalog_search_stage_duration_seconds_count{stage="embed"}') ?? 0;
    await t.app.inject({ url: "/api/v1/products/search?q=skillet", headers: { authorization: t.key } });
    const input = encodeURIComponent(JSON.stringify({ q: "headphones" }));
    expect((await t.app.inject({ url: `/trpc/products.search?input=${input}`, headers: { authorization: t.key } })).statusCode).toBe(200);
    const text = await scrape(t);
    for (const stage of ["embed", "retrieve", "rerank"]) {
      expect(sample(text, `catalog_search_stage_duration_seconds_count{stage="${stage}"}`)).toBe(before + 2);
      expect(sample(text, `catalog_search_stage_duration_seconds_sum{stage="${stage}"}`)).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'catalog_http_requests_total{method="GET",route="/trpc/:path",status_code="200"}')).toBe(1);
    // Process metrics come along (a registry of the app's own still collects them).
    expect(text).toContain("process_resident_memory_bytes");
  });

  it("counts rerank fallbacks by reranker and reason, in an app of its own", async () => {
    const failing: Reranker = {
      name: "flaky",
      rerank: async (_query, candidates) => ({ ids: candidates.map((c) => c.id), outcome: "fallback", reason: "timeout after 50ms" }),
    };
    const other = await createTestApp({ reranker: () => failing });
    try {
      const response = await other.app.inject({ url: "/api/v1/products/search?q=tent", headers: { authorization: other.key } });
      expect(response.headers["x-rerank"]).toBe("fallback");
      const text = await scrape(other);
      expect(sample(text, 'catalog_rerank_fallbacks_total{reranker="flaky",reason="timeout"}')).toBe(1);
      // Each app counts only its own requests.
      expect(sample(text, 'catalog_http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBeUndefined();
    } finally {
      await other.close();
    }
    expect(await scrape(t)).not.toContain("catalog_rerank_fallbacks_total{");
  });
});
