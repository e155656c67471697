/**
 * Matching at import and a product's offers (issue 50), on every database path (PGlite, postgres.js over the socket
 * bridge, real Postgres): groups, /offers, a GTIN's offers, UCP offers, a page that changes group, pins through rematch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openPostgres } from "../../server/db/open.js";
import { priceHistory, products } from "../../server/db/schema.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { pin, rematch, split } from "../../server/matching/operator.js";
import { shippedMatchSettings } from "../../server/matching/settings.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { openTestDatabase, testDatabase } from "../helpers/database.js";
import { sharedEmbedder } from "../helpers/embedder.js";
import { startSocketPostgres, type SocketPostgres } from "../helpers/pgsocket.js";
import type { TestRecord } from "../helpers/catalog.js";
import { expectValid, LOOKUP_RESPONSE, SEARCH_RESPONSE, UCP_REFERENCE_PRESENT } from "../helpers/ucp.js";

const record = (id: string, host: string, name: string, extra: Partial<TestRecord> = {}): TestRecord & { id: string } => ({
  id,
  url: `https://${host}/p/${id}`,
  name,
  ...extra,
});

function offer(price: string, availability: string): TestRecord["offers"] {
  return { price, currency: "USD", availability };
}

const CATALOG = [
  record("a-dvd", "abt.example", "Sony White 8' Portable DVD Player - DVPFX820W"),
  record("a-phone", "abt.example", "Panasonic DECT 6.0 Cordless Phone - KXTG9342T"),
  record("a-kettle", "abt.example", "Kettle", { identifiers: { gtin: "4006381333931", sku: null, mpn: null }, offers: offer("30.00", "InStock") }),
  record("b-dvd", "buy.example", "Sony DVPFX820 Portable DVD Player - DVPFX820/W", { brands: ["Sony"] }),
  record("b-phone", "buy.example", "Panasonic KX-TG9344T Expandable Cordless Phone", { brands: ["Panasonic"] }),
  record("b-kettle", "buy.example", "Electric water boiler, 1.7 litres", {
    identifiers: { gtin: "04006381333931", sku: null, mpn: null },
    offers: offer("25.00", "OutOfStock"),
  }),
  record("c-kettle", "cost.example", "Kettle 1.7 l", {
    identifiers: { gtin: "4006381333931", sku: null, mpn: null },
    offers: offer("20", "InStock"),
  }),
  record("b-dvd-black", "buy.example", "Sony DVPFX820 Portable DVD Player - Black - DVPFX820/B", { brands: ["Sony"] }),
];

async function load(db: DatabaseHandle, records: readonly TestRecord[]) {
  const lines = records.map((r, i) => parseLine("t", i + 1, JSON.stringify(r)));
  const summary = await importRecords({ db: db.db, embedder: await sharedEmbedder() }, lines);
  expect(summary.failed).toBe(0);
}

async function groups(db: DatabaseHandle): Promise<Map<string, { group: string; merchant: string }>> {
  const rows = await db.db.select({ id: products.id, group: products.groupId, merchant: products.brandHost }).from(products);
  return new Map(rows.map((row) => [row.id, { group: row.group, merchant: row.merchant }]));
}

type Opened = { handle: DatabaseHandle; close: () => Promise<void> };
// The suite's PGlite half runs both drivers against PGlite (in process, and postgres.js over the socket bridge); its
// Postgres half (vitest.config.ts) runs them on a real Postgres with pgvector.
const DATABASES: [string, () => Promise<Opened>][] =
  testDatabase().kind === "postgres"
    ? [["Postgres", async () => ({ handle: await openTestDatabase({ max: 2 }), close: async () => {} })]]
    : [
        ["PGlite", async () => ({ handle: await openTestDatabase(), close: async () => {} })],
        [
          "postgres.js",
          async () => {
            const pg: SocketPostgres = await startSocketPostgres(1);
            return { handle: openPostgres({ url: pg.url, max: 1 }), close: () => pg.close() };
          },
        ],
      ];

describe.each(DATABASES)("matching on %s", (_name, open) => {
  let t: TestApp;
  let db: DatabaseHandle;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ handle: db, close } = await open());
    await db.migrate();
    t = await createTestApp({ database: db, records: CATALOG });
  });
  afterAll(async () => {
    await t?.close();
    await close?.();
  });
  const get = (path: string) => t.app.inject({ url: `/api/v1${path}`, headers: { authorization: t.key } });

  it("groups one product's records across merchants, by GTIN in any length or by model code, and no others", async () => {
    const g = await groups(db);
    expect(g.get("b-kettle")!.group).toBe(g.get("a-kettle")!.group);
    expect(g.get("b-dvd")!.group).toBe(g.get("a-dvd")!.group);
    // KX-TG9344T is not KXTG9342T.
    expect(g.get("b-phone")!.group).not.toBe(g.get("a-phone")!.group);
  });

  it("never puts two records of one merchant in a group", async () => {
    const seen = new Set<string>();
    for (const { group, merchant } of (await groups(db)).values()) {
      expect(seen.has(`${group} ${merchant}`)).toBe(false);
      seen.add(`${group} ${merchant}`);
    }
  });

  it("answers a product's offers, in stock and cheapest first, filtered as search filters", async () => {
    const all = await get("/products/a-kettle/offers");
    expect(all.statusCode).toBe(200);
    const body = all.json();
    expect(body.product_group.offers).toBe(3);
    expect(body.offers.map((o: { id: string; price: string; availability: string }) => [o.id, o.price, o.availability])).toEqual([
      ["c-kettle", "20.00", "InStock"],
      ["a-kettle", "30.00", "InStock"],
      ["b-kettle", "25.00", "OutOfStock"],
    ]);
    expect(body.offers[0]).toMatchObject({ merchant: "cost.example", url: "https://cost.example/p/c-kettle", currency: "USD" });
    const inStock = (await get("/products/b-kettle/offers?availability=in_stock&limit=1")).json();
    expect(inStock.offers.map((o: { id: string }) => o.id)).toEqual(["c-kettle"]);
    expect((await get("/products/a-kettle/offers?currency=EUR")).json().offers).toEqual([]);
    // Every record says how many merchants sell its product, and the prices they sell it at in its currency.
    const range = { min: "20.00", max: "30.00", currency: "USD" };
    expect(body.product_group.price_range).toEqual(range);
    expect((await get("/products/b-kettle")).json().pdp.product_group).toEqual({ id: body.product_group.id, offers: 3, price_range: range });
    expect((await get("/products/b-kettle?view=compact")).json().pdp.product_group.price_range).toEqual(range);
    expect((await get("/products/a-dvd")).json().pdp.product_group.price_range).toBeUndefined();
    expect((await get("/products/a-phone")).json().pdp.product_group.offers).toBe(1);
  });

  it("answers a GTIN with its product's offers at every merchant, alone and in a batch, the record as before", async () => {
    const one = (await get("/products?gtin=04006381333931")).json();
    expect(one.pdp.id).toBe("a-kettle");
    expect(one.offers.map((o: { id: string }) => o.id)).toEqual(["c-kettle", "a-kettle", "b-kettle"]);
    // A URL lookup answers the record alone, as it did.
    expect(Object.keys((await get(`/products?url=${encodeURIComponent("https://abt.example/p/a-kettle")}`)).json())).toEqual(["pdp"]);
    const batch = await t.app.inject({
      method: "POST",
      url: "/api/v1/products/lookup",
      headers: { authorization: t.key, "content-type": "application/json" },
      payload: { inputs: [{ gtin: "4006381333931" }, { id: "a-dvd" }, { gtin: "0012345678905" }] },
    });
    const [kettle, dvd, unknown] = batch.json().results;
    // Three merchants' records carry the GTIN: no one record is the answer, but the product's offers are.
    expect([kettle.pdp, kettle.reason]).toEqual([null, "ambiguous"]);
    expect(kettle.offers.map((o: { id: string }) => o.id)).toEqual(["c-kettle", "a-kettle", "b-kettle"]);
    expect(dvd.offers).toBeUndefined();
    expect([unknown.reason, unknown.offers]).toEqual(["not_found", []]);
  });

  it("answers UCP with the group as one product and each merchant's record an offer (the upstream proposal's shape)", async () => {
    const ucp = (operation: string, body: object) =>
      t.app.inject({
        method: "POST",
        url: `/ucp/catalog/${operation}`,
        headers: { authorization: t.key, "content-type": "application/json", "ucp-agent": 'profile="https://platform.example/.well-known/ucp"' },
        payload: body,
      });
    const lookup = (await ucp("lookup", { ids: ["4006381333931", "b-kettle", "a-dvd"] })).json();
    if (UCP_REFERENCE_PRESENT) expectValid(LOOKUP_RESPONSE, lookup);
    // The GTIN (three merchants' records carry it) and another merchant's record of that product are one product.
    expect(lookup.products.map((p: { id: string }) => p.id)).toEqual(["a-kettle"]);
    const [kettle] = lookup.products;
    expect(kettle.variants[0].inputs.map((input: { id: string }) => input.id)).toEqual(["4006381333931", "b-kettle"]);
    expect(kettle.variants[0].offers).toEqual([
      {
        seller: { domain: "cost.example" },
        item_id: "c-kettle",
        price: { amount: 2000, currency: "USD" },
        availability: { available: true, status: "in_stock" },
        url: "https://cost.example/p/c-kettle",
      },
      expect.objectContaining({ item_id: "a-kettle", price: { amount: 3000, currency: "USD" } }),
      expect.objectContaining({ item_id: "b-kettle", availability: { available: false, status: "out_of_stock" } }),
    ]);
    const detail = (await ucp("product", { id: "b-kettle" })).json();
    expect(detail.product.variants[0].offers.map((o: { item_id: string }) => o.item_id)).toEqual(["c-kettle", "a-kettle", "b-kettle"]);
    const search = (await ucp("search", { query: "kettle" })).json();
    if (UCP_REFERENCE_PRESENT) expectValid(SEARCH_RESPONSE, search);
    expect(search.products.filter((p: { id: string }) => p.id.endsWith("-kettle"))).toHaveLength(1);
  });

  it("refuses what it cannot answer with a problem naming it", async () => {
    const unknown = await get("/products/nothing-here/offers");
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, "not_found"]);
    for (const query of ["limit=0", "limit=101", "availability=sometimes", "currency=XYZ"]) {
      const bad = await get(`/products/a-kettle/offers?${query}`);
      expect([bad.statusCode, bad.json().code], query).toEqual([400, "invalid_parameter"]);
    }
  });

  it("answers products like one, none of its own group, scoped and filtered as search is", async () => {
    const ids = (path: string) => get(path).then((r) => r.json().products.map((p: { pdp: { id: string } }) => p.pdp.id));
    const like = await ids("/products/a-dvd/similar?limit=10");
    expect(like).not.toContain("b-dvd");
    expect(like).not.toContain("a-dvd");
    expect(like[0]).toBe("b-dvd-black");
    expect(await ids("/products/a-dvd/similar?brand_url=cost.example")).toEqual(["c-kettle"]);
    expect((await ids("/products/a-dvd/similar?availability=in_stock&currency=USD")).sort()).toEqual(["a-kettle", "c-kettle"]);
    const unknown = await get("/products/nothing-here/similar");
    expect([unknown.statusCode, unknown.json().code]).toEqual([404, "not_found"]);
    const bad = await get("/products/a-dvd/similar?limit=1000");
    expect([bad.statusCode, bad.json().code]).toEqual([400, "invalid_parameter"]);
  });

  it("answers one result per product in search unless asked for every record", async () => {
    const ids = async (query: string) =>
      ((await get(`/products/search?${query}`)).json().products as { pdp: { id: string } }[]).map((p) => p.pdp.id).sort();
    const grouped = await ids("q=kettle&limit=10");
    expect(grouped.filter((id) => id.endsWith("-kettle"))).toHaveLength(1);
    const kettle = ((await get("/products/search?q=kettle&limit=10")).json().products as { pdp: { id: string; product_group: object } }[]).find((p) =>
      p.pdp.id.endsWith("-kettle"),
    );
    expect(kettle?.pdp.product_group).toMatchObject({ offers: 3, price_range: { min: "20.00", max: "30.00", currency: "USD" } });
    expect((await ids("q=kettle&limit=10&collapse=none")).filter((id) => id.endsWith("-kettle"))).toEqual(["a-kettle", "c-kettle"]);
    const bad = await get("/products/search?q=kettle&collapse=all");
    expect([bad.statusCode, bad.json().code]).toEqual([400, "invalid_parameter"]);
  });

  it("keeps each record's price history, one entry per run of one state, with its lows", async () => {
    const kettle = CATALOG.find((r) => r.id === "a-kettle")!;
    const series = async () => (await get("/products/a-kettle/prices?since=2000-01-01")).json();
    expect((await series()).series).toHaveLength(1);
    // The page changed, its price and availability did not: the run goes on.
    await load(db, [{ ...kettle, name: "Kettle, steel" }]);
    expect((await series()).series).toHaveLength(1);
    await load(db, [{ ...kettle, offers: offer("35.00", "InStock") }]);
    await load(db, [{ ...kettle, offers: offer("28", "OutOfStock") }]);
    const history = await series();
    expect(
      history.series.map((run: { price: string; availability: string; until: string | null }) => [run.price, run.availability, run.until === null]),
    ).toEqual([
      ["30.00", "InStock", false],
      ["35.00", "InStock", false],
      ["28.00", "OutOfStock", true],
    ]);
    expect([history.price_low_30d, history.price_low_90d]).toEqual(["28.00", "28.00"]);
    expect((await get("/products/a-kettle")).json().pdp).toMatchObject({ price_low_30d: "28.00", price_low_90d: "28.00" });
    // A lower run that ended 60 days ago (written straight to the history) counts in the 90-day low only.
    await db.db.insert(priceHistory).values({
      productId: "a-kettle",
      since: new Date(Date.now() - 70 * 86_400_000),
      until: new Date(Date.now() - 60 * 86_400_000),
      priceMinor: 1500,
      currency: "USD",
      availability: "InStock",
    });
    const lows = await series();
    expect([lows.price_low_30d, lows.price_low_90d]).toEqual(["28.00", "15.00"]);
    for (const since of ["yesterday", "2026-02-30"]) {
      const bad = await get(`/products/a-kettle/prices?since=${since}`);
      expect([bad.statusCode, bad.json().code], since).toEqual([400, "invalid_parameter"]);
    }
    expect((await get("/products/nothing-here/prices")).statusCode).toBe(404);
  });

  it("moves a record to another group when its page changes, and the group it leaves keeps its id", async () => {
    const before = await groups(db);
    await load(db, [record("b-dvd", "buy.example", "Panasonic KX-TG9342T Cordless Phone", { brands: ["Panasonic"] })]);
    const after = await groups(db);
    expect(after.get("b-dvd")!.group).toBe(before.get("a-phone")!.group);
    expect(after.get("a-dvd")!.group).toBe(before.get("a-dvd")!.group);
  });

  it("keeps an operator's pins and splits, through a rematch with other settings", async () => {
    const group = async (id: string) => (await groups(db)).get(id)!.group;
    // b-dvd now reads as the phone a-phone is (the test before): a pin may not put a second buy.example record there.
    await expect(pin(db.db, "a-phone", "b-phone")).rejects.toThrow(/already holds b-dvd of buy\.example: split b-dvd first/);
    await split(db.db, "b-dvd");
    await pin(db.db, "a-phone", "b-phone");
    expect(await group("b-phone")).toBe(await group("a-phone"));
    const settings = { ...shippedMatchSettings(), threshold: 0.5 };
    const { rematched } = await rematch(db.db, settings);
    expect(rematched).toBe(CATALOG.length);
    expect((await rematch(db.db, settings)).rematched).toBe(0);
    expect(await group("b-phone")).toBe(await group("a-phone"));
    expect(await group("b-dvd")).not.toBe(await group("a-phone"));
    expect(await group("b-kettle")).toBe(await group("a-kettle"));
  });
});
