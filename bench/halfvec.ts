/**
 * npm run bench:halfvec [-- --postgres URL] — half-precision vectors against full precision, in one run.
 *
 * The CrowdFlower catalog (../shared/data/relevance, 9,913 products) imported with full-precision vectors into a
 * catalog migrated up to 0017 (built once, cached in bench/.cache), then, on a copy of it: the table and index sizes
 * and the dev queries' nDCG@10 through the HTTP API with full-precision vectors; migration 0018 converting it in place
 * (timed); the same with half precision; and the vector search's recall against the exact full-precision top k. With
 * --postgres (or TEST_POSTGRES_URL), the same rows in a database of their own on that Postgres, converted there too.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { execSync } from "node:child_process";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { drizzle as pgDrizzle } from "drizzle-orm/postgres-js";
import { migrate as pgMigrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { EMBEDDING_DIMENSIONS } from "../server/db/schema.js";
import { type DatabaseHandle, openPglite, openPostgres } from "../server/db/open.js";
import { importRecords } from "../server/ingest/import.js";
import { readNdjson } from "../server/ingest/ndjson.js";
import type { Embedder } from "../server/search/embedder.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { createThreadedEmbedder } from "../server/search/embedders/threads.js";
import { vectorRanked } from "../server/search/pipeline/retrieve.js";
import { migrationsUpTo } from "../tests/helpers/migrations.js";
import { createPostgresDatabase } from "../tests/helpers/postgres-database.js";
import { holdCache } from "./cache-lock.js";
import { benchStages } from "./relevance-stages.js";
import { DATA, loadDevQueries, ndcgAt10, relevanceDataPresent } from "./relevance-data.js";
import { serve } from "./relevance-serve.js";

const { values: flags } = parseArgs({ options: { postgres: { type: "string" } } });
const POSTGRES_URL = flags.postgres ?? process.env.TEST_POSTGRES_URL;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The last migration of full-precision vectors. */
const BEFORE = "0017_product_groups";
const log = (message: string) => process.stderr.write(message);
const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** The CrowdFlower catalog at 0017, vectors in full precision: its PGlite data dir, imported the first time. */
async function fullPrecisionCatalog(): Promise<string> {
  const key = createHash("sha256")
    .update(readFileSync(join(DATA, "products.ndjson")))
    .update(BEFORE)
    .digest("hex")
    .slice(0, 16);
  const dir = join(ROOT, "bench", ".cache", `halfvec-full-${key}`);
  holdCache(dir);
  if (!existsSync(join(dir, ".complete"))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const { handle, client } = await openPglite(join(dir, "pg"));
    const upTo = migrationsUpTo(BEFORE);
    await migrate(drizzle(client), { migrationsFolder: upTo.folder });
    upTo.remove();
    const embedder = await createThreadedEmbedder({ threads: availableParallelism() });
    await importRecords({ db: handle.db, embedder }, readNdjson(join(DATA, "products.ndjson")), {
      batchSize: 64,
      onProgress: (s) => log(`\rbuilding the full-precision catalog: ${s.imported} products`),
    });
    log("\n");
    await embedder.close();
    await handle.close();
    writeFileSync(join(dir, ".complete"), new Date().toISOString());
  }
  return join(dir, "pg");
}

interface Sizes {
  /** Heap, TOAST and maps: what `pg_table_size` counts. */
  table: number;
  heap: number;
  toast: number;
  index: number;
  /** The stored vector's own bytes, on average (`pg_column_size`). */
  vector: number;
  rows: number;
}

const SIZES_SQL = `select pg_table_size('products')::float8 as table, pg_relation_size('products')::float8 as heap,
  coalesce(pg_total_relation_size(nullif(reltoastrelid, 0)), 0)::float8 as toast,
  pg_relation_size('products_embedding_idx')::float8 as index,
  (select avg(pg_column_size(embedding))::float8 from products) as vector, (select count(*)::float8 from products) as rows
  from pg_class where oid = 'products'::regclass`;

type Query = <T>(text: string) => Promise<T[]>;
const pgliteQuery =
  (client: PGlite): Query =>
  async <T>(text: string) =>
    (await client.query<T>(text)).rows;

async function sizes(query: Query): Promise<Sizes> {
  const [row] = await query<Sizes>(SIZES_SQL);
  return row!;
}

/** The dev queries' mean nDCG@10 through the HTTP API, with the last stage of bench:relevance (the shipped search). */
async function devNdcg(database: DatabaseHandle, embedder: Embedder): Promise<number> {
  const { queries, qrels } = loadDevQueries();
  const server = await serve(benchStages().at(-1)!, database, embedder);
  const answers = await server.ask(queries);
  await server.close();
  return mean(answers.map((answer) => ndcgAt10(answer.ids, qrels.get(answer.id) ?? new Map())));
}

/** Each dev query's vector top k: by the HNSW index and exactly (every product compared). */
async function topK(database: DatabaseHandle, vectors: readonly number[][], k: number, exact: boolean): Promise<string[][]> {
  const out: string[][] = [];
  for (const vector of vectors) {
    const { ranked } = await vectorRanked(database.db, vector, {}, k, { settingsInSession: true, exact });
    out.push(ranked.map((row) => row.id));
  }
  return out;
}

const recall = (found: readonly string[][], truth: readonly string[][]) =>
  mean(found.map((ids, i) => ids.filter((id) => truth[i]!.includes(id)).length / Math.max(1, truth[i]!.length)));

/** The catalog's handle with migrations left alone (serve's root migrates what it is given). */
const unmigrated = (handle: DatabaseHandle): DatabaseHandle => ({ ...handle, migrate: async () => undefined });

interface Arm {
  sizes: Sizes;
  ndcg: number;
  /** Top 10 and top 50 by the index. */
  hnsw10: string[][];
  hnsw50: string[][];
}

async function measure(handle: DatabaseHandle, client: PGlite, embedder: Embedder, vectors: number[][]): Promise<Arm> {
  await client.exec("vacuum analyze products");
  return {
    sizes: await sizes(pgliteQuery(client)),
    ndcg: await devNdcg(unmigrated(handle), embedder),
    hnsw10: await topK(handle, vectors, 10, false),
    hnsw50: await topK(handle, vectors, 50, false),
  };
}

/** migrate() converting a catalog: the fill's time, and the index build's with the swap. */
async function timedMigrate(handle: DatabaseHandle) {
  const started = performance.now();
  let filled = started;
  await handle.migrate({
    onIndexing: () => {
      filled = performance.now();
    },
  });
  return { fillMs: filled - started, indexMs: performance.now() - filled };
}

const describeTimes = (times: { fillMs: number; indexMs: number }, rows: number) =>
  `filling ${(times.fillMs / 1000).toFixed(1)} s (${(times.fillMs / rows).toFixed(1)} ms a product), ` +
  `the index and the swap ${(times.indexMs / 1000).toFixed(1)} s`;

/** A database of its own on that Postgres, at 0017, holding `from`'s products (copied in text form). */
async function postgresAt0017(serverUrl: string, from: PGlite) {
  const created = await createPostgresDatabase(serverUrl);
  const raw = postgres(created.url, { max: 1, onnotice: () => undefined });
  const upTo = migrationsUpTo(BEFORE);
  await pgMigrate(pgDrizzle(raw), { migrationsFolder: upTo.folder });
  upTo.remove();
  // Every stored column but the generated one.
  const columns = (
    await from.query<{ name: string }>(
      "select column_name as name from information_schema.columns where table_name = 'products' and is_generated = 'NEVER' order by ordinal_position",
    )
  ).rows.map((row) => `"${row.name}"`);
  const { blob } = await from.query(`copy products (${columns.join(", ")}) to '/dev/blob'`);
  const rows = Buffer.from(await blob!.arrayBuffer());
  await pipeline(Readable.from([rows]), await raw.unsafe(`copy products (${columns.join(", ")}) from stdin`).writable());
  const query: Query = async <T>(text: string) => (await raw.unsafe(text)) as unknown as T[];
  await query("vacuum analyze products");
  return {
    url: created.url,
    query,
    close: async () => {
      await raw.end();
      await created.drop();
    },
  };
}

/**
 * The same rows on real Postgres: sizes before, after migrate() converted them, after VACUUM FULL, and its time; and,
 * on a second copy, the time of the one-statement alternative (ALTER TABLE … TYPE halfvec, the index made again).
 */
async function onPostgres(serverUrl: string, from: PGlite) {
  const db = await postgresAt0017(serverUrl, from);
  const other = await postgresAt0017(serverUrl, from);
  try {
    const before = await sizes(db.query);
    const handle = openPostgres({ url: db.url, max: 1 });
    const times = await timedMigrate(handle);
    await handle.close();
    await db.query("vacuum analyze products");
    const after = await sizes(db.query);
    await db.query("vacuum full products");
    const compacted = await sizes(db.query);
    const started = performance.now();
    await other.query(`drop index products_embedding_idx;
      alter table products alter column embedding type halfvec(${EMBEDDING_DIMENSIONS});
      create index products_embedding_idx on products using hnsw (embedding halfvec_cosine_ops)`);
    const alterMs = performance.now() - started;
    return { before, after, compacted, times, alterMs };
  } finally {
    await db.close();
    await other.close();
  }
}

async function main(): Promise<void> {
  if (!relevanceDataPresent()) {
    console.log(`skipped: ${DATA} is absent (the relevance data lives beside the repository in ../shared)`);
    return;
  }
  const source = await fullPrecisionCatalog();
  const copy = mkdtempSync(join(tmpdir(), "bench-halfvec-"));
  cpSync(source, copy, { recursive: true });
  const embedder = await createLocalEmbedder();
  const vectors = await embedder.embed(loadDevQueries().queries.map(([, q]) => q));

  // Full precision: the catalog at 0017.
  let opened = await openPglite(copy);
  // Compacted as the half-precision catalog is below (the import's updates left dead rows), so the two compare.
  await opened.client.exec("vacuum full products");
  log("full precision: measuring…\n");
  const full = await measure(opened.handle, opened.client, embedder, vectors);
  const exact10 = await topK(opened.handle, vectors, 10, true);
  const exact50 = await topK(opened.handle, vectors, 50, true);
  const postgresFigures = POSTGRES_URL ? await onPostgres(POSTGRES_URL, opened.client) : undefined;
  await opened.handle.close();

  // Half precision. The service keeps PGlite's vectors in full precision (db/halfvec.ts), so this copy is converted
  // by one statement, to the same values migrate() gives on Postgres (tests/integration/halfvec-migration.test.ts).
  opened = await openPglite(copy);
  const started = performance.now();
  await opened.client.exec(`drop index products_embedding_idx;
    alter table products alter column embedding type halfvec(${EMBEDDING_DIMENSIONS});
    create index products_embedding_idx on products using hnsw (embedding halfvec_cosine_ops)`);
  const pgliteAlterMs = performance.now() - started;
  log("\nhalf precision: measuring…\n");
  const half = await measure(opened.handle, opened.client, embedder, vectors);
  await opened.client.exec("vacuum full products");
  const compacted = await sizes(pgliteQuery(opened.client));
  await opened.handle.close();
  await embedder.close();
  rmSync(copy, { recursive: true, force: true });

  print({ full, half, compacted, pgliteAlterMs, exact10, exact50, postgresFigures });
}

function print(r: {
  full: Arm;
  half: Arm;
  compacted: Sizes;
  pgliteAlterMs: number;
  exact10: string[][];
  exact50: string[][];
  postgresFigures: Awaited<ReturnType<typeof onPostgres>> | undefined;
}): void {
  const commit = execSync("git rev-parse --short HEAD", { cwd: ROOT }).toString().trim();
  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `\n${new Date().toISOString().slice(0, 16)} UTC at ${commit}, ${cpus().length} cores (${cpus()[0]?.model.trim()}), node ${process.version}, load ${load}`,
  );
  console.log(`CrowdFlower catalog, ${r.full.sizes.rows} products, 512 dimensions; PGlite:\n`);
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const per = (bytes: number, rows: number) => Math.round(bytes / rows).toLocaleString("en-US");
  console.log(
    "| vectors | dev nDCG@10 | recall@10 (HNSW vs exact full) | recall@50 | vector bytes | table MiB (B/row) | heap MiB | TOAST MiB | HNSW index MiB (B/row) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  const row = (name: string, s: Sizes, arm?: Arm) =>
    console.log(
      `| ${name} | ${arm ? arm.ndcg.toFixed(4) : ""} | ${arm ? recall(arm.hnsw10, r.exact10).toFixed(3) : ""} | ${arm ? recall(arm.hnsw50, r.exact50).toFixed(3) : ""} | ` +
        `${s.vector.toFixed(0)} | ${mb(s.table)} (${per(s.table, s.rows)}) | ${mb(s.heap)} | ${mb(s.toast)} | ${mb(s.index)} (${per(s.index, s.rows)}) |`,
    );
  row("full (`vector`), after VACUUM FULL", r.full.sizes, r.full);
  row("half (`halfvec`), by ALTER TABLE", r.half.sizes, r.half);
  row("half, after VACUUM FULL", r.compacted);
  console.log(
    `\nnDCG@10 half − full: ${(r.half.ndcg - r.full.ndcg).toFixed(4)} (goal: within 0.002); converted by one ALTER TABLE (the index made again): ${(r.pgliteAlterMs / 1000).toFixed(1)} s`,
  );
  const pg = r.postgresFigures;
  if (pg) {
    console.log("\nPostgres (the same rows, converted by migrate()):\n");
    console.log("| state | vector bytes | table MiB (B/row) | heap MiB | TOAST MiB | HNSW index MiB (B/row) |");
    console.log("|---|---|---|---|---|---|");
    for (const [name, s] of [
      ["full", pg.before],
      ["half, converted in place", pg.after],
      ["half, after VACUUM FULL", pg.compacted],
    ] as const) {
      console.log(
        `| ${name} | ${s.vector.toFixed(0)} | ${mb(s.table)} (${per(s.table, s.rows)}) | ${mb(s.heap)} | ${mb(s.toast)} | ${mb(s.index)} (${per(s.index, s.rows)}) |`,
      );
    }
    console.log(
      `\nconversion in place on Postgres, online: ${describeTimes(pg.times, pg.before.rows)}; ` +
        `one ALTER TABLE … TYPE halfvec and the index made again: ${(pg.alterMs / 1000).toFixed(1)} s, the table locked throughout`,
    );
  }
}

await main();
