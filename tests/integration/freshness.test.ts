/**
 * Issue 18: pages fetched from a shop on loopback into the catalog and kept fresh. 304s cost no extraction, a
 * changed page is updated, a withdrawn one leaves search and lookups answer 410 until it is back, sitemaps skip
 * what has not changed, and the change feed replays to exactly the catalog's set while an import and a refresh run.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { products } from "../../server/db/schema.js";
import { type CrawlDeps, fetchPages, fetchSitemap, refresh } from "../../server/fetch/crawl.js";
import { createFetcher } from "../../server/fetch/fetcher.js";
import { importRecords } from "../../server/ingest/import.js";
import { importLimits } from "../../server/ingest/limits.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type MerchantServer, productPage, startMerchantServer } from "../helpers/merchant-server.js";

/** A page written for the project whose canonical URL is on another host (the merchant's), as real pages often are. */
const CANONICAL_ELSEWHERE = resolve(import.meta.dirname, "../fixtures/pdp/jsonld-basic.html");

let t: TestApp;
let shop: MerchantServer;
let deps: CrawlDeps;
/** A refresh bound that takes in every product checked so far. */
const later = () => new Date(Date.now() + 60_000);

/** Sets a product page on the shop, at /p/ and its name in lower case with hyphens. */
function page(name: string, price: string) {
  const path = `/p/${name.toLowerCase().replaceAll(" ", "-")}`;
  shop.setPage(path, productPage(shop.origin, path, { name, price }));
}

function get(url: string) {
  return t.app.inject({ method: "GET", url, headers: { authorization: t.key } });
}

async function idOf(path: string): Promise<string> {
  const answer = await get(`/api/v1/products?url=${encodeURIComponent(`${shop.origin}${path}`)}`);
  expect(answer.statusCode).toBe(200);
  return answer.json().pdp.id;
}

async function searchIds(query: string): Promise<string[]> {
  const answer = await get(`/api/v1/products/search?${query}&view=standard&limit=100`);
  expect(answer.statusCode).toBe(200);
  return answer.json().products.map((hit: { pdp: { id: string } }) => hit.pdp.id);
}

beforeAll(async () => {
  t = await createTestApp({ records: [], config: { RATE_LIMIT_PER_MINUTE: 1_000_000 } });
  shop = await startMerchantServer();
  for (const [name, price] of [
    ["Granite Camp Stove", "89.00"],
    ["Lantern Lamp", "24.00"],
    ["Ridge Tent", "199.00"],
  ] as const) {
    page(name, price);
  }
  shop.setPage("/p/real", readFileSync(CANONICAL_ELSEWHERE, "utf8"));
  deps = {
    db: t.database.db,
    embedder: await t.root.embedder(),
    fetcher: createFetcher({
      userAgent: "ProductCatalogBot/0.1 (+https://product-catalog.example/bot)",
      allowPrivate: true,
      hostDelayMs: 0,
      concurrency: 4,
      connectTimeoutMs: 2000,
      firstByteTimeoutMs: 2000,
      bodyTimeoutMs: 2000,
      maxRedirects: 5,
      retries: 1,
      retryBaseMs: 10,
      maxBytes: 4 * 1024 * 1024,
    }),
    limits: importLimits(t.root.config),
    concurrency: 4,
  };
});
afterAll(async () => {
  deps.fetcher.close();
  await shop.close();
  await t.close();
});

const PATHS = ["/p/granite-camp-stove", "/p/lantern-lamp", "/p/ridge-tent", "/p/real"];

describe("catalog fetch and refresh", () => {
  let firstUpdated: string;
  let firstChecked: string;

  it("fetches pages, extracts and imports them, and says when each was seen", async () => {
    const summary = await fetchPages(
      deps,
      [...PATHS, "/p/missing", "/private/x"].map((path) => ({ url: `${shop.origin}${path}` })),
    );
    expect(summary).toMatchObject({ imported: 4, updated: 0, extracted: 4, notModified: 0, failed: 2 });
    // Pages are fetched in parallel: failures come in the order they happen.
    expect(summary.failures.sort((a, b) => a.source.localeCompare(b.source))).toEqual([
      { source: `${shop.origin}/p/missing`, line: 0, reason: "answered 404: no such page" },
      { source: `${shop.origin}/private/x`, line: 0, reason: `robots.txt of ${shop.origin} disallows /private/x` },
    ]);
    expect(shop.log.filter((entry) => entry.path.startsWith("/private/"))).toEqual([]);
    const answer = await get(`/api/v1/products?url=${encodeURIComponent(`${shop.origin}/p/lantern-lamp`)}&view=standard`);
    expect(answer.statusCode).toBe(200);
    const { pdp } = answer.json();
    expect(pdp).toMatchObject({ name: "Lantern Lamp", offers: { price: "24.00", currency: "USD" } });
    expect(pdp.fetched_at).toBe(pdp.checked_at);
    expect(pdp.updated_at).toBe(pdp.checked_at);
    firstUpdated = pdp.updated_at;
    firstChecked = pdp.checked_at;
    // The page's canonical URL is on another host; the product is imported all the same, and found.
    expect((await searchIds("q=trail+kettle")).length).toBeGreaterThan(0);
  });

  it("sends the validators back: 304s cost no extraction, and only checked_at moves", async () => {
    const summary = await fetchPages(
      deps,
      PATHS.map((path) => ({ url: `${shop.origin}${path}` })),
    );
    expect(summary).toMatchObject({ notModified: 4, extracted: 0, imported: 0, updated: 0, unchanged: 0, failed: 0 });
    const { pdp } = (await get(`/api/v1/products/${await idOf("/p/lantern-lamp")}?view=standard`)).json();
    expect(pdp.updated_at).toBe(firstUpdated);
    expect(pdp.fetched_at).toBe(firstUpdated);
    expect(pdp.checked_at > firstChecked).toBe(true);
  });

  it("refresh re-extracts a changed page (updated_at moves) and filters by updated_since", async () => {
    const before = new Date().toISOString();
    page("Lantern Lamp", "19.00");
    const summary = await refresh(deps, { before: later() });
    expect(summary).toMatchObject({ updated: 1, notModified: 3, extracted: 1, failed: 0 });
    await t.services.catalog.syncCache();
    const { pdp } = (await get(`/api/v1/products/${await idOf("/p/lantern-lamp")}?view=standard`)).json();
    expect(pdp.offers.price).toBe("19.00");
    expect(pdp.updated_at > firstUpdated).toBe(true);
    expect(await searchIds(`updated_since=${encodeURIComponent(before)}`)).toEqual([pdp.id]);
    const bad = await get("/api/v1/products/search?updated_since=2026-02-30");
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual([{ param: "updated_since", message: "is not a real date" }]);
  });

  it("refresh respects its bound, brand and limit", async () => {
    expect(await refresh(deps, { before: new Date(Date.now() - 3_600_000) })).toMatchObject({ notModified: 0, updated: 0, unchanged: 0 });
    expect(await refresh(deps, { before: later(), brandHost: "nowhere.example" })).toMatchObject({ notModified: 0 });
    expect(await refresh(deps, { before: later(), limit: 2 })).toMatchObject({ notModified: 2 });
  });

  it("marks a withdrawn page gone: out of search and browse, 410 on lookups, and back when it answers again", async () => {
    const stove = await idOf("/p/granite-camp-stove");
    expect(await searchIds("q=camp+stove")).toContain(stove);
    /** How many products the brand facet counts for the shop's brand (browse and facets read product_facets). */
    const brandCount = async () => {
      const answer = await get("/api/v1/products/search?brand=Loopback+Outfitters&facets=brand&limit=1");
      return answer.json().facets.brand.find((facet: { value: string }) => facet.value === "Loopback Outfitters")?.count;
    };
    const countBefore = await brandCount();
    shop.setStatus("/p/granite-camp-stove", 410);
    expect(await refresh(deps, { before: later() })).toMatchObject({ gone: 1, notModified: 3 });
    // Servers drop their cached products when they see the catalog's version move (within a second or so).
    await t.services.catalog.syncCache();

    expect(await searchIds("q=camp+stove")).not.toContain(stove);
    expect(await searchIds("brand=Loopback+Outfitters")).not.toContain(stove);
    expect(await brandCount()).toBe(countBefore - 1);
    const byId = await get(`/api/v1/products/${stove}`);
    expect(byId.statusCode).toBe(410);
    expect(byId.json()).toMatchObject({ status: 410, code: "gone", gone_at: expect.any(String) });
    expect(byId.json().detail).toContain(byId.json().gone_at);
    const byUrl = await get(`/api/v1/products?url=${encodeURIComponent(`${shop.origin}/p/granite-camp-stove`)}`);
    expect(byUrl.statusCode).toBe(410);
    const batch = await t.app.inject({
      method: "POST",
      url: "/api/v1/products/lookup",
      headers: { authorization: t.key },
      payload: { inputs: [{ id: stove }] },
    });
    expect(batch.json().results[0]).toMatchObject({ pdp: null, reason: "gone", gone_at: byId.json().gone_at });

    page("Granite Camp Stove", "89.00");
    expect(await refresh(deps, { before: later() })).toMatchObject({ failed: 0 });
    await t.services.catalog.syncCache();
    expect((await get(`/api/v1/products/${stove}`)).statusCode).toBe(200);
    expect(await searchIds("q=camp+stove")).toContain(stove);
    expect(await brandCount()).toBe(countBefore);
  });

  it("reads a sitemap index with gzipped children, skipping pages unchanged since their last check", async () => {
    page("Trail Mug", "12.00");
    page("Camp Chair", "45.00");
    shop.setSitemap([
      [{ path: "/p/ridge-tent", lastmod: "2020-01-01" }, { path: "/p/trail-mug" }],
      [{ path: "/p/camp-chair", lastmod: "2026-11-01T00:00:00Z" }, { path: "/private/hidden" }],
    ]);
    const from = shop.log.length;
    const summary = await fetchSitemap(deps, `${shop.origin}/sitemap.xml`);
    expect(summary).toMatchObject({ imported: 2, skipped: 1, failed: 1 });
    const asked = shop.log.slice(from).map((entry) => entry.path);
    expect(asked).toContain("/sitemaps/1.xml.gz");
    expect(asked).not.toContain("/p/ridge-tent");
    expect(asked).not.toContain("/private/hidden");
  });
});

describe("the change feed", () => {
  async function follow(since: string | undefined, held: Map<string, string>): Promise<string | undefined> {
    let cursor = since;
    for (;;) {
      const answer = await get(`/api/v1/products/changes?limit=3${cursor ? `&since=${cursor}` : ""}`);
      expect(answer.statusCode).toBe(200);
      const { changes, next_cursor } = answer.json();
      for (const change of changes) {
        if (change.change === "gone") held.delete(change.id);
        else held.set(change.id, change.updated_at);
      }
      if (changes.length === 0) return cursor;
      cursor = next_cursor;
    }
  }

  async function catalogSet(): Promise<Map<string, string>> {
    const rows = await t.database.db.select({ id: products.id, updatedAt: products.updatedAt }).from(products).where(isNull(products.goneAt));
    return new Map(rows.map((row) => [row.id, row.updatedAt.toISOString()]));
  }

  it("replays to exactly the catalog's set, followed while an import and a refresh run", async () => {
    const held = new Map<string, string>();
    let cursor = await follow(undefined, held);
    expect(held).toEqual(await catalogSet());

    shop.setStatus("/p/ridge-tent", 404);
    page("Lantern Lamp", "21.00");
    const lines = Array.from({ length: 40 }, (_, i) =>
      parseLine("feed", i + 1, JSON.stringify({ url: `https://feed.example/p/${i}`, name: `Feed item ${i}`, price_label: "$5.00" })),
    );
    let running = true;
    const writers = Promise.all([
      importRecords({ db: deps.db, embedder: deps.embedder }, lines, { batchSize: 5 }),
      refresh(deps, { before: later() }),
    ]).finally(() => {
      running = false;
    });
    while (running) {
      cursor = await follow(cursor, held);
      // A poller waits between polls; it also lets the event loop reach the shop's sockets.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [imported, refreshed] = await writers;
    expect(imported.imported).toBe(40);
    expect(refreshed).toMatchObject({ gone: 1, updated: 1 });
    cursor = await follow(cursor, held);
    expect(held).toEqual(await catalogSet());

    const empty = await get(`/api/v1/products/changes?since=${cursor}`);
    expect(empty.json()).toEqual({ changes: [], next_cursor: cursor });
    expect((await get("/api/v1/products/changes?limit=0")).json().errors).toEqual([{ param: "limit", message: "must be an integer from 1 to 1000" }]);
  });
});
