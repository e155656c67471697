/**
 * The learned relevance cut-off through the HTTP API (issue 48), on embedded PGlite and on the postgres.js path: a
 * product the sentence encoder ties to the query is answered though it shares no word with it, and the answer says
 * its matches are weak; a query none of whose words is read answers nothing. On the sample catalog, with the
 * shipped fitted.json.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres } from "../../server/db/open.js";
import { SAMPLE_CATALOG_PATH } from "../../server/sample/index.js";
import { type SearchResponse, SearchResponseSchema } from "../../shared/schemas/index.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import type { TestRecord } from "../helpers/catalog.js";
import { type SocketPostgres, startSocketPostgres } from "../helpers/pgsocket.js";

/** The sample catalog (241 products): the cut-off is fitted on queries over it, and its encoder ties need company. */
const CATALOG = readFileSync(SAMPLE_CATALOG_PATH, "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as TestRecord);
/** A page in a language the lexicons do not read, of a brand the sample catalog lacks: one word of an English request ties it. */
const POLISH_PAGE: TestRecord = {
  url: "https://sklep.example/pl/p/zestaw-podtynkowy-wc-grohe",
  name: "Zestaw podtynkowy WC GROHE Rapid SL z miską rimless",
  desc: "Stelaż podtynkowy do WC z przyciskiem i miską wiszącą bez kołnierza (rimless). Montaż w ścianie.",
  brands: ["GROHE"],
  price_label: "997,00 zł",
};

describe.each(["PGlite", "postgres.js"] as const)("on %s", (path) => {
  let t: TestApp;
  let pg: SocketPostgres | undefined;
  beforeAll(async () => {
    pg = path === "postgres.js" ? await startSocketPostgres(4) : undefined;
    t = await createTestApp({ records: [...CATALOG, POLISH_PAGE], ...(pg ? { database: openPostgres({ url: pg.url, max: 1 }) } : {}) });
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
  const names = (body: SearchResponse) => body.products.map((hit) => hit.pdp.name);
  const codes = (body: SearchResponse) => (body.messages ?? []).map((message) => message.code);

  it("answers what the encoder ties to a query in other words, and says the matches are weak", async () => {
    // No product says "tv", "sound" or "system"; the encoder finds the stereo amplifier closer than the rest.
    const body = await search("tv sound system");
    expect(names(body)[0]).toMatch(/Amplifier/u);
    expect(codes(body)).toContain("weak_matches");
    expect(body.messages?.find((message) => message.code === "weak_matches")?.text).toMatch(/nearest products/u);
  });

  it("says nothing of weak matches when a product answers the query's words", async () => {
    const body = await search("headlamp");
    expect(names(body)[0]).toBe("Lumen 400 Rechargeable Headlamp");
    expect(codes(body)).not.toContain("weak_matches");
  });

  it("cuts no product as what the query's kind is for when no kind is read: a verb before 'to' names none", async () => {
    expect(names(await search("loves pretending to cook play kitchen"))[0]).toBe("Birch Plywood Pretend Play Kitchen");
    // Where the kind asked is sold, what it is for is still cut: the sofa for "cushion for the sofa".
    expect(names(await search("cushion for the sofa")).join(" ")).not.toMatch(/Sofa/u);
  });

  it("says the matches are weak when the catalog holds no word for the sort of the kind asked", async () => {
    // Bags and jackets are sold; nothing in the catalog says "golf", so no golf bag is, whatever else the answer holds.
    expect(codes(await search("golf bag"))).toContain("weak_matches");
    expect(codes(await search("sleeping bag"))).not.toContain("weak_matches");
  });

  it("answers the products of a brand the query names that hold a word of it as weak matches, though the reranker ties none", async () => {
    const body = await search("I need a concealed frame set for a wall-hung toilet, rimless, from Grohe");
    expect(names(body)).toEqual([POLISH_PAGE.name]);
    expect(codes(body)).toContain("weak_matches");
  });

  it("answers what only vector retrieval found under its floor as weak matches, rather than nothing", async () => {
    // No word matches and nothing clears SEARCH_MIN_SIMILARITY: the reranker judges the nearest under it.
    const body = await search("wedding dress");
    expect(body.products.length).toBeGreaterThan(0);
    expect(codes(body)).toEqual(["weak_matches"]);
  });

  it("answers nothing when no word of the query is read: the encoder's nearest to gibberish is no evidence", async () => {
    for (const q of ["asdfgh", "zzqv"]) expect(await search(q)).toEqual({ products: [] });
  });
});
