/**
 * Two ways an import skips the encoder (server/ingest/import.ts): vectors supplied with the records (checked against
 * the catalog's model, ingest/vectors.ts), and an interrupted import run again, which finds what it had written
 * unchanged by its content hash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { products } from "../../server/db/schema.js";
import type { DatabaseHandle } from "../../server/db/open.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine, parseRecord } from "../../server/ingest/ndjson.js";
import type { Embedder } from "../../server/search/embedder.js";
import { productUrlKey } from "../../shared/url.js";
import { openTestDatabase } from "../helpers/database.js";
import { sharedEmbedder } from "../helpers/embedder.js";

let handle: DatabaseHandle;
let encoder: Embedder;
beforeAll(async () => {
  handle = await openTestDatabase();
  await handle.migrate();
  encoder = await sharedEmbedder();
});
afterAll(() => handle.close());

const lines = (records: readonly object[]) => records.map((record, index) => parseLine("t.ndjson", index + 1, JSON.stringify(record)));
const idOf = (url: string) => productIdFromUrlKey(productUrlKey(url)!);

/** The real encoder, counting the texts it is asked to embed. */
function counted(): { embedder: Embedder; texts: string[] } {
  const texts: string[] = [];
  const embedder: Embedder = {
    ...encoder,
    embed: (batch) => {
      texts.push(...batch);
      return encoder.embed(batch);
    },
  };
  return { embedder, texts };
}

/** The stored vector, read as text so that it reads the same whatever the column's vector type. */
async function storedVector(url: string): Promise<number[]> {
  const [row] = await handle.db
    .select({ text: sql<string>`${products.embedding}::text` })
    .from(products)
    .where(eq(products.id, idOf(url)));
  return JSON.parse(row!.text) as number[];
}

describe("vectors supplied with the records", () => {
  it("stores a supplied vector of the catalog's model, unit length, and fails a line whose vector is another model's or size", async () => {
    const direction = Array.from({ length: encoder.dimensions }, (_, i) => (i === 0 ? 3 : i === 1 ? 4 : 0));
    const { embedder, texts } = counted();
    const summary = await importRecords(
      { db: handle.db, embedder },
      lines([
        { url: "https://vec.example/p/1", name: "Supplied kettle", embedding: { model: encoder.model, vector: direction } },
        { url: "https://vec.example/p/2", name: "Other model's kettle", embedding: { model: "text-embedding-3-small", vector: direction } },
        { url: "https://vec.example/p/3", name: "Short kettle", embedding: { model: encoder.model, vector: [1, 2, 3] } },
        { url: "https://vec.example/p/4", name: "Zero kettle", embedding: { model: encoder.model, vector: direction.map(() => 0) } },
        { url: "https://vec.example/p/5", name: "Embedded kettle" },
      ]),
    );
    expect(summary).toMatchObject({ imported: 2, failed: 3 });
    expect(summary.failures.map((failure) => [failure.line, failure.reason])).toEqual([
      [2, `embedding.model: is "text-embedding-3-small", but this catalog's vectors are made by "${encoder.model}"`],
      [3, `embedding.vector: has 3 numbers, but ${encoder.model} makes vectors of ${encoder.dimensions}`],
      [4, "embedding.vector: must have a direction (not all zeros, every number finite)"],
    ]);
    expect(texts).toHaveLength(1);
    const [x, y, ...rest] = await storedVector("https://vec.example/p/1");
    expect(x).toBeCloseTo(0.6, 3);
    expect(y).toBeCloseTo(0.8, 3);
    expect(rest.every((value) => value === 0)).toBe(true);
    expect(await storedVector("https://vec.example/p/5")).toHaveLength(encoder.dimensions);
  });

  it("reports a malformed embedding field by its path", () => {
    const malformed = [[1, "a"], "0.1 0.2", [], { 0: 0.1 }].map((vector) => ({
      url: "https://vec.example/p/6",
      name: "Mug",
      embedding: { model: encoder.model, vector },
    }));
    expect(lines(malformed).map((parsed) => ("error" in parsed ? parsed.error : null))).toEqual([
      "embedding.vector.1: must hold numbers only",
      "embedding.vector: must be an array of numbers",
      "embedding.vector: must not be empty",
      "embedding.vector: must be an array of numbers",
    ]);
    // A record built in code, not read from JSON, can hold numbers JSON cannot.
    const built = parseRecord("feed", 1, {
      url: "https://vec.example/p/7",
      name: "Mug",
      embedding: { model: encoder.model, vector: [0.5, Number.NaN] },
    });
    expect(built).toMatchObject({ error: "embedding.vector.1: must hold numbers only" });
  });
});

describe("an interrupted import, run again", () => {
  it("skips what was written before without embedding it, and writes the rest", async () => {
    const records = Array.from({ length: 10 }, (_, i) => ({ url: `https://resume.example/p/${i}`, name: `Lamp ${i}` }));
    // Batches are written in order, each in a transaction of its own: a killed import leaves the batches before the
    // one it was writing, a prefix of the file.
    await importRecords({ db: handle.db, embedder: encoder }, lines(records.slice(0, 6)), { batchSize: 3 });
    const { embedder, texts } = counted();
    const summary = await importRecords({ db: handle.db, embedder }, lines(records), { batchSize: 3 });
    expect(summary).toMatchObject({ imported: 4, updated: 0, unchanged: 6, failed: 0 });
    expect(texts).toHaveLength(4);
  });
});
