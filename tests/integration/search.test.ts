/** Search fills its page: brand scope applied inside both retrievals, HNSW never returning too few rows. */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { openTestDatabase } from "../helpers/database.js";
import type { TestRecord } from "../helpers/catalog.js";
import { noneReranker } from "../../server/search/reranker.js";
import { products } from "../../server/db/schema.js";
import { vectorRanked, withinExactScope } from "../../server/search/pipeline/retrieve.js";

const KINDS = ["lamp", "chair", "kettle", "backpack", "jacket", "speaker", "mug", "blanket", "shoe", "tent"];
const COLOURS = ["red", "blue", "green", "black", "white", "grey", "orange", "yellow", "navy", "olive"];

/** 1,000 products: 990 from one big store, 10 (1%) from a tiny brand. */
function catalog(): TestRecord[] {
  return Array.from({ length: 1000 }, (_, i) => {
    const tiny = i % 100 === 0;
    const host = tiny ? "www.tinybrand.example" : "bigstore.example";
    return {
      url: `https://${host}/p/${i}`,
      name: `${COLOURS[i % 10]} ${KINDS[Math.floor(i / 10) % 10]} no. ${i}`,
      brands: [tiny ? "Tiny Brand" : "Big Store"],
    };
  });
}

let t: TestApp;
beforeAll(async () => {
  // What retrieval returns, unreranked: the local reranker's floor would rightly cut "red lamp no. 5" from "blue mug".
  // One connection: the HNSW test's session setting and its statistics flush must reach the connection that searches.
  t = await createTestApp({ records: catalog(), reranker: () => noneReranker, database: await openTestDatabase({ max: 1 }) });
});
afterAll(() => t.close());

async function search(query: string): Promise<{ brands: string[]; url: string }[]> {
  const response = await t.app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: t.key } });
  expect(response.statusCode).toBe(200);
  return response.json().products.map((p: { pdp: { brands: string[]; url: string } }) => p.pdp);
}

describe("brand scope on a brand with 1% of the catalog", () => {
  it("returns all of the brand's products when limit exceeds them, and only them", async () => {
    const results = await search("q=red%20lamp&brand_url=tinybrand.example&limit=20");
    expect(results).toHaveLength(10);
    expect(new Set(results.map((p) => p.brands[0]))).toEqual(new Set(["Tiny Brand"]));
  });

  it("returns exactly limit when the brand has more", async () => {
    expect(await search("q=lamp&brand_url=https%3A%2F%2Fwww.tinybrand.example%2Fanything&limit=5")).toHaveLength(5);
  });

  it("keeps a large brand's page full", async () => {
    const results = await search("q=olive%20jacket&brand_url=bigstore.example&limit=100");
    expect(results).toHaveLength(100);
    expect(results.every((p) => p.url.includes("bigstore.example"))).toBe(true);
  });
});

describe("unscoped search", () => {
  it("returns limit=100 results from a 1,000-product catalog (ef_search raised above its default 40)", async () => {
    expect(await search("q=blue%20mug&limit=100")).toHaveLength(100);
  });
});

describe("the exact scope, counted in product_facets", () => {
  it("holds a filter narrowing to at most 20,000 products and half the catalog, never the whole catalog", async () => {
    const db = t.database.db;
    expect(await withinExactScope(db, { brandHost: "tinybrand.example" }, 1000)).toBe(true);
    // 99% of the catalog is ranked as the whole catalog is: the index fills its page at once.
    expect(await withinExactScope(db, { brandHost: "bigstore.example" }, 1000)).toBe(false);
    expect(await withinExactScope(db, { brandHost: "bigstore.example" }, 5000)).toBe(true);
    expect(await withinExactScope(db, {}, 1000)).toBe(false);
    expect(await withinExactScope(db, { currency: "USD" }, 1000)).toBe(false);
  });

  /** The products of one store with their vectors. */
  const embedded = (host: string) =>
    t.database.db.select({ id: products.id, embedding: products.embedding }).from(products).where(eq(products.brandHost, host));
  const cosineTo = (query: number[]) => (v: number[]) => v.reduce((sum, x, i) => sum + x * query[i]!, 0) / Math.hypot(...v) / Math.hypot(...query);

  it("ranks every product of an exact scope by cosine, closest first", async () => {
    const db = t.database.db;
    const scope = await embedded("tinybrand.example");
    expect(scope).toHaveLength(10);
    const query = scope[3]!.embedding!;
    const cosine = cosineTo(query);
    const expected = scope.map((row) => ({ id: row.id, score: cosine(row.embedding!) })).sort((a, b) => b.score - a.score);
    const { ranked } = await vectorRanked(db, query, { brandHost: "tinybrand.example" }, 50, { settingsInSession: false, exact: true });
    expect(ranked.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    expect(ranked[0]).toEqual({ id: scope[3]!.id, score: expect.closeTo(1, 5) });
  });

  it("also scores the ids it is given, in the same statement, without ranking them", async () => {
    const db = t.database.db;
    const scope = await embedded("tinybrand.example");
    const [other] = await embedded("bigstore.example").limit(1);
    const query = scope[0]!.embedding!;
    const cosine = cosineTo(query);
    const options = { settingsInSession: false, exact: true, alsoScore: [other!.id, scope[9]!.id] };
    const { ranked, similarities } = await vectorRanked(db, query, { brandHost: "tinybrand.example" }, 3, options);
    expect(ranked).toHaveLength(3);
    expect(ranked.map((row) => row.id)).not.toContain(other!.id);
    expect(similarities.get(other!.id)).toBeCloseTo(cosine(other!.embedding!), 5);
    expect(similarities.get(scope[9]!.id)).toBeCloseTo(cosine(scope[9]!.embedding!), 5);
    for (const row of ranked) expect(similarities.get(row.id)).toBe(row.score);
  });
});

describe("vector retrieval over the whole catalog", () => {
  /** Index scans of the HNSW index so far (the statistics are flushed first: they are otherwise sent when idle). */
  async function hnswScans(): Promise<number> {
    const db = t.database.db;
    await db.execute(sql`select pg_stat_force_next_flush()`);
    await db.execute(sql`select pg_stat_clear_snapshot()`);
    const [row] = await db
      .select({ n: sql<number>`idx_scan::int` })
      .from(sql`pg_stat_user_indexes`)
      .where(sql`indexrelname = 'products_embedding_idx'`);
    return row!.n;
  }

  it("walks the HNSW index, and the exact path does not", async () => {
    const db = t.database.db;
    const [row] = await db.select({ embedding: products.embedding }).from(products).limit(1);
    // A 1,000-product table is cheaper to scan: forbid it, so only an ORDER BY that matches the index can use it.
    await db.execute(sql`set enable_seqscan = off`);
    try {
      const before = await hnswScans();
      const { ranked } = await vectorRanked(db, row!.embedding!, {}, 20, { settingsInSession: true, exact: false });
      expect(ranked).toHaveLength(20);
      const afterHnsw = await hnswScans();
      expect(afterHnsw).toBe(before + 1);
      await vectorRanked(db, row!.embedding!, {}, 20, { settingsInSession: true, exact: true });
      expect(await hnswScans()).toBe(afterHnsw);
    } finally {
      await db.execute(sql`reset enable_seqscan`);
    }
  });
});
