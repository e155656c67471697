/**
 * npm run bench:partition [-- --products N] [--rows R] [--partitions P] [--queries Q] [--postgres URL]
 *
 * What partitioning products by merchant changes on one Postgres, measured (docs/operations.md, "Past one
 * machine"). It reads the rows of bench:million's catalog (`bench_million_N`: run `npm run bench:million --
 * --products N` first) and copies the first R of them (default 20,000) into two tables of the same columns in a
 * schema of its own: `plain`, as products is (keyed by id), and `part`, hash-partitioned by merchant (brand_host)
 * into P partitions (default 16), keyed by (brand_host, id), with the same indexes (HNSW, full text GIN, url_key,
 * brand_host) on each partition. Then, for each, in one run:
 *   - writing: the rows inserted in batches of 64, a transaction each, through every index (the write's share of
 *     an import), rows a second;
 *   - vector search over all merchants and within one merchant, full-text search, and a lookup by id alone and by
 *     (merchant, id): p50 / p95 of Q queries each (query vectors: stored products' vectors).
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { VECTOR_SESSION_SETTINGS } from "../server/db/vector-settings.js";
import { percentile } from "./relevance-data.js";

const { values: flags } = parseArgs({
  options: {
    products: { type: "string", default: "100000" },
    rows: { type: "string", default: "20000" },
    partitions: { type: "string", default: "16" },
    queries: { type: "string", default: "100" },
    postgres: { type: "string" },
  },
});
const ROWS = Number(flags.rows);
const PARTITIONS = Number(flags.partitions);
const QUERIES = Number(flags.queries);
const serverUrl = flags.postgres ?? process.env.TEST_POSTGRES_URL;
if (!serverUrl) throw new Error("bench:partition needs --postgres URL or TEST_POSTGRES_URL (.ci/postgres.sh start)");
const url = new URL(serverUrl);
url.pathname = `/bench_million_${flags.products}`;
const db = postgres(url.toString(), { max: 1, onnotice: () => undefined });
const log = (message: string) => process.stderr.write(`${message}\n`);

/** The embedding column's type as declared (vector or halfvec, whichever the migrations made), and its cosine opclass. */
async function vectorType(): Promise<{ type: string; opclass: string }> {
  const [row] = await db<{ type: string }[]>`
    select format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = 'products'::regclass and attname = 'embedding'`;
  if (!row) throw new Error(`no products table in ${url.pathname.slice(1)}: run npm run bench:million -- --products ${flags.products} first`);
  return { type: row.type, opclass: `${row.type.replace(/\(.*$/, "")}_cosine_ops` };
}

/** The two tables, empty, with their indexes; answers the columns to copy (every one but the generated). */
async function createTables(opclass: string): Promise<string> {
  const columns = await db<{ name: string }[]>`
    select column_name as name from information_schema.columns
    where table_schema = 'public' and table_name = 'products' and is_generated = 'NEVER' order by ordinal_position`;
  await db.unsafe(`
    drop schema if exists partition_bench cascade;
    create schema partition_bench;
    create table partition_bench.plain (like products including defaults including generated, primary key (id));
    create unique index on partition_bench.plain (url_key);
    create table partition_bench.part (like products including defaults including generated, primary key (brand_host, id))
      partition by hash (brand_host);
    create unique index on partition_bench.part (brand_host, url_key);
  `);
  for (let i = 0; i < PARTITIONS; i++)
    await db.unsafe(
      `create table partition_bench.part_${i} partition of partition_bench.part for values with (modulus ${PARTITIONS}, remainder ${i})`,
    );
  for (const table of ["plain", "part"]) {
    await db.unsafe(`
      create index on partition_bench.${table} (brand_host);
      create index on partition_bench.${table} using gin (search);
      create index on partition_bench.${table} using hnsw (embedding ${opclass});`);
  }
  return columns.map((column) => `"${column.name}"`).join(", ");
}

/** The first ROWS products' ids, in batches of 64. */
async function batches(): Promise<string[][]> {
  const ids = (await db<{ id: string }[]>`select id from products order by id limit ${ROWS}`).map((row) => row.id);
  return Array.from({ length: Math.ceil(ids.length / 64) }, (_, i) => ids.slice(i * 64, i * 64 + 64));
}

async function write(table: string, columns: string, idBatches: string[][]): Promise<number> {
  const started = performance.now();
  for (const ids of idBatches)
    await db.begin((tx) => tx.unsafe(`insert into partition_bench.${table} (${columns}) select ${columns} from products where id = any($1)`, [ids]));
  const rate = ROWS / ((performance.now() - started) / 1000);
  await db.unsafe(`vacuum analyze partition_bench.${table}`);
  return rate;
}

/** p50 and p95 of one query over the given parameters, after 5 to warm. */
async function timed(query: string, params: unknown[][]): Promise<string> {
  for (const p of params.slice(0, 5)) await db.unsafe(query, p as never[]);
  const took: number[] = [];
  for (const p of params) {
    const started = performance.now();
    await db.unsafe(query, p as never[]);
    took.push(performance.now() - started);
  }
  return `${percentile(took, 50).toFixed(1)} / ${percentile(took, 95).toFixed(1)}`;
}

async function main(): Promise<void> {
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const header = `bench:partition — ${ROWS.toLocaleString("en")} of bench_million_${flags.products}'s products, ${PARTITIONS} hash partitions by merchant, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit}, ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.versions.node}, load average ${loadavg()[0]!.toFixed(1)} at the start`;
  log(header);
  const { type, opclass } = await vectorType();
  const columns = await createTables(opclass);
  const idBatches = await batches();
  const rates: Record<string, number> = {};
  for (const table of ["plain", "part"]) {
    rates[table] = await write(table, columns, idBatches);
    log(`  ${table}: ${rates[table]!.toFixed(0)} rows/s`);
  }
  for (const [name, value] of Object.entries(VECTOR_SESSION_SETTINGS)) await db.unsafe(`select set_config($1, $2, false)`, [name, value]);
  const sample = await db<{ id: string; host: string; vector: string; word: string }[]>`
    select id, brand_host as host, embedding::text as vector, split_part(name, ' ', 1) as word
    from partition_bench.plain order by random() limit ${QUERIES}`;
  const cases: [string, (table: string) => string, (s: (typeof sample)[number]) => unknown[]][] = [
    ["vector top 50, every merchant", (t) => `select id from partition_bench.${t} order by embedding <=> $1::${type} limit 50`, (s) => [s.vector]],
    [
      "vector top 50, one merchant",
      (t) => `select id from partition_bench.${t} where brand_host = $2 order by embedding <=> $1::${type} limit 50`,
      (s) => [s.vector, s.host],
    ],
    [
      "full text top 50, every merchant",
      (t) =>
        `select id from partition_bench.${t} where search @@ plainto_tsquery('english', $1) order by ts_rank(search, plainto_tsquery('english', $1)) desc limit 50`,
      (s) => [s.word],
    ],
    ["get by id alone", (t) => `select * from partition_bench.${t} where id = $1`, (s) => [s.id]],
    ["get by merchant and id", (t) => `select * from partition_bench.${t} where brand_host = $2 and id = $1`, (s) => [s.id, s.host]],
  ];
  const lines = [
    "",
    header,
    "",
    `| measure | unpartitioned | ${PARTITIONS} partitions by merchant |`,
    "|---|---|---|",
    `| write, batches of 64 through every index (rows/s) | ${rates.plain!.toFixed(0)} | ${rates.part!.toFixed(0)} |`,
  ];
  for (const [label, query, params] of cases) {
    const figures = [];
    for (const table of ["plain", "part"]) figures.push(await timed(query(table), sample.map(params)));
    lines.push(`| ${label}, p50 / p95 ms | ${figures.join(" | ")} |`);
  }
  lines.push("", `load average ${loadavg()[0]!.toFixed(1)} at the end`, "");
  process.stdout.write(lines.join("\n"));
  await db.unsafe("drop schema partition_bench cascade");
  await db.end();
}

await main();
