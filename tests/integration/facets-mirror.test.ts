/**
 * product_facets mirrors products (its trigger, drizzle/0015): rows an import inserts, then upserts with new prices,
 * and rows updated in place, on either database.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const lines = (records: readonly object[]) => records.map((record, index) => parseLine("t", index + 1, JSON.stringify(record)));
const record = (i: number, price: string, availability = "in_stock") => ({
  url: `https://mirror.example/p/${i}`,
  name: `Lamp ${i}`,
  offers: { price, currency: "EUR", availability },
});

/** Rows where the mirror differs from products in any mirrored column, or is missing. */
const OUT_OF_STEP = sql`select p.id from products p left join product_facets f using (id)
  where f.id is null or (p.brand_host, p.brand, p.brand_keys, p.category, p.category_key, p.availability, p.currency, p.price_minor,
    p.price_bucket, p.created_at, p.updated_at, p.gone_at, p.audience, p.colours, p.materials)
  is distinct from (f.brand_host, f.brand, f.brand_keys, f.category, f.category_key, f.availability, f.currency, f.price_minor,
    f.price_bucket, f.created_at, f.updated_at, f.gone_at, f.audience, f.colours, f.materials)`;

async function outOfStep(): Promise<unknown[]> {
  const result = (await handle.db.execute(OUT_OF_STEP)) as unknown as { rows?: unknown[] } | unknown[];
  return Array.isArray(result) ? result : (result.rows ?? []);
}

async function mirrored(): Promise<{ id: string; price: number }[]> {
  const result = (await handle.db.execute(sql`select id, price_minor::int as price from product_facets order by id`)) as unknown as
    | { rows?: { id: string; price: number }[] }
    | { id: string; price: number }[];
  return Array.isArray(result) ? result : (result.rows ?? []);
}

describe("product_facets, the mirror of products", () => {
  it("mirrors a batch inserted, then the same batch upserted with new prices, then a plain update", async () => {
    const embedder = await sharedEmbedder();
    await importRecords({ db: handle.db, embedder }, lines([1, 2, 3].map((i) => record(i, `${i}.00`))));
    expect((await mirrored()).map((row) => row.price).sort()).toEqual([100, 200, 300]);
    expect(await outOfStep()).toEqual([]);

    await importRecords({ db: handle.db, embedder }, lines([...[1, 2].map((i) => record(i, `${i}0.00`)), record(4, "4.00")]));
    expect((await mirrored()).map((row) => row.price).sort((a, b) => a - b)).toEqual([300, 400, 1000, 2000]);
    expect(await outOfStep()).toEqual([]);

    await handle.db.execute(sql`update products set availability = 'OutOfStock', gone_at = now() where url like '%/p/3'`);
    await handle.db.execute(sql`update products set name = 'Lamp renamed'`);
    expect(await outOfStep()).toEqual([]);
  });
});
