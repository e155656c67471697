/**
 * The README's and issue 15's example searches on the sample catalog a new user starts with: each returns what it
 * promises (the product asked for near the top, nothing of another kind first).
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_CATALOG_PATH } from "../../server/sample/index.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import type { TestRecord } from "../helpers/catalog.js";

let t: TestApp;
beforeAll(async () => {
  const records = readFileSync(SAMPLE_CATALOG_PATH, "utf8")
    .trim()
    .split("\n")
    .map((line): TestRecord => JSON.parse(line));
  t = await createTestApp({ records });
}, 180_000);
afterAll(() => t.close());

/** The answer's product URLs, without host or query string. */
async function paths(query: string): Promise<string[]> {
  const response = await t.app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: t.key } });
  expect(response.statusCode).toBe(200);
  return response.json().products.map((p: { pdp: { url: string } }) => new URL(p.pdp.url).pathname);
}

describe("the sample catalog's example searches", () => {
  it("waterproof hiking jacket: the rain shell in the top three, jackets before shoes and gaiters", async () => {
    const found = await paths("q=waterproof+hiking+jacket&limit=5");
    expect(found.slice(0, 3)).toContain("/products/stormline-3l-rain-shell-mens-ochre");
    expect(found.slice(0, 2).every((path) => /jacket|shell/.test(path))).toBe(true);
  });

  it("kettle on one brand's site: the kettle first", async () => {
    expect((await paths("q=kettle&brand_url=copperleafkitchen.example"))[0]).toBe("/en/p/gooseneck-pour-over-kettle-0-9-l-matte-black");
  });

  it("typos find the product: sunscren, hedphones, expresso", async () => {
    expect((await paths("q=sunscren+spf+50"))[0]).toBe("/item/mineral-sunscreen-spf50-pa-50-ml");
    expect((await paths("q=hedphones&limit=3")).every((path) => path.includes("headphones"))).toBe(true);
    expect((await paths("q=expresso&limit=3")).some((path) => path.includes("espresso"))).toBe(true);
  });

  it("a synonym finds the sofa", async () => {
    expect((await paths("q=couch"))[0]).toMatch(/sofa/);
  });
});
