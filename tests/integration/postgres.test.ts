/** The same API through postgres.js (DATABASE_URL), against PGlite over its socket server. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { startSocketPostgres, type SocketPostgres } from "../helpers/pgsocket.js";
import { openPostgres } from "../../server/db/open.js";
import { FIXTURE } from "../helpers/catalog.js";

let pg: SocketPostgres;
let t: TestApp;
beforeAll(async () => {
  // One connection: pglite-socket runs each protocol message on its own, so two connections'
  // Parse/Bind sequences would interleave on PGlite's single session. Empty: the app migrates it through postgres.js
  // (the other files on this path start from a migrated copy).
  pg = await startSocketPostgres(1, { empty: true });
  t = await createTestApp({ database: openPostgres({ url: pg.url, max: 1 }) });
});
afterAll(async () => {
  await t?.close();
  await pg?.close();
});

function get(url: string) {
  return t.app.inject({ url, headers: { authorization: `Bearer ${t.key}` } });
}

describe("postgres.js path", () => {
  it("serves health with the postgres driver", async () => {
    expect((await get("/health")).json()).toMatchObject({ status: "ok", database: { kind: "postgres", ok: true }, products: FIXTURE.length });
  });

  it("searches, scoped and unscoped, under concurrent load", async () => {
    const responses = await Promise.all(
      ["tent", "saucepan", "headphones", "running shoes", "sleeping bag", "skillet"].map((q) =>
        get(`/v1/products/search?q=${encodeURIComponent(q)}&limit=3`),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(responses[1]!.json().products[0].pdp.name).toBe("Stainless Steel Saucepan 2 L");
    const scoped = (await get("/v1/products/search?q=shoes&brand_url=stridewell.example")).json();
    expect(scoped.products.map((p: { pdp: { brands: string[] } }) => p.pdp.brands)).toEqual([["Stridewell"]]);
  });

  it("gets by id and by URL, with raw data", async () => {
    const byUrl = (await get(`/api/v1/products?url=${encodeURIComponent(`${FIXTURE[0]!.url}/`)}&include_raw_data=1`)).json();
    expect(byUrl.pdp.raw_data).toEqual(FIXTURE[0]!.raw_data);
    const byId = await get(`/api/v1/products/${byUrl.pdp.id}`);
    expect(byId.json().pdp.name).toBe(FIXTURE[0]!.name);
  });

  it("re-running migrations is a no-op", async () => {
    await t.database.migrate();
    expect((await get("/health")).statusCode).toBe(200);
  });
});
