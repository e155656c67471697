/**
 * The import's pipeline (server/ingest/import.ts): a batch is read against the database while the batch ahead of it
 * is still to be written, unless they share a product or a URL. Batches of two, so each case spans batches.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inArray } from "drizzle-orm";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { products } from "../../server/db/schema.js";
import { productUrlKey } from "../../shared/url.js";
import type { DatabaseHandle } from "../../server/db/open.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { openTestDatabase } from "../helpers/database.js";
import type { Embedder } from "../../server/search/embedder.js";
import { sharedEmbedder } from "../helpers/embedder.js";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
  await handle.migrate();
});
afterAll(() => handle.close());

/** The shared encoder, seen as one off this thread (as ENCODER_THREADS's is), so batches are embedded while others are written. */
async function concurrentEmbedder(): Promise<Embedder> {
  return { ...(await sharedEmbedder()), onCallerThread: false };
}

const lines = (records: readonly object[]) => records.map((record, index) => parseLine("t", index + 1, JSON.stringify(record)));
const idOf = (url: string) => productIdFromUrlKey(productUrlKey(url)!);
const namesOf = async (ids: string[]) =>
  (await handle.db.select({ name: products.name }).from(products).where(inArray(products.id, ids))).map((row) => row.name).sort();

describe("the import pipeline", () => {
  it("sees the batch ahead written when the next one names the same product or URL", async () => {
    const summary = await importRecords(
      { db: handle.db, embedder: await concurrentEmbedder() },
      lines([
        { url: "https://pipe.example/p/1", name: "Kettle" },
        { url: "https://pipe.example/p/2", name: "Teapot" },
        // The next batch: product 1 again, changed, and another id claiming product 2's URL.
        { url: "https://pipe.example/p/1", name: "Copper Kettle" },
        { id: "pdp_claims_two", url: "https://pipe.example/p/2", name: "Not the teapot" },
        { url: "https://pipe.example/p/3", name: "Mug" },
        { url: "https://pipe.example/p/4", name: "Cup" },
        { url: "https://pipe.example/p/3", name: "Mug" },
      ]),
      { batchSize: 2 },
    );
    expect(summary).toMatchObject({ imported: 4, updated: 1, unchanged: 1, failed: 1 });
    expect(summary.failures[0]).toMatchObject({
      line: 4,
      reason: expect.stringContaining(`already belongs to product ${idOf("https://pipe.example/p/2")}`),
    });
    expect(await namesOf([idOf("https://pipe.example/p/1"), idOf("https://pipe.example/p/2"), "pdp_claims_two"])).toEqual([
      "Copper Kettle",
      "Teapot",
    ]);
  });

  it("writes every batch of a longer import, in order, each product once", async () => {
    const records = Array.from({ length: 9 }, (_, i) => ({ url: `https://pipe.example/q/${i}`, name: `Lamp ${i}` }));
    const progress: number[] = [];
    const summary = await importRecords({ db: handle.db, embedder: await concurrentEmbedder() }, lines(records), {
      batchSize: 2,
      onProgress: (s) => progress.push(s.imported),
    });
    expect(summary).toMatchObject({ imported: 9, failed: 0 });
    expect(progress).toEqual([2, 4, 6, 8, 9]);
    expect(await namesOf(records.map((record) => idOf(record.url)))).toEqual(records.map((record) => record.name));
  });
});
