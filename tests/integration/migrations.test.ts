/**
 * Migrations on a database that already holds products, as an operator upgrading finds it: a catalog migrated up to
 * the migration before freshness (0008), products stored the way the code of then stored them, then the rest applied.
 * 0009 adds the freshness columns (defaulting to the moment of the upgrade); 0010 must backfill them from what the
 * rows knew, put every product in the change feed oldest change first, and make product_facets mirror them. 0011
 * remakes the full-text document with the category's last segment in it, 0012 with every segment naming one kind, and
 * 0013 with slashes read as spaces (and the vocabulary counted again so).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changesSince } from "../../server/catalog/repository.js";
import type { Database } from "../../server/db/client.js";
import { MIGRATIONS_FOLDER } from "../../server/db/handle.js";
import { openRawTestDatabase, type RawTestDatabase } from "../helpers/database.js";
import { type Journal, migrationsUpTo } from "../helpers/migrations.js";

/** The last migration before freshness: what a catalog that predates issue 18 was migrated to. */
const BEFORE_FRESHNESS = "0008_vocabulary_triggers";

/** Old products, each last changed on its own day (out of id order, so the feed's order is the dates', not the ids'). */
const OLD = [
  {
    id: "prod_b",
    name: "Old prod_b",
    url: "https://old.example/p/b",
    updated: "2025-03-02T10:00:00Z",
    created: "2025-01-01T00:00:00Z",
    category: "Coffee & Tea > Coffee",
  },
  {
    id: "prod_a",
    name: "Old prod_a",
    url: "https://old.example/p/a",
    updated: "2025-05-20T08:30:00Z",
    created: "2025-01-02T00:00:00Z",
    category: "Coffee & Tea > Coffee",
  },
  {
    id: "prod_c",
    name: "Old Skillet/Griddle",
    url: "https://old.example/p/c",
    updated: "2025-04-11T23:59:59Z",
    created: "2025-01-03T00:00:00Z",
    category: "Kitchen > Cookware > Pans",
  },
] as const;

let close: () => Promise<void>;
let db: Database;
/** Raw SQL on the same database: the rows are read as they are stored, not through the schema of today. */
let client: RawTestDatabase;
let removeFolder: () => void;
/** The products table's freshness columns once stopped at 0008: none, or the test upgrades nothing. */
let freshnessColumnsBefore: string[];

beforeAll(async () => {
  client = await openRawTestDatabase();
  const { handle } = client;
  close = () => handle.close();
  db = handle.db;
  const before = migrationsUpTo(BEFORE_FRESHNESS);
  removeFolder = before.remove;
  await client.migrateFrom(before.folder);
  const columns = await client.query<{ name: string }>(
    "select column_name as name from information_schema.columns where table_name = 'products' and column_name in ('fetched_at', 'checked_at', 'gone_at')",
  );
  freshnessColumnsBefore = columns.rows.map((row) => row.name);
  // Stored as the importer of then wrote rows: the columns of 0001–0008 only (the schema of today has more).
  for (const old of OLD) {
    await client.query(
      `INSERT INTO products (id, url, url_key, brand_host, name, content_hash, brand, brand_keys, availability, currency, price_minor, category, created_at, updated_at)
       VALUES ($1, $2, $3, 'old.example', $4, $5, 'Old Brand', '{old brand}', 'InStock', 'USD', 1999, $8, $6, $7)`,
      [old.id, old.url, old.url.replace("https://", ""), old.name, `hash-${old.id}`, old.created, old.updated, old.category],
    );
  }
  // The rest, as the server applies them at start.
  await handle.migrate();
});

afterAll(async () => {
  await close?.();
  removeFolder?.();
});

describe("0009 and 0010 on a catalog stored before freshness", () => {
  it("stopped at 0008 first (no freshness columns when the products were stored), then applied the rest", async () => {
    expect(freshnessColumnsBefore).toEqual([]);
    const applied = await client.query<{ n: number }>("select count(*)::int as n from drizzle.__drizzle_migrations");
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as Journal;
    expect(applied.rows[0]?.n).toBe(journal.entries.length);
  });

  it("0011 and 0012 put each segment of a stored product's category naming one kind in its full-text document", async () => {
    const matching = async (word: string) =>
      (await client.query<{ id: string }>("select id from products where search @@ to_tsquery('english', $1) order by id", [word])).rows.map(
        (row) => row.id,
      );
    expect(await matching("coffee")).toEqual(["prod_a", "prod_b"]);
    expect(await matching("cookware")).toEqual(["prod_c"]);
    expect(await matching("kitchen")).toEqual(["prod_c"]);
    // A department joining several kinds names none: "Coffee & Tea" is no tea.
    expect(await matching("tea")).toEqual([]);
    const index = await client.query("select 1 from pg_indexes where indexname = 'products_search_idx'");
    expect(index.rows).toHaveLength(1);
  });

  it("0013 reads a slash in a stored product's name as a space, in full text and in the vocabulary", async () => {
    const found = await client.query<{ id: string }>("select id from products where search @@ to_tsquery('english', 'griddle')");
    expect(found.rows.map((row) => row.id)).toEqual(["prod_c"]);
    const words = await client.query<{ word: string; ndoc: number }>(
      "select word, ndoc from search_vocabulary where word in ('skillet', 'griddle', 'old') order by word",
    );
    expect(words.rows).toEqual([
      { word: "griddle", ndoc: 1 },
      { word: "old", ndoc: 3 },
      { word: "skillet", ndoc: 1 },
    ]);
  });

  it("fetched_at and checked_at are each product's last change, not the moment of the upgrade", async () => {
    const rows = await client.query<{ id: string; fetched: string; checked: string; updated: string; gone: string | null }>(
      "select id, fetched_at::text as fetched, checked_at::text as checked, updated_at::text as updated, gone_at::text as gone from products order by id",
    );
    expect(rows.rows).toHaveLength(OLD.length);
    for (const row of rows.rows) {
      const old = OLD.find((entry) => entry.id === row.id)!;
      expect(new Date(row.updated).toISOString()).toBe(new Date(old.updated).toISOString());
      expect(row.fetched).toBe(row.updated);
      expect(row.checked).toBe(row.updated);
      expect(row.gone).toBeNull();
    }
  });

  it("every product is in the change feed once, oldest change first", async () => {
    const changes = await changesSince(db, 0, 100);
    expect(changes.map((change) => change.id)).toEqual(["prod_b", "prod_c", "prod_a"]);
    expect(changes.map((change) => change.seq)).toEqual([1, 2, 3]);
    expect(changes.every((change) => change.goneAt === null)).toBe(true);
  });

  it("product_facets carries each product's updated_at and gone_at, and its trigger keeps them in step", async () => {
    const mirrored = `select f.id from product_facets f join products p using (id)
      where f.updated_at is distinct from p.updated_at or f.gone_at is distinct from p.gone_at`;
    const facets = await client.query<{ n: number }>("select count(*)::int as n from product_facets");
    expect(facets.rows[0]?.n).toBe(OLD.length);
    expect((await client.query(mirrored)).rows).toEqual([]);
    // After the upgrade the trigger (replaced by 0010) copies both columns on every write.
    await client.query("update products set updated_at = '2026-01-01T00:00:00Z', gone_at = '2026-02-01T00:00:00Z' where id = 'prod_c'");
    expect((await client.query(mirrored)).rows).toEqual([]);
    const gone = await client.query<{ gone: string | null }>("select gone_at::text as gone from product_facets where id = 'prod_c'");
    expect(gone.rows[0]?.gone).not.toBeNull();
  });
});
