/**
 * The search pipeline (server/search/pipeline/): one request runs retrieval at most twice, however many reasons its
 * answer has to be empty, and says the first explanation that fits. Retrievals are counted by the rerank stage's
 * observations in /metrics (one per retrieval).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { STRUCTURED } from "../helpers/structured.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ records: STRUCTURED });
});
afterAll(async () => t.close());

async function retrievals(): Promise<number> {
  const response = await t.app.inject({ url: "/metrics", headers: { authorization: `Bearer ${t.key}` } });
  const line = response.body.split("\n").find((l) => l.startsWith('catalog_search_stage_duration_seconds_count{stage="rerank"}'));
  return Number(line?.split(" ").at(-1) ?? 0);
}

async function search(query: string) {
  const before = await retrievals();
  const response = await t.app.inject({ url: `/v1/products/search?q=${encodeURIComponent(query)}`, headers: { authorization: `Bearer ${t.key}` } });
  expect(response.statusCode).toBe(200);
  return { body: response.json(), retrievals: (await retrievals()) - before };
}

describe("retrievals per request", () => {
  it("runs one for a search that answers", async () => {
    const { body, retrievals } = await search("headphones");
    expect(body.products.length).toBeGreaterThan(0);
    expect(retrievals).toBe(1);
  });

  it("runs at most two for an empty answer with a price bound, a stock filter and a word no product holds", async () => {
    const { body, retrievals } = await search("cheapest zqxvy headphones under £5 in stock");
    expect(body.products).toEqual([]);
    expect(retrievals).toBeLessThanOrEqual(2);
    // The first explanation that fits is said: the price bounds.
    expect(body.messages.map((m: { code: string }) => m.code)).toContain("currency_only");
  });

  it("says the price bounds' explanation first, in the one more search, when stock would explain too", async () => {
    const { body, retrievals } = await search("headphones under £5 in stock");
    expect(body.products).toEqual([]);
    expect(retrievals).toBe(2);
    expect(body.messages[0].text).toContain("none within the bounds");
    expect(body.messages.map((m: { code: string }) => m.code)).not.toContain("none_available");
  });
});
