/**
 * Attributes from the catalog, at import (issue 48): the `audience`, `colour` and `material` filters and facets, a
 * 400 for a value no catalog has, and a query's words read as those filters, on embedded PGlite and on the
 * postgres.js path (PGlite over a socket).
 */
import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { backfillStructured } from "../../server/catalog/backfill.js";
import { productFacets, products } from "../../server/db/schema.js";
import { ProblemSchema, type SearchResponse, SearchResponseSchema } from "../../shared/schemas/index.js";
import type { TestRecord } from "../helpers/catalog.js";
import { appOnPath, DATABASE_PATHS } from "../helpers/paths.js";

/** From the sample catalog: running shoes for women, men, kids and either; a black kettle; red and sage Dutch ovens. */
const WANTED = /Running Shoe|Racing Shoe|Kettle|Dutch Oven|Teapot|Merino Base Layer|Fleece Hoodie/;
const RECORDS: TestRecord[] = readFileSync(new URL("../../server/sample/products.ndjson", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line) as TestRecord)
  .filter((record) => WANTED.test(record.name))
  .concat([
    // A brand that names a colour, on a product of another colour; and a product of that colour.
    { url: "https://socks.example/p/gold-toe-crew", name: "Gold Toe Crew Socks, Black", desc: "Cotton crew socks." },
    { url: "https://socks.example/p/party-dress", name: "Sequin Party Dress, Gold", desc: "A sequinned dress." },
  ]);

describe.each(DATABASE_PATHS)("on %s", (path) => {
  const { app } = appOnPath(path, { records: RECORDS });

  const get = (url: string) => app().app.inject({ url, headers: { authorization: app().key } });
  async function search(query: string): Promise<SearchResponse> {
    const answer = await get(`/api/v1/products/search?${query}`);
    expect(answer.statusCode, answer.body).toBe(200);
    return SearchResponseSchema.parse(answer.json());
  }
  const names = (body: SearchResponse) => body.products.map((hit) => hit.pdp.name);

  it("filters by audience: women's and unisex products, no men's, no kids'", async () => {
    const found = names(await search("category=shoes&audience=women&limit=50"));
    expect(found.length).toBeGreaterThan(0);
    expect(
      found.every((name) => /Women's|Unisex/.test(name)),
      found.join("; "),
    ).toBe(true);
    expect(found).toContain("Flyer Carbon Plate Racing Shoe, Unisex");
    const kids = names(await search("audience=kids&limit=50"));
    expect(kids).toEqual(["Tempo Jr Running Shoe, Kids', Cobalt Blue"]);
  });

  it("filters by colour, a shopper's word for it read as its family (gray, charcoal: grey)", async () => {
    const grey = names(await search("colour=gray&limit=50")).sort();
    expect(grey).toEqual(
      [
        "Longhaul Max Cushion Running Shoe, Men's, Storm Grey",
        "Tarn Merino Base Layer Crew, Men's, Charcoal, 200 gsm",
        "Alpine Fleece Hoodie, Women's, Heather Grey",
      ].sort(),
    );
    expect(names(await search("q=dutch+oven&colour=red"))).toEqual(["Enamelled Cast Iron Dutch Oven, 5.2 L, Cherry Red"]);
    expect(names(await search("material=merino&limit=50")).every((name) => name.includes("Merino"))).toBe(true);
  });

  it("counts audiences, colours and materials as facets", async () => {
    const body = await search("category=shoes&facets=audience,colour,material&limit=1");
    // The most first, then by name.
    expect(body.facets?.audience).toEqual([
      { value: "men", count: 4 },
      { value: "women", count: 2 },
      { value: "kids", count: 1 },
      { value: "unisex", count: 1 },
    ]);
    expect(body.facets?.colour).toEqual(
      expect.arrayContaining([
        { value: "green", count: 2 },
        { value: "grey", count: 1 },
      ]),
    );
    expect(body.facets?.material).toEqual([]);
    const kitchen = await search("q=cast+iron&facets=material,colour");
    expect(kitchen.facets?.material).toEqual(expect.arrayContaining([{ value: "cast iron", count: 3 }]));
  });

  it("refuses an audience, colour or material no catalog has, naming the parameter", async () => {
    for (const [query, param, says] of [
      ["audience=teens", "audience", "must be one of women, men, unisex, girls, boys, kids, baby"],
      ["colour=plaid", "colour", 'colour: "plaid" is not a colour this catalog knows'],
      ["material=unobtainium", "material", 'material: "unobtainium" is not a material'],
      ["colour=r3d", "colour", "must be a colour word"],
    ] as const) {
      const answer = await get(`/api/v1/products/search?${query}`);
      expect(answer.statusCode, query).toBe(400);
      const body = ProblemSchema.parse(answer.json());
      expect(body.code).toBe("invalid_parameter");
      expect(body.detail, query).toContain(says);
      expect(
        body.errors?.map((error) => error.param),
        query,
      ).toContain(param);
    }
  });

  it("reads an audience from the query: women's running shoes answer no kids' or men's shoe, and say so", async () => {
    const body = await search("q=women%27s+running+shoes");
    const found = names(body);
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((name) => /Men's|Kids'/.test(name))).toEqual([]);
    expect(body.interpretation?.applied).toContainEqual({ filter: "audience", value: "women", text: "women's" });
    // Read from the query, products that state no audience are not left out: the kettle states none.
    const kettle = await search("q=kettle+for+women");
    expect(names(kettle)).toContain("Gooseneck Pour-Over Kettle, 0.9 L, Matte Black");
    // A parameter given wins, and the answer says what was not applied.
    const given = await search("q=women%27s+running+shoes&audience=men");
    expect(names(given).every((name) => /Men's|Unisex/.test(name))).toBe(true);
    expect(given.interpretation?.not_applied).toContainEqual(expect.objectContaining({ filter: "audience", reason: "audience was given" }));
  });

  it("reads no adult's audience from a person of any age: running shoes for my daughter may be a child's, for my wife a woman's", async () => {
    const daughter = await search("q=running+shoes+for+my+daughter&limit=20");
    expect(names(daughter)).toContain("Tempo Jr Running Shoe, Kids', Cobalt Blue");
    expect(daughter.interpretation?.applied ?? []).not.toContainEqual(expect.objectContaining({ filter: "audience" }));
    const wife = await search("q=running+shoes+for+my+wife");
    expect(wife.interpretation?.applied).toContainEqual({ filter: "audience", value: "women", text: "wife" });
    // Nor from a pronoun ("she", "her" say a sex, not an age); an age said as a birthday is a child's.
    const her = await search("q=running+shoes+for+my+daughter,+she+loves+her+blue+socks&limit=20");
    expect(her.interpretation?.applied ?? []).not.toContainEqual(expect.objectContaining({ filter: "audience" }));
    const turning = await search("q=running+shoes+for+my+daughter+who+is+turning+7&limit=20");
    expect(turning.interpretation?.applied).toContainEqual(expect.objectContaining({ filter: "audience", value: "girls" }));
    expect(names(turning)).toContain("Tempo Jr Running Shoe, Kids', Cobalt Blue");
  });

  it("reads a colour the catalog holds: red Dutch oven, not the sage one; a colour it holds none of is no filter", async () => {
    const red = await search("q=red+dutch+oven");
    expect(names(red)).toContain("Enamelled Cast Iron Dutch Oven, 5.2 L, Cherry Red");
    expect(names(red)).not.toContain("Enamelled Cast Iron Dutch Oven, 3.8 L, Sage");
    expect(red.interpretation?.applied).toContainEqual({ filter: "colour", value: "red", text: "red" });
    // No product here is yellow: "yellow" is searched as a word, not read as a filter.
    const yellow = await search("q=yellow+dutch+oven");
    expect(yellow.interpretation?.applied ?? []).not.toContainEqual(expect.objectContaining({ filter: "colour" }));
    // A product naming the colour word read passes, if only as a name: Gold Toe's black socks for "gold toe socks".
    const socks = await search("q=gold+toe+socks");
    expect(socks.interpretation?.applied).toContainEqual({ filter: "colour", value: "gold", text: "gold" });
    expect(names(socks)).toContain("Gold Toe Crew Socks, Black");
    // "-red" asks for no red: not read as the colour.
    const notRed = await search("q=dutch+oven+-red");
    expect(notRed.interpretation?.applied).not.toContainEqual(expect.objectContaining({ filter: "colour" }));
  });

  it("derives the attributes of rows an older derivation wrote, and product_facets follows", async () => {
    const db = app().database.db;
    const [row] = await db.select({ id: products.id }).from(products).where(eq(products.name, "Tempo Jr Running Shoe, Kids', Cobalt Blue"));
    const id = row!.id;
    await db.update(products).set({ audience: null, colours: [], kind: null, derivedVersion: 3 }).where(eq(products.id, id));
    expect((await db.select({ audience: productFacets.audience }).from(productFacets).where(eq(productFacets.id, id)))[0]?.audience).toBeNull();
    expect(await backfillStructured(db)).toBe(1);
    const [stored] = await db
      .select({ kind: products.kind, audience: products.audience, colours: products.colours })
      .from(products)
      .where(eq(products.id, id));
    expect(stored).toEqual({ kind: "shoe", audience: "kids", colours: ["blue"] });
    const [mirrored] = await db
      .select({ audience: productFacets.audience, colours: productFacets.colours })
      .from(productFacets)
      .where(eq(productFacets.id, id));
    expect(mirrored).toEqual({ audience: "kids", colours: ["blue"] });
  });

  it("applies UCP's audience and colors filters as the search's, and refuses a colour no catalog has", async () => {
    const post = (body: unknown) =>
      app().app.inject({
        method: "POST",
        url: "/ucp/catalog/search",
        headers: {
          authorization: app().key,
          "ucp-agent": 'profile="https://platform.example/.well-known/ucp"',
          "content-type": "application/json",
        },
        payload: JSON.stringify(body),
      });
    const answer = await post({ query: "running shoe", filters: { audience: ["women"], colors: ["pink"] } });
    expect(answer.statusCode, answer.body).toBe(200);
    const titles = answer.json<{ products: { title: string }[] }>().products.map((product) => product.title);
    expect(titles).toEqual(["Tempo 4 Road Running Shoe, Women's, Coral/White"]);
    const refused = await post({ query: "running shoe", filters: { colors: ["plaid"] } });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain("filters.colors");
  });
});
