/**
 * npm run bench:million-profile [-- --products N] [--names P] [--postgres URL] [--matching M]
 *
 * Where a product's load goes on Postgres, for bench:million's generated catalog (vectors supplied), at N products
 * (default 10,000), each configuration into a new database of its own, in one run:
 *   - the client alone: generating the NDJSON lines (the benchmark's own cost), reading them (parseLine: JSON, schema),
 *     preparing the records (prepareRecord);
 *   - the write alone (upsertProducts, batches of 64, a transaction each, the rows already made), as migrated, then
 *     with, one after another, the HNSW index, the full-text GIN index, the other GIN indexes, the triggers and the
 *     other secondary indexes dropped before the load: each row's difference is what that part costs;
 *   - importRecords as `catalog import` runs it (batches of 64, no matching), and with `--bulk` (batches of 1,000,
 *     indexes built after the load), the build timed apart;
 *   - with matching, on M products (default 2,000): the import with matching against without.
 * CPU is this process's and the Postgres cluster's (the postmaster, every process it started, and those that ended:
 * backends, parallel workers, autovacuum), from /proc.
 */
import { readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { upsertProductsInBulk } from "../server/catalog/bulk.js";
import { upsertProducts, type UpsertRow } from "../server/catalog/repository.js";
import { deferIndexes } from "../server/db/deferred-indexes.js";
import { CLI_TIMEOUTS, type DatabaseHandle, openPostgres } from "../server/db/open.js";
import { importRecords, type ImportOptions } from "../server/ingest/import.js";
import { type ParsedLine, parseLine } from "../server/ingest/ndjson.js";
import { prepareRecord } from "../server/ingest/record.js";
import type { Embedder } from "../server/search/embedder.js";
import { createPostgresDatabase } from "../tests/helpers/postgres-database.js";
import { namePool, productTexts } from "./million-data.js";

const { values: flags } = parseArgs({
  options: {
    products: { type: "string", default: "10000" },
    names: { type: "string", default: "3000" },
    postgres: { type: "string" },
    matching: { type: "string", default: "2000" },
  },
});
const N = Number(flags.products);
const M = Number(flags.matching);
const URL_ = flags.postgres ?? process.env.TEST_POSTGRES_URL;
if (!URL_) throw new Error("bench:million-profile needs a Postgres with pgvector: --postgres URL, or TEST_POSTGRES_URL");
const log = (line: string) => process.stderr.write(`${line}\n`);
const out: string[] = [];

/** CPU seconds of a process and of its children that ended (utime, stime, cutime, cstime), from /proc. */
function stat(pid: number): { ppid: number; own: number; children: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const tick = 100;
    return {
      ppid: Number(fields[1]),
      own: (Number(fields[11]) + Number(fields[12])) / tick,
      children: (Number(fields[13]) + Number(fields[14])) / tick,
    };
  } catch {
    return null;
  }
}

/** The cluster's CPU seconds: its postmaster, the processes it started, and those that ended. */
function clusterCpu(postmaster: number): number {
  const root = stat(postmaster);
  let total = root ? root.own + root.children : 0;
  for (const name of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    const child = stat(Number(name));
    if (child?.ppid === postmaster) total += child.own;
  }
  return total;
}

async function postmasterOf(url: string): Promise<number> {
  const client = postgres(url, { max: 1, onnotice: () => undefined });
  const [row] = await client<{ pid: number }[]>`select pg_backend_pid() as pid`;
  const backend = stat(row!.pid);
  await client.end();
  if (!backend) throw new Error("bench:million-profile: the Postgres server's processes are not in this machine's /proc");
  return backend.ppid;
}

interface Measured {
  seconds: number;
  client: number;
  server: number;
}

async function measure(postmaster: number, work: () => Promise<unknown>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const server = clusterCpu(postmaster);
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, client: (used.user + used.system) / 1e6, server: clusterCpu(postmaster) - server };
}

function row(label: string, products: number, m: Measured, note = ""): void {
  const perProduct = (seconds: number) => ((seconds * 1000) / products).toFixed(3);
  const line = `| ${label} | ${products.toLocaleString("en")} | ${(products / m.seconds).toFixed(0)} | ${perProduct(m.seconds)} | ${perProduct(m.client)} | ${perProduct(m.server)} | ${note} | load ${loadavg()[0]!.toFixed(1)} |`;
  out.push(line);
  log(line);
}

async function freshDatabase(): Promise<{ handle: DatabaseHandle; url: string; drop: () => Promise<void> }> {
  const created = await createPostgresDatabase(URL_!);
  const handle = openPostgres({ url: created.url, max: 4, timeouts: CLI_TIMEOUTS });
  await handle.migrate();
  return {
    handle,
    url: created.url,
    drop: async () => {
      await handle.close();
      await created.drop();
    },
  };
}

/** What is dropped before each write-alone load: each adds to the one before. */
const STRIPPED: { label: string; ddl: string[] }[] = [
  { label: "as migrated", ddl: [] },
  { label: "without the HNSW index", ddl: ["drop index products_embedding_idx"] },
  { label: "and without the full-text GIN index (the tsvector still made)", ddl: ["drop index products_search_idx"] },
  {
    label: "and without the other 4 GIN indexes",
    ddl: ["products_brand_keys_idx", "products_variant_sku_idx", "products_colours_idx", "products_match_keys_idx"].map((i) => `drop index ${i}`),
  },
  {
    label: "and without the triggers (facets mirror per row, vocabulary and lexemes per statement)",
    ddl: [
      "drop trigger products_sync_facets on products",
      "drop trigger search_vocabulary_insert on products",
      "drop trigger search_vocabulary_update on products",
      "drop trigger search_lexemes_insert on products",
      "drop trigger search_lexemes_update on products",
    ],
  },
  {
    label: "and without the 12 other secondary b-trees (primary key and URL key left)",
    ddl: [
      "products_brand_host_idx",
      "products_price_idx",
      "products_category_idx",
      "products_availability_idx",
      "products_created_idx",
      "products_gtin14_idx",
      "products_sku_idx",
      "products_derived_idx",
      "products_checked_idx",
      "products_updated_idx",
      "products_fetch_key_idx",
      "products_group_idx",
    ].map((i) => `drop index ${i}`),
  },
];

const suppliedOnly = (model: string): Embedder => ({
  model,
  dimensions: 512,
  embed: async () => {
    throw new Error("a record without its vector");
  },
  close: async () => undefined,
});

async function main(): Promise<void> {
  log(
    `bench:million-profile — ${N} products, ${new Date().toISOString().slice(0, 16)} UTC, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`,
  );
  const pool = await namePool(Number(flags.names), cpus().length);
  const postmaster = await postmasterOf(URL_!);
  let texts: string[] = [];
  row(
    "client: generate the NDJSON lines (the benchmark's, not the import's: bench:million makes them on a thread of their own)",
    N,
    await measure(postmaster, async () => {
      texts = [...productTexts(pool, N, 0, N)];
    }),
  );
  let lines: ParsedLine[] = [];
  row(
    "client: read them (parseLine: JSON, the record's schema, 512 numbers)",
    N,
    await measure(postmaster, async () => {
      lines = texts.map((text, index) => parseLine("generated", index + 1, text));
    }),
  );
  let rows: UpsertRow[] = [];
  row(
    "client: prepare the records (prepareRecord)",
    N,
    await measure(postmaster, async () => {
      rows = lines.flatMap((line) => {
        if (!("record" in line)) return [];
        const { embeddingText: _text, ...record } = prepareRecord(line.record);
        return [
          {
            ...record,
            searchLang: record.lang ?? "en",
            matchKeys: [],
            matchedWith: null,
            embedding: line.record.embedding!.vector,
            embeddingModel: pool.model,
          },
        ];
      });
    }),
  );

  const applied: string[] = [];
  for (const { label, ddl } of STRIPPED) {
    applied.push(...ddl);
    const db = await freshDatabase();
    for (const statement of applied) await db.handle.db.execute(sql.raw(statement));
    const m = await measure(postmaster, async () => {
      for (let at = 0; at < rows.length; at += 64) await db.handle.db.transaction((tx) => upsertProducts(tx, rows.slice(at, at + 64)));
    });
    row(`write alone (upsertProducts, batches of 64), ${label}`, N, m);
    await db.drop();
  }

  {
    const db = await freshDatabase();
    await db.handle.longStatements((long) => deferIndexes(long));
    const m = await measure(postmaster, async () => {
      for (let at = 0; at < rows.length; at += 1000) await db.handle.db.transaction((tx) => upsertProductsInBulk(tx, rows.slice(at, at + 1000)));
    });
    row("write alone, the bulk upsert (one JSON parameter, batches of 1,000), the HNSW and full-text indexes put off", N, m);
    await db.drop();
  }

  const importOnce = async (label: string, count: number, options: ImportOptions, matching: boolean) => {
    const db = await freshDatabase();
    const deps = { db: db.handle.db, embedder: suppliedOnly(pool.model), ...(matching ? {} : { matching: null }) };
    const m = await measure(postmaster, () => importRecords(deps, lines.slice(0, count), { ...options }));
    row(label, count, m);
    await db.drop();
  };
  await importOnce("importRecords as `catalog import` runs it (batches of 64, no matching)", N, {}, false);
  await importOnce("importRecords, batches of 1,000 (no matching)", N, { batchSize: 1000 }, false);
  const bulk = await freshDatabase();
  let building = 0;
  const bulkLoad = { longStatements: bulk.handle.longStatements, onIndexing: () => (building = performance.now()) };
  const loaded = await measure(postmaster, async () => {
    await importRecords({ db: bulk.handle.db, embedder: suppliedOnly(pool.model), matching: null }, lines, { bulk: bulkLoad });
  });
  const built = (performance.now() - building) / 1000;
  row("importRecords `--bulk` (batches of 1,000, no matching), the index build included", N, loaded, `the build ${built.toFixed(1)} s`);
  await bulk.drop();
  await importOnce("importRecords, no matching", M, {}, false);
  await importOnce("importRecords, with matching", M, {}, true);

  process.stdout.write(
    [
      "",
      `bench:million-profile — ${N.toLocaleString("en")} products, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${cpus().length} × ${cpus()[0]?.model.trim()}`,
      "",
      "| stage | products | products/s | wall ms/product | CPU ms/product (this process) | CPU ms/product (Postgres) | | load |",
      "|---|---|---|---|---|---|---|---|",
      ...out,
      "",
    ].join("\n"),
  );
}

await main();
process.exit(0);
