/**
 * What the local reranker keeps between searches (issue 16, item 4), on a real catalog: the document frequencies
 * (server/search/statistics.ts) — every stemmed word counted in one read, what the catalog lacks counted 0, a changed
 * catalog read again only after the minimum age and behind the searches, a partial table leaving the rest to be
 * counted — and the stems of texts it has seen.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bumpCatalogVersion } from "../../server/catalog/repository.js";
import { openPglite } from "../../server/db/open.js";
import { createLocalReranker } from "../../server/search/rerankers/local.js";
import { products } from "../../server/db/schema.js";
import { readWordFrequencies, type WordFrequencies, wordFrequenciesOf } from "../../server/search/statistics.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";
import { migratedPglite } from "../helpers/database.js";

let t: TestApp;
/** Every statement the catalog's database ran, as text. */
const statements: string[] = [];
beforeAll(async () => {
  const { handle, client } = await openPglite(undefined, { loadDataDir: await migratedPglite() });
  const query = client.query.bind(client);
  // Records statements (instrumentation: every one still runs on the real database).
  client.query = ((text: string, params?: unknown[], options?: Parameters<typeof query>[2]) => {
    statements.push(text);
    return query(text, params, options);
  }) as typeof client.query;
  t = await createTestApp({ database: handle, records: FIXTURE });
});
afterAll(() => t.close());

/** What counting one lexeme on demand gives (the reranker's query before the table). */
async function counted(lexeme: string): Promise<number> {
  const [row] = await t.database.db.select({ n: sql<number>`count(*)::int` }).from(products).where(sql`${products.search} @@ ${lexeme}::tsquery`);
  return row?.n ?? 0;
}

describe("word frequencies", () => {
  it("counts every stemmed word as counting it on demand does, and a word the catalog lacks as 0", async () => {
    const table = await readWordFrequencies(t.database.db);
    for (const lexeme of ["tent", "shoe", "northpeak", "saucepan", "down"]) {
      expect(table.frequency(lexeme), lexeme).toBe(await counted(lexeme));
    }
    expect(table.frequency("tent")).toBeGreaterThan(0);
    expect(table.frequency("zeppelin")).toBe(0);
  });

  it("leaves a word out of a partial table unknown, so it is counted instead", async () => {
    const table = await readWordFrequencies(t.database.db, 3);
    expect(table.lexemes).toBe(3);
    expect(table.frequency("zeppelin")).toBeUndefined();
  });

  it("reads again after an import only once the table is old enough, and never makes a search wait for it", async () => {
    let clock = 0;
    let reads = 0;
    let release: (() => void) | undefined;
    const frequencies = wordFrequenciesOf(t.database.db, {
      checkMs: 1_000,
      minAgeMs: 60_000,
      now: () => clock,
      read: async (db) => {
        reads++;
        if (reads > 1) await new Promise<void>((resolve) => (release = resolve));
        return readWordFrequencies(db);
      },
    });
    const [a, b] = await Promise.all([frequencies(), frequencies()]);
    expect(a).toBe(b);
    expect(reads).toBe(1);

    await bumpCatalogVersion(t.database.db);
    clock = 30_000; // changed, but the table is younger than minAgeMs
    expect(await frequencies()).toBe(a);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the version check behind that call
    expect(reads).toBe(1);

    clock = 61_000;
    const during = await frequencies(); // starts the read behind this call, which is answered from the old table
    expect(during).toBe(a);
    await until(() => reads === 2 && release !== undefined);
    expect(await frequencies()).toBe(a);
    release?.();
    let after: WordFrequencies = a;
    await until(async () => {
      after = await frequencies();
      return after !== a;
    });
    expect(after.frequency("tent")).toBe(await counted("tent"));
  });

  it("settles once the read behind a search is done, so that what closes the database can wait for it", async () => {
    let clock = 0;
    let release: (() => void) | undefined;
    let finished = false;
    const frequencies = wordFrequenciesOf(t.database.db, {
      checkMs: 1_000,
      minAgeMs: 0,
      now: () => clock,
      read: async (db) => {
        if (clock > 0) await new Promise<void>((resolve) => (release = resolve));
        const table = await readWordFrequencies(db);
        if (clock > 0) finished = true;
        return table;
      },
    });
    await frequencies();
    await frequencies.settled(); // nothing in flight
    await bumpCatalogVersion(t.database.db);
    clock = 2_000;
    await frequencies(); // starts a read behind it
    await until(() => release !== undefined);
    const settled = frequencies.settled();
    release?.();
    await settled;
    expect(finished).toBe(true);
  });

  it("says so when a read behind a search fails, keeps answering from the old table, and reads again on a later call", async () => {
    let clock = 0;
    let reads = 0;
    const warnings: string[] = [];
    const frequencies = wordFrequenciesOf(t.database.db, {
      checkMs: 1_000,
      minAgeMs: 0,
      now: () => clock,
      warn: (message) => warnings.push(message),
      read: async (db) => {
        reads++;
        if (reads === 2) throw new Error("connection reset");
        return readWordFrequencies(db);
      },
    });
    const first = await frequencies();
    await bumpCatalogVersion(t.database.db);
    clock = 2_000;
    expect(await frequencies()).toBe(first);
    await until(() => warnings.length === 1);
    expect(warnings[0]).toMatch(/word frequencies could not be read again .*connection reset/);
    await until(async () => (await frequencies()) !== first); // the failed read does not wait checkMs to be retried
    expect(reads).toBe(3);
  });
});

async function until(done: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("stems", () => {
  it("are read from the database once per text: a second scoring of the same candidates stems nothing, and scores the same", async () => {
    const reranker = createLocalReranker({ db: t.database.db });
    const found = await t.services.catalog.lookup(
      FIXTURE.map((record) => ({ url: record.url })),
      false,
    );
    const products = found.flatMap((entry) => (entry.product ? [entry.product] : []));
    expect(products).toHaveLength(FIXTURE.length);
    const stemming = () => statements.filter((text) => text.includes("to_tsvector(search_config(l), t)")).length;
    const before = stemming();
    const first = await reranker.scoreCandidates("trail running shoes", products);
    expect(stemming()).toBe(before + 1);
    const second = await reranker.scoreCandidates("trail running shoes", products);
    expect(stemming()).toBe(before + 1);
    expect(second).toEqual(first);
    await reranker.scoreCandidates("zeppelin hangar", products);
    expect(stemming()).toBe(before + 2); // new query words
  });
});
