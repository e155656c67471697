/** Full-text retrieval's broad path (server/search/retrieve.ts): every word first, the matches capped before the filters. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { fullTextRanked } from "../../server/search/pipeline/retrieve.js";
import { literalPlan } from "../../server/search/understand.js";
import { products } from "../../server/db/schema.js";
import { FIXTURE } from "../helpers/catalog.js";

const base = FIXTURE[0]!;
const record = (slug: string, name: string, desc = "Knitwear.") => ({ ...base, url: `https://knit.example/products/${slug}`, name, desc });

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    records: [
      record("sweater", "Knit Top", "A red wool sweater."),
      record("scarf", "Red Wool Scarf"),
      record("shirt", "Blue Cotton Shirt"),
      record("hat", "Red Wool Hat"),
      // Ranks above the sweater (whose last word is only in its description), without having every word.
      record("redder", "Red Wool Red Wool Scarf", "Red wool, red wool."),
    ],
  });
});
afterAll(() => t.close());

async function idsWith(tsquery: string): Promise<Set<string>> {
  const rows = await t.database.db.select({ id: products.id }).from(products).where(sql`${products.search} @@ to_tsquery('english', ${tsquery})`);
  return new Set(rows.map((row) => row.id));
}

describe("full text, every word first", () => {
  const query = "red wool sweater";

  it("ranks only the products with every word when there are at least k of them", async () => {
    const every = await idsWith("red & wool & sweater");
    const any = await idsWith("red | wool | sweater");
    expect(every.size).toBeGreaterThan(0);
    expect(any.size).toBeGreaterThan(every.size); // otherwise this test could not tell the paths apart

    const first = await fullTextRanked(t.database.db, literalPlan(query), {}, every.size, { broad: true });
    expect(new Set(first.map((r) => r.id))).toEqual(every);
    // Plain ranking puts a product without every word first, so the two paths differ here.
    const [top] = await fullTextRanked(t.database.db, literalPlan(query), {}, every.size);
    expect(every.has(top!.id)).toBe(false);
    // Without the option, the same k takes whatever ranks best among any-word matches.
    const plain = await fullTextRanked(t.database.db, literalPlan(query), {}, any.size);
    expect(new Set(plain.map((r) => r.id))).toEqual(any);
  });

  it("falls back to any word when fewer than k products have every word", async () => {
    const any = await idsWith("red | wool | sweater");
    const ranked = await fullTextRanked(t.database.db, literalPlan(query), {}, any.size + 5, { broad: true });
    expect(new Set(ranked.map((r) => r.id))).toEqual(any);
    expect(await fullTextRanked(t.database.db, literalPlan("!!!"), {}, 5, { broad: true })).toEqual([]);
  });
});

describe("full text, broad, under a filter", () => {
  it("answers what the filter inside the match answers, applied to the capped matches", async () => {
    // A filter that passes some of the matches (not the scarves), so that where it applies shows.
    const filters = { excluded: ["scarf"], updatedSince: new Date(0) };
    const inside = await fullTextRanked(t.database.db, literalPlan("red wool"), filters, 10);
    const capped = await fullTextRanked(t.database.db, literalPlan("red wool"), filters, 10, { broad: true });
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.length).toBeLessThan((await idsWith("red | wool")).size);
    expect(capped).toEqual(inside);
  });
});
