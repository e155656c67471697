/**
 * A bulk load (`catalog import --bulk`, ingest/import.ts `bulkImport`) stores what the ordinary import stores: the same
 * file imported both ways, then a second file that changes some records, leaves the same rows (every column, the
 * vectors and derived ones included), facets mirror, vocabulary, stemmed words' counts, change feed, price history and product groups. And a
 * bulk load stopped half way leaves its indexes noted, built again by the next start or by the load run again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "../../server/db/open.js";
import { importRecords, type ImportLine } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import type { Embedder } from "../../server/search/embedder.js";
import { openTestDatabase } from "../helpers/database.js";
import { sharedEmbedder } from "../helpers/embedder.js";

const record = (id: string, host: string, name: string, extra: object = {}) => ({ id, url: `https://${host}/p/${id}`, name, ...extra });
const offer = (price: string, availability: string) => ({ price, currency: "USD", availability });
const gtin = (value: string) => ({ identifiers: { gtin: value, sku: null, mpn: null } });

const FIRST = [
  record("a-dvd", "abt.example", "Sony White 8' Portable DVD Player - DVPFX820W", { category: "Electronics > Video" }),
  record("a-phone", "abt.example", "Panasonic DECT 6.0 Cordless Phone - KXTG9342T", { offers: offer("59.99", "InStock") }),
  record("a-kettle", "abt.example", "Kettle", { ...gtin("4006381333931"), offers: offer("30.00", "InStock") }),
  record("b-dvd", "buy.example", "Sony DVPFX820 Portable DVD Player - DVPFX820/W", { brands: ["Sony"], desc: "Portable player, 8 inch screen." }),
  record("b-phone", "buy.example", "Panasonic KX-TG9344T Expandable Cordless Phone", { brands: ["Panasonic"] }),
  record("b-kettle", "buy.example", "Electric water boiler, 1.7 litres", { ...gtin("04006381333931"), offers: offer("25.00", "OutOfStock") }),
  record("c-kettle", "cost.example", "Kettle 1.7 l", { ...gtin("4006381333931"), offers: offer("20", "InStock") }),
  record("c-mug", "cost.example", "Stoneware mug, 350 ml", { offers: offer("12.50", "InStock"), category: ["Kitchen", "Mugs"] }),
];
// Prices and a name changed, one record new, the rest as before (found unchanged).
const SECOND = [
  ...FIRST.filter((r) => !["a-kettle", "b-phone"].includes(r.id)),
  record("a-kettle", "abt.example", "Kettle", { ...gtin("4006381333931"), offers: offer("27.00", "InStock") }),
  record("b-phone", "buy.example", "Panasonic cordless phone with answering machine", { brands: ["Panasonic"] }),
  record("d-lamp", "dim.example", "Brass desk lamp", { offers: offer("80.00", "PreOrder") }),
];

let embedder: Embedder;
/** One record's vector supplied with it, as a bulk load's usually are; the rest embedded. */
let lines: (records: readonly object[]) => ImportLine[];
let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase({ max: 2 });
  await handle.migrate();
  embedder = await sharedEmbedder();
  const [supplied] = await embedder.embed(["Stoneware mug"]);
  lines = (records) =>
    records.map((r, i) =>
      parseLine(
        "t.ndjson",
        i + 1,
        JSON.stringify((r as { id: string }).id === "c-mug" ? { ...r, embedding: { model: embedder.model, vector: supplied } } : r),
      ),
    );
});
afterAll(() => handle.close());

/** An empty catalog again (one database serves both imports: opening one is most of this file's time). */
async function emptyCatalog(): Promise<void> {
  await handle.db.execute(sql`truncate products, product_facets, product_changes, price_history, match_overrides, search_vocabulary, search_lexemes`);
  await handle.db.execute(sql`delete from catalog_meta`);
}

async function rows(handle: DatabaseHandle, query: string): Promise<unknown[]> {
  const result = await handle.db.execute(sql.raw(query));
  return Array.isArray(result) ? [...result] : (result as { rows: unknown[] }).rows;
}

/** What both imports must leave the same: everything but the times of writing. */
async function stored(handle: DatabaseHandle) {
  const times = ["created_at", "updated_at", "fetched_at", "checked_at"];
  const columns = (await rows(handle, "select column_name from information_schema.columns where table_name = 'products' order by column_name"))
    .map((row) => (row as { column_name: string }).column_name)
    .filter((name) => !times.includes(name))
    .map((name) => `"${name}"::text as "${name}"`);
  return {
    products: await rows(handle, `select ${columns.join(", ")} from products order by id`),
    facets: await rows(
      handle,
      "select id, brand, category_key, availability, currency, price_minor, price_bucket, gone_at, colours from product_facets order by id",
    ),
    vocabulary: await rows(handle, "select word, ndoc from search_vocabulary where ndoc > 0 order by word"),
    lexemes: await rows(handle, "select lexeme, ndoc from search_lexemes where ndoc > 0 order by lexeme"),
    changes: await rows(handle, "select product_id, seq from product_changes order by seq"),
    prices: await rows(
      handle,
      "select product_id, price_minor, currency, availability, until is null as current from price_history order by product_id, since",
    ),
  };
}

const indexes = async (handle: DatabaseHandle) =>
  (
    await rows(
      handle,
      "select indexname from pg_indexes where tablename = 'products' and indexname in ('products_embedding_idx', 'products_search_idx') order by 1",
    )
  ).map((row) => (row as { indexname: string }).indexname);

describe("a bulk load", () => {
  it("stores what the ordinary import stores, for a new catalog and for changes to it", async () => {
    const expected = [];
    for (const file of [FIRST, SECOND]) {
      const summary = await importRecords({ db: handle.db, embedder }, lines(file));
      expected.push({ summary, stored: await stored(handle) });
    }
    await emptyCatalog();
    const bulk = { longStatements: handle.longStatements };
    for (const [index, file] of [FIRST, SECOND].entries()) {
      const summary = await importRecords({ db: handle.db, embedder }, lines(file), { bulk });
      expect({ summary, stored: await stored(handle) }).toEqual(expected[index]);
    }
    const groups = await rows(handle, "select count(distinct group_id)::int as n from products");
    // Matched into groups, not every record alone: 9 records, the kettles one group (a GTIN), the DVD players another.
    expect(groups).toEqual([{ n: 5 }]);
    expect(await indexes(handle)).toEqual(["products_embedding_idx", "products_search_idx"]);
  });

  it("keeps the stemmed words' counts what counting every product's document gives, through changes and deletes", async () => {
    const counted = "select word as lexeme, ndoc from ts_stat('select search from products') order by word";
    const kept = "select lexeme, ndoc from search_lexemes where ndoc > 0 order by lexeme";
    // Left by the test above: both files imported, a product's name changed by the second.
    expect(await rows(handle, kept)).toEqual(await rows(handle, counted));
    expect((await rows(handle, kept)).length).toBeGreaterThan(20);
    await handle.db.execute(sql`update products set name = 'Cast iron griddle' where id = 'c-mug'`);
    await handle.db.execute(sql`update products set price_minor = 999 where id = 'a-kettle'`);
    await handle.db.execute(sql`delete from products where id in ('b-dvd', 'd-lamp')`);
    expect(await rows(handle, kept)).toEqual(await rows(handle, counted));
  });

  it("stopped half way, leaves its indexes noted: the next start builds them, and the load run again resumes", async () => {
    await emptyCatalog();
    const bulk = { longStatements: handle.longStatements };
    function* stopping(): Generator<ImportLine> {
      yield* lines(FIRST).slice(0, 5);
      throw new Error("stopped");
    }
    await expect(importRecords({ db: handle.db, embedder }, stopping(), { bulk, batchSize: 2 })).rejects.toThrow("stopped");
    expect(await indexes(handle)).toEqual([]);
    await handle.migrate();
    expect(await indexes(handle)).toEqual(["products_embedding_idx", "products_search_idx"]);

    await expect(importRecords({ db: handle.db, embedder }, stopping(), { bulk, batchSize: 2 })).rejects.toThrow("stopped");
    const summary = await importRecords({ db: handle.db, embedder }, lines(FIRST), { bulk, batchSize: 2 });
    // What the stopped loads wrote (the first batch at least) is found unchanged, neither embedded nor written again.
    expect(summary.unchanged).toBeGreaterThanOrEqual(2);
    expect(summary).toMatchObject({ imported: FIRST.length - summary.unchanged, failed: 0 });
    expect(await indexes(handle)).toEqual(["products_embedding_idx", "products_search_idx"]);
    expect(await rows(handle, "select count(*)::int as n from catalog_meta where key = 'bulk_load_deferred_indexes'")).toEqual([{ n: 0 }]);
  });

  it("written two batches at once, stores what it stores written in one", async () => {
    const bulk = { longStatements: handle.longStatements };
    await emptyCatalog();
    await importRecords({ db: handle.db, embedder }, lines(FIRST), { bulk });
    const whole = await stored(handle);
    await emptyCatalog();
    // Batches of two: four batches, two transactions in flight at once on Postgres (the test's pool holds two).
    const summary = await importRecords({ db: handle.db, embedder }, lines(FIRST), { bulk, batchSize: 2 });
    expect(summary).toMatchObject({ imported: FIRST.length, failed: 0 });
    const paired = await stored(handle);
    // Every product once in the feed; which of two batches in flight committed first decides their positions.
    const feed = (changes: unknown[]) => changes.map((change) => (change as { product_id: string }).product_id).sort();
    expect({ ...paired, changes: feed(paired.changes) }).toEqual({ ...whole, changes: feed(whole.changes) });
  });
});
