/**
 * The learned relevance cut-off through the HTTP API (issue 48), on embedded PGlite and on the postgres.js path: a
 * product the sentence encoder ties to the query is answered though it shares no word with it, and the answer says
 * its matches are weak; what nothing in the catalog is related to answers nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../server/db/open.js";
import { type SearchResponse, SearchResponseSchema } from "../../shared/schemas/index.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import type { TestRecord } from "../helpers/catalog.js";
import { type SocketPostgres, startSocketPostgres } from "../helpers/pgsocket.js";

const shop = (slug: string) => `https://shop.example/p/${slug}`;

const CATALOG: TestRecord[] = [
  { url: shop("headlamp"), name: "Trail 400 Headlamp", desc: "A 400-lumen LED headlamp with a red mode.", category: "Outdoor > Lighting" },
  { url: shop("soundbar"), name: "Arc 2.1 Soundbar", desc: "A soundbar with a wireless subwoofer and HDMI eARC.", category: "Electronics > Audio" },
  { url: shop("sunscreen"), name: "Daily Mineral SPF 50", desc: "A mineral sunscreen for the face.", category: "Beauty > Sun Care" },
  { url: shop("tights"), name: "Thermal Running Tights", desc: "Brushed tights for winter runs.", category: "Clothing > Running" },
  { url: shop("kettle"), name: "Gooseneck Pour-Over Kettle 0.9 L", desc: "A stovetop kettle with a thermometer.", category: "Kitchen > Kettles" },
  { url: shop("puzzle"), name: "Wooden Jigsaw Puzzle, 500 Pieces", desc: "A landscape puzzle for adults.", category: "Toys > Puzzles" },
  { url: shop("pan"), name: "Cast Iron Skillet 26 cm", desc: "Pre-seasoned skillet for the oven and the hob.", category: "Kitchen > Pans" },
];

describe.each(["PGlite", "postgres.js"] as const)("on %s", (path) => {
  let t: TestApp;
  let pg: SocketPostgres | undefined;
  beforeAll(async () => {
    pg = path === "postgres.js" ? await startSocketPostgres(4) : undefined;
    t = await createTestApp({ records: CATALOG, ...(pg ? { database: openPostgres({ url: pg.url, max: 1 }) } : {}) });
  });
  afterAll(async () => {
    await t?.close();
    await pg?.close();
  });

  async function search(q: string): Promise<SearchResponse> {
    const answer = await t.app.inject({ url: `/api/v1/products/search?q=${encodeURIComponent(q)}`, headers: { authorization: t.key } });
    expect(answer.statusCode, answer.body).toBe(200);
    return SearchResponseSchema.parse(answer.json());
  }
  const urls = (body: SearchResponse) => body.products.map((hit) => hit.pdp.url);
  const codes = (body: SearchResponse) => (body.messages ?? []).map((message) => message.code);

  it("answers what the encoder ties to a query in other words, and says the matches are weak", async () => {
    const body = await search("flashlight you wear on your head");
    expect(urls(body)[0]).toBe(shop("headlamp"));
    expect(codes(body)).toContain("weak_matches");
    expect(body.messages?.find((message) => message.code === "weak_matches")?.text).toMatch(/nearest products/u);
  });

  it("says nothing of weak matches when a product answers the query's words", async () => {
    const body = await search("headlamp");
    expect(urls(body)[0]).toBe(shop("headlamp"));
    expect(codes(body)).not.toContain("weak_matches");
  });

  it("answers nothing when nothing in the catalog is related", async () => {
    const body = await search("lawn mower");
    expect(urls(body)).toEqual([]);
    expect(codes(body)).not.toContain("weak_matches");
  });
});
