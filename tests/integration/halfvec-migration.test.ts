/**
 * Migration 0018 and db/halfvec.ts on a catalog stored with full-precision vectors (migrated up to 0017): on Postgres
 * the conversion is stopped after its first batch, the code of before writes meanwhile, and the next migrate()
 * finishes it; the result is what converting every vector at once would give. PGlite keeps full precision.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBEDDING_DIMENSIONS } from "../../server/db/schema.js";
import { vectorRanked } from "../../server/search/pipeline/retrieve.js";
import { openRawTestDatabase, type RawTestDatabase, testDatabase } from "../helpers/database.js";
import { migrationsUpTo } from "../helpers/migrations.js";

/** A vector whose components half precision rounds (none is a short binary fraction). */
const vectorOf = (seed: number) => Array.from({ length: EMBEDDING_DIMENSIONS }, (_, d) => Math.sin(seed * 997 + d) / 7);
const text = (vector: readonly number[]) => `[${vector.join(",")}]`;

const onPglite = testDatabase().kind === "pglite";
let client: RawTestDatabase;
let removeFolder: () => void;
const interrupted = new Error("stopped after the first batch");
/** The catalog between the two runs. */
let between: { type: string; cursor: string | undefined; filled: string[] };
/** Each product's vector converted at once (`::halfvec`), as a one-statement ALTER TABLE would have. */
let expected: Map<string, string>;

async function embeddingType(): Promise<string | undefined> {
  const rows = await client.query<{ type: string }>(
    "select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'products'::regclass and attname = 'embedding' and not attisdropped",
  );
  return rows.rows[0]?.type;
}

beforeAll(async () => {
  client = await openRawTestDatabase();
  const before = migrationsUpTo("0017_product_groups");
  removeFolder = before.remove;
  await client.migrateFrom(before.folder);
  const insert = (id: string, embedding: string | null) =>
    client.query(
      `insert into products (id, url, url_key, brand_host, name, content_hash, embedding, embedding_model)
       values ($1, 'https://old.example/p/' || $1, 'old.example/p/' || $1, 'old.example', 'Old ' || $1, 'hash-' || $1, $2::vector, 'local:test')`,
      [id, embedding],
    );
  for (const [i, id] of ["prod_a", "prod_b", "prod_c", "prod_d", "prod_e"].entries()) await insert(id, text(vectorOf(i)));
  await insert("prod_f", null);

  // Stopped after its first batch of two, as a killed start would stop it.
  const first = client.handle.migrate({
    batchSize: 2,
    onProgress: (done) => {
      if (done > 0) throw interrupted;
    },
  });
  if (onPglite) {
    await first;
    between = { type: (await embeddingType()) ?? "", cursor: undefined, filled: [] };
    return;
  }
  await expect(first).rejects.toBe(interrupted);
  const cursor = await client.query<{ value: string }>("select value from catalog_meta where key = 'halfvec_fill_after'");
  const filled = await client.query<{ id: string }>("select id from products where embedding_half is not null order by id");
  between = { type: (await embeddingType()) ?? "", cursor: cursor.rows[0]?.value, filled: filled.rows.map((row) => row.id) };

  // The code of before writes meanwhile (another server not yet upgraded), behind the place the fill had reached: a
  // new product, and a new vector for one it had converted. Only the migration's trigger converts these.
  await insert("prod_0", text(vectorOf(6)));
  await client.query("update products set embedding = $1::vector where id = 'prod_a'", [text(vectorOf(9))]);
  const direct = await client.query<{ id: string; half: string | null }>(
    `select id, embedding::halfvec(${EMBEDDING_DIMENSIONS})::text as half from products`,
  );
  expected = new Map(direct.rows.map((row) => [row.id, row.half ?? "null"]));

  await client.handle.migrate({ batchSize: 2 });
});

afterAll(async () => {
  await client?.handle.close();
  removeFolder?.();
});

describe.runIf(onPglite)("0018 on PGlite", () => {
  it("keeps full-precision vectors, unconverted, and nothing of the conversion", async () => {
    expect(between.type).toBe(`vector(${EMBEDDING_DIMENSIONS})`);
    expect(await embeddingType()).toBe(`vector(${EMBEDDING_DIMENSIONS})`);
    const rows = await client.query<{ id: string; full: string }>("select id, embedding::text as full from products where id = 'prod_b'");
    expect(rows.rows[0]?.full).toBe((await client.query<{ v: string }>("select $1::vector::text as v", [text(vectorOf(1))])).rows[0]?.v);
    const leftover = await client.query(
      "select 1 from pg_attribute where attrelid = 'products'::regclass and attname = 'embedding_half' and not attisdropped union all select 1 from pg_trigger where tgname = 'products_embedding_half'",
    );
    expect(leftover.rows).toEqual([]);
  });
});

describe.skipIf(onPglite)("converting a catalog's vectors to half precision (0018)", () => {
  it("stopped midway, kept the full-precision column and where it had got to", () => {
    expect(between).toEqual({ type: `vector(${EMBEDDING_DIMENSIONS})`, cursor: "prod_b", filled: ["prod_a", "prod_b"] });
  });

  it("resumed, holds each vector as converting it at once would, with the writes made meanwhile", async () => {
    expect(await embeddingType()).toBe(`halfvec(${EMBEDDING_DIMENSIONS})`);
    const rows = await client.query<{ id: string; half: string | null }>("select id, embedding::text as half from products");
    expect(new Map(rows.rows.map((row) => [row.id, row.half ?? "null"]))).toEqual(expected);
    expect(expected.size).toBe(7);
    // Half precision did round them: the text read back is not the full-precision vector's.
    expect(expected.get("prod_a")).not.toBe(text(vectorOf(0)));
  });

  it("leaves nothing of the conversion behind, and search uses the new index", async () => {
    const leftover = await client.query(
      `select 1 from pg_attribute where attrelid = 'products'::regclass and attname = 'embedding_half' and not attisdropped
       union all select 1 from pg_trigger where tgname = 'products_embedding_half'
       union all select 1 from catalog_meta where key = 'halfvec_fill_after'`,
    );
    expect(leftover.rows).toEqual([]);
    const index = await client.query<{ def: string; valid: boolean }>(
      "select pg_get_indexdef(indexrelid) as def, indisvalid as valid from pg_index where indexrelid = 'products_embedding_idx'::regclass",
    );
    expect(index.rows).toEqual([{ def: expect.stringContaining("hnsw (embedding halfvec_cosine_ops)"), valid: true }]);
    const { ranked } = await vectorRanked(client.handle.db, vectorOf(2), {}, 3, {
      settingsInSession: client.handle.vectorSettingsInSession,
      exact: false,
    });
    expect(ranked[0]?.id).toBe("prod_c");
  });
});
