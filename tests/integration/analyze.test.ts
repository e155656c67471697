/**
 * The planner's statistics follow imports (server/catalog/analyze.ts): PGlite runs no autovacuum, so without this
 * a catalog imported into the embedded database was never analyzed, and its vector search ran as a sequential scan.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeDue, analyzeIfDue } from "../../server/catalog/analyze.js";
import type { DatabaseHandle } from "../../server/db/open.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { openTestDatabase } from "../helpers/database.js";
import { sharedEmbedder } from "../helpers/embedder.js";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
  await handle.migrate();
});
afterAll(() => handle.close());

/** The planner's idea of how many products there are (-1: never analyzed). */
async function estimated(table = "products"): Promise<number> {
  const [row] = await handle.db
    .select({ n: sql<number>`reltuples::float8`.mapWith(Number) })
    .from(sql`pg_class`)
    .where(sql`oid = ${table}::regclass`);
  return row?.n ?? Number.NaN;
}

/** `count` products numbered from `from`, imported as NDJSON lines. */
async function importProducts(from: number, count: number) {
  const lines = Array.from({ length: count }, (_, i) => {
    const n = from + i;
    const record = { url: `https://shop.example/products/item-${n}`, name: `Trail item ${n}`, desc: `A sturdy item numbered ${n}.` };
    return parseLine("test.ndjson", i + 1, JSON.stringify(record));
  });
  return importRecords({ db: handle.db, embedder: await sharedEmbedder() }, lines, { batchSize: 64 });
}

describe("when the catalog's tables are analyzed", () => {
  it("is due past autovacuum's threshold: never analyzed and more than 50 rows, or 50 + 10% moved since", () => {
    expect(analyzeDue(-1, 241)).toBe(true);
    expect(analyzeDue(-1, 30)).toBe(false);
    expect(analyzeDue(1000, 1140)).toBe(false);
    expect(analyzeDue(1000, 1160)).toBe(true);
    expect(analyzeDue(1000, 840)).toBe(true);
  });

  it("an import that wrote products leaves both tables analyzed; a small one after it does not analyze again", async () => {
    expect(await estimated()).toBeLessThan(0);
    const summary = await importProducts(0, 80);
    expect(summary.imported).toBe(80);
    expect(await estimated()).toBe(80);
    expect(await estimated("product_facets")).toBe(80);

    await importProducts(80, 10);
    expect(await estimated()).toBe(80);
    expect(await analyzeIfDue(handle.db)).toBe(false);
  });

  it("a catalog that moved past the threshold without it (an older version's import) is analyzed when asked", async () => {
    await handle.db.execute(sql`insert into products (id, url, url_key, brand_host, name, "desc", content_hash)
      select 'pdp_bulk_' || g, 'https://bulk.example/p/' || g, 'bulk.example/p/' || g, 'bulk.example', 'Bulk ' || g, '', md5(g::text)
      from generate_series(1, 100) as g`);
    expect(await estimated()).toBe(80);
    expect(await analyzeIfDue(handle.db)).toBe(true);
    expect(await estimated()).toBe(190);
  });
});
