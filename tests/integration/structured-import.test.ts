/**
 * Structured data in (issue 13): NDJSON import validates offers, identifiers
 * and category with line-numbered errors, and fills the columns filters use;
 * a catalog imported before those columns existed is backfilled from what it
 * stored.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backfillStructured } from "../../server/catalog/backfill.js";
import { DERIVED_VERSION } from "../../server/catalog/structured.js";
import { run } from "../../server/cli/run.js";
import { openTestDatabase } from "../helpers/database.js";
import { products } from "../../server/db/schema.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { sharedEmbedder } from "../helpers/embedder.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-structured-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("NDJSON import of structured data", () => {
  it("checks offers, identifiers and category, naming each bad line and member", async () => {
    const lines = [
      {
        url: "https://a.example/p/1",
        name: "Good",
        offers: { price: 19.5, currency: "usd", availability: "in_stock" },
        identifiers: { gtin: "0 12345 67890 5" },
        category: ["Outdoor", "Tents"],
      },
      { url: "https://a.example/p/2", name: "Bad currency", offers: { price: "10.00", currency: "dollars" } },
      { url: "https://a.example/p/3", name: "Bad availability", offers: { price: "10.00", currency: "USD", availability: "maybe" } },
      { url: "https://a.example/p/4", name: "Bad GTIN", identifiers: { gtin: "4006381333932" } },
      { url: "https://a.example/p/5", name: "Bad price", offers: { price: "ten", currency: "USD" } },
    ];
    const file = join(dir, "structured.ndjson");
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const err: string[] = [];
    const out: string[] = [];
    const code = await run(
      ["import", file],
      { DATA_DIR: join(dir, "data"), LOG_LEVEL: "silent" },
      { log: (l) => out.push(l), err: (l) => err.push(l) },
    );
    expect(code).toBe(1);
    expect(out.at(-1)).toBe("imported 1, updated 0, unchanged 0, failed 4");
    expect(err).toEqual([
      `${file}:2: offers.currency: must be an ISO 4217 currency code such as USD or EUR`,
      `${file}:3: offers.availability: must be a schema.org availability such as InStock, OutOfStock, PreOrder`,
      `${file}:4: identifiers.gtin: is not a valid GTIN: wrong check digit: 2, expected 1`,
      `${file}:5: offers.price: must be a non-negative decimal such as 24.99`,
    ]);
  });

  it("stores what filters use: minor units, the currency, availability's name, the category's key, GTIN-14", async () => {
    const handle = await openTestDatabase();
    try {
      await handle.migrate();
      const record = {
        url: "https://a.example/p/1",
        name: "Good",
        brands: ["Acme Co"],
        offers: { price: 19.5, currency: "jpy", availability: "http://schema.org/InStock" },
        identifiers: { gtin: "012345678905", sku: "AB-1" },
        category: "Outdoor >  Tents",
      };
      await importRecords({ db: handle.db, embedder: await sharedEmbedder() }, [parseLine("t", 1, JSON.stringify(record))]);
      const [row] = await handle.db
        .select({
          priceMinor: products.priceMinor,
          currency: products.currency,
          availability: products.availability,
          categoryKey: products.categoryKey,
          gtin14: products.gtin14,
          skuKey: products.skuKey,
          brandKeys: products.brandKeys,
          offers: products.offers,
        })
        .from(products);
      // 19.5 yen rounds half up to 20 yen: JPY has no minor unit.
      expect(row).toEqual({
        priceMinor: 20,
        currency: "JPY",
        availability: "InStock",
        categoryKey: "outdoor > tents",
        gtin14: "00012345678905",
        skuKey: "ab-1",
        brandKeys: ["acme co"],
        offers: { price: "19.5", currency: "JPY", availability: "InStock", was_price: undefined },
      });
    } finally {
      await handle.close();
    }
  });
});

describe("backfill", () => {
  it("derives the columns of rows stored before they existed, batch by batch, once", async () => {
    const handle = await openTestDatabase();
    try {
      await handle.migrate();
      const records = Array.from({ length: 7 }, (_, i) => ({
        url: `https://old.example/p/${i}`,
        name: `Old ${i}`,
        brands: ["Old Brand"],
        offers: { price: `${i}.99`, currency: "EUR", availability: "OutOfStock" },
      }));
      await importRecords(
        { db: handle.db, embedder: await sharedEmbedder() },
        records.map((record, i) => parseLine("t", i + 1, JSON.stringify(record))),
      );
      // As a catalog imported before issue 13 looks: the JSON stored, the columns empty, and a category only in its JSON-LD.
      await handle.db.update(products).set({
        derivedVersion: 0,
        priceMinor: null,
        currency: null,
        availability: null,
        brandKeys: [],
        rawData: { strippedHtml: null, jsons: { ld_json: { "@type": "Product", category: "Home > Lighting" }, props_data: null } },
      });
      expect(await backfillStructured(handle.db, { batchSize: 3 })).toBe(7);
      const rows = await handle.db
        .select({
          priceMinor: products.priceMinor,
          category: products.category,
          availability: products.availability,
          version: products.derivedVersion,
        })
        .from(products)
        .where(eq(products.url, "https://old.example/p/3"));
      expect(rows).toEqual([{ priceMinor: 399, category: "Home > Lighting", availability: "OutOfStock", version: DERIVED_VERSION }]);
      expect(await backfillStructured(handle.db)).toBe(0);
      const [{ n } = { n: -1 }] = await handle.db
        .select({ n: sql<number>`count(*)::int` })
        .from(products)
        .where(sql`${products.brandKeys} @> array['old brand']`);
      expect(n).toBe(7);
    } finally {
      await handle.close();
    }
  });
});
