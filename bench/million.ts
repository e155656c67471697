/**
 * npm run bench:million [-- --products N] [--names P] [--batch B] [--postgres URL] [--reuse] [--seconds S] [--runs R]
 *   [--no-matching] [--bulk] [--maintenance-mem 2GB]
 *
 * A catalog of N generated products (default 1,000,000; `--products 100000` for a quick check) on a real Postgres
 * with pgvector (--postgres, or TEST_POSTGRES_URL from .ci/postgres.sh), in a database of its own
 * (`bench_million_N`, kept for `--reuse`). Vectors are supplied in the records (million-data.ts: a pool of P distinct
 * base names embedded once by the real encoder, reused; the lines' text made on a thread of its own, as a file's would
 * be read), so the load measures the import and the database. Prints, each beside a floor from the same run:
 *   - the load through importRecords as `catalog import` runs it (NDJSON lines parsed; matching on, unless
 *     --no-matching; with --bulk as `catalog import --bulk`: batches of 1,000, the HNSW and full-text indexes built
 *     after the load, timed apart), against products written by the upsert alone (a transaction a batch);
 *   - table and index sizes;
 *   - single-connection search p50/p95 (unfiltered, filtered, with facets, a filtered browse with facets), get-by-id
 *     p50/p99 and change-feed pages, through the services (product cache off), against the SQL each call issued,
 *     replayed straight to the database (million-floor.ts);
 *   - searches a second over HTTP at 8 and 32 connections, the server at WEB_CONCURRENCY=2, against the same
 *     searches' SQL replayed on 8 and 32 connections; get-by-id over HTTP on one connection.
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { createKeyService } from "../server/auth/service.js";
import { upsertProductsInBulk } from "../server/catalog/bulk.js";
import { upsertProducts, type UpsertRow } from "../server/catalog/repository.js";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import type { Database } from "../server/db/client.js";
import { deferIndexes } from "../server/db/deferred-indexes.js";
import { CLI_TIMEOUTS, type DatabaseHandle, openPostgres } from "../server/db/open.js";
import { products } from "../server/db/schema.js";
import { importRecords } from "../server/ingest/import.js";
import type { ParsedLine } from "../server/ingest/ndjson.js";
import { prepareRecord } from "../server/ingest/record.js";
import type { Embedder } from "../server/search/embedder.js";
import { createThreadedEmbedder } from "../server/search/embedders/threads.js";
import { SearchParamsSchema, type SearchParams } from "../shared/schemas/index.js";
import { searchQueries } from "./http-catalog.js";
import { load } from "./http-load.js";
import { startServerOnPostgres } from "./http-server.js";
import { capturingHandle, replayConcurrently, replayer, type Statement } from "./million-floor.js";
import { type NamePool, namePool, productLines, productLinesThreaded } from "./million-data.js";
import { percentile } from "./relevance-data.js";

const { values: flags } = parseArgs({
  options: {
    products: { type: "string", default: "1000000" },
    names: { type: "string", default: "3000" },
    batch: { type: "string", default: "64" },
    postgres: { type: "string" },
    reuse: { type: "boolean", default: false },
    seconds: { type: "string", default: "10" },
    runs: { type: "string", default: "100" },
    /** Load without matching (as bench:import's baseline): what matching costs a load. */
    "no-matching": { type: "boolean", default: false },
    /** Load as `catalog import --bulk` does (batches of 1,000, indexes built after the load). */
    bulk: { type: "boolean", default: false },
    /** The database's maintenance_work_mem, which the index builds run in. */
    "maintenance-mem": { type: "string", default: "2GB" },
  },
});
const N = Number(flags.products);
const BULK = flags.bulk;
const BATCH = BULK && flags.batch === "64" ? 1000 : Number(flags.batch);
const SECONDS = Number(flags.seconds);
const RUNS = Number(flags.runs);
const SERVER_URL = flags.postgres ?? process.env.TEST_POSTGRES_URL;
if (!SERVER_URL) throw new Error("bench:million needs a Postgres with pgvector: --postgres URL, or TEST_POSTGRES_URL from .ci/postgres.sh start");
const log = (message: string) => process.stderr.write(`${message}\n`);
const load1 = () => loadavg()[0]!.toFixed(1);
const out: string[] = [];
const row = (...cells: (string | number)[]) => out.push(`| ${cells.join(" | ")} |`);
const ms = (value: number) => value.toFixed(1);

/** The benchmark's database on the server, and whether it already holds the N products (`--reuse`). */
async function database(): Promise<{ url: string; loaded: boolean }> {
  const name = `bench_million_${N}`;
  const url = new URL(SERVER_URL!);
  url.pathname = `/${name}`;
  const admin = postgres(SERVER_URL!, { max: 1, onnotice: () => undefined });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (exists && flags.reuse) {
      const probe = postgres(url.toString(), { max: 1, onnotice: () => undefined });
      const [{ n } = { n: 0 }] = await probe<{ n: number }[]>`select count(*)::int as n from products`.catch(() => [{ n: -1 }]);
      await probe.end();
      if (n === N) return { url: url.toString(), loaded: true };
    }
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
    // What an operator sets for a bulk load (operations.md): the HNSW build in memory, not spilled.
    await admin.unsafe(`alter database ${name} set maintenance_work_mem = '${flags["maintenance-mem"]}'`);
  } finally {
    await admin.end();
  }
  return { url: url.toString(), loaded: false };
}

/** Every record carries its vector: an encoder asked for one is a fault of the benchmark. */
function suppliedOnly(model: string): Embedder {
  return {
    model,
    dimensions: 512,
    embed: async () => {
      throw new Error("bench:million: a record without its vector");
    },
    close: async () => undefined,
  };
}

/** The rows of NDJSON lines as the import stores them (vectors supplied), for the floor's upsert alone. */
function floorRows(lines: readonly ParsedLine[], model: string): UpsertRow[] {
  return lines.flatMap((line) => {
    if (!("record" in line)) return [];
    const { embeddingText: _text, ...record } = prepareRecord(line.record);
    const vector = line.record.embedding!.vector;
    return [{ ...record, searchLang: record.lang ?? "en", matchKeys: [], matchedWith: null, embedding: vector, embeddingModel: model }];
  });
}

/** F products by the upsert alone (the floor), a transaction a batch, on `writers` connections: answers products a second. */
async function floorLoad(handle: DatabaseHandle, rows: readonly UpsertRow[], writers = 1): Promise<number> {
  const started = performance.now();
  const upsert = BULK ? upsertProductsInBulk : upsertProducts;
  let next = 0;
  const writer = async () => {
    for (let at = next; at < rows.length; at = next) {
      next += BATCH;
      await handle.db.transaction((tx) => upsert(tx, rows.slice(at, at + BATCH)));
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return rows.length / ((performance.now() - started) / 1000);
}

/**
 * With `--reuse --bulk`, into a copy of the loaded catalog's database: 10,000 more products by the bulk upsert alone on
 * one connection and on two (the database's own pace at this size, the load's indexes put off), then 20,000 more by
 * importRecords as `catalog import --bulk` runs them, stopped where it would build the indexes over the whole copy.
 */
async function floorAtSize(url: string, pool: NamePool): Promise<void> {
  const copy = new URL(url);
  copy.pathname = `${copy.pathname}_floor`;
  const admin = postgres(SERVER_URL!, { max: 1, onnotice: () => undefined });
  const name = copy.pathname.slice(1);
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name} template ${new URL(url).pathname.slice(1)}`);
  const handle = openPostgres({ url: copy.toString(), max: 3, timeouts: CLI_TIMEOUTS });
  try {
    await handle.migrate();
    await handle.longStatements((long) => deferIndexes(long));
    const count = 10_000;
    for (const [writers, from] of [
      [1, N],
      [2, N + count],
    ] as const) {
      const rows = floorRows([...productLines(pool, N, from, from + count)], pool.model);
      const rate = await floorLoad(handle, rows, writers);
      row(
        `floor at this size: ${count.toLocaleString("en")} more by the bulk upsert alone, ${writers} connection${writers > 1 ? "s" : ""}`,
        `${rate.toFixed(0)}/s`,
        `load ${load1()}`,
        "",
      );
    }
    const more = 2 * count;
    const started = performance.now();
    let seconds = 0;
    const stop = () => {
      seconds = (performance.now() - started) / 1000;
      throw new Error("stopped before the index build");
    };
    await importRecords(
      { db: handle.db, embedder: suppliedOnly(pool.model), matching: null },
      productLinesThreaded(pool, N, N + 2 * count, N + 2 * count + more),
      {
        bulk: { longStatements: handle.longStatements, onIndexing: stop },
      },
    ).catch((error: Error) => {
      if (seconds === 0) throw error;
    });
    row(
      `import at this size: ${more.toLocaleString("en")} more by importRecords --bulk (no matching), to its index build`,
      `${(more / seconds).toFixed(0)}/s`,
      `load ${load1()}`,
      "goal ≥ 2,000/s",
    );
  } finally {
    await handle.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/**
 * Loads N − F products through importRecords and F by the upsert alone (the floor); prints both rates. The ordinary
 * load: the floor after the import, into the loaded table. A bulk load (`--bulk`): the floor first, into the empty table
 * with the load's indexes put off, then the import, which builds them over all N when it ends (timed apart).
 */
async function loadCatalog(url: string, pool: NamePool): Promise<void> {
  const handle = openPostgres({ url, max: 4, timeouts: CLI_TIMEOUTS });
  await handle.migrate();
  const floorCount = Math.min(20_000, Math.round(N / 10));
  const importCount = N - floorCount;
  const floorLines = [...productLines(pool, N, importCount, N)];
  let floorRate = 0;
  if (BULK) {
    await handle.longStatements((long) => deferIndexes(long));
    floorRate = await floorLoad(handle, floorRows(floorLines, pool.model));
  }
  const loadAvg: string[] = [load1()];
  const started = performance.now();
  let tail = { at: started, done: 0 };
  const tailFrom = importCount - floorCount;
  let lastLog = started;
  let loaded = 0;
  let indexing = 0;
  let matching = 0;
  const summary = await importRecords(
    { db: handle.db, embedder: suppliedOnly(pool.model), ...(flags["no-matching"] ? { matching: null } : {}) },
    productLinesThreaded(pool, N, 0, importCount),
    {
      batchSize: BATCH,
      onProgress: (s) => {
        const done = s.imported + s.updated + s.unchanged + s.failed;
        const now = performance.now();
        if (done >= tailFrom && tail.done === 0) tail = { at: now, done };
        if (now - lastLog < 10_000) return;
        lastLog = now;
        loadAvg.push(load1());
        log(`  loaded ${done} of ${importCount}, ${(done / ((now - started) / 1000)).toFixed(0)}/s, load ${load1()}`);
      },
      ...(BULK
        ? {
            bulk: {
              longStatements: handle.longStatements,
              onIndexing: (names: string[]) => {
                loaded = performance.now();
                loadAvg.push(load1());
                log(`  loaded; building ${names.join(", ")} over ${N} products, load ${load1()}`);
              },
              onMatching: (done: number, total: number) => {
                matching ||= performance.now();
                if (done % 20_000 === 0) log(`  matched ${done} of ${total}, load ${load1()}`);
              },
            },
          }
        : {}),
    },
  );
  const ended = performance.now();
  indexing = BULK ? (matching || ended) - loaded : 0;
  loadAvg.push(load1());
  const seconds = ((loaded || ended) - started) / 1000;
  // The last F products' rate (the progress is said a batch at a time: with batches as large as F, the whole load's).
  const tailRate =
    tail.done > 0 && tail.done < importCount ? (importCount - tail.done) / (((loaded || ended) - tail.at) / 1000) : importCount / seconds;
  if (summary.failed > 0) throw new Error(`bench:million: ${summary.failed} lines failed: ${summary.failures[0]?.reason}`);
  if (!BULK) floorRate = await floorLoad(handle, floorRows(floorLines, pool.model));
  const how = BULK ? "`--bulk`, batches of 1,000, indexes put off" : `batches of ${BATCH}`;
  row(
    `load ${importCount.toLocaleString("en")} products (importRecords, vectors supplied, ${how}${flags["no-matching"] ? ", no matching" : ""})`,
    `${(importCount / seconds).toFixed(0)}/s overall, ${tailRate.toFixed(0)}/s over the last ${floorCount.toLocaleString("en")}`,
    `${seconds.toFixed(0)} s, load average ${loadAvg.join(" → ")}`,
    "goal ≥ 2,000/s",
  );
  row(
    `floor: ${floorCount.toLocaleString("en")} by the upsert alone${BULK ? " (the bulk upsert, before the load, indexes put off)" : " (after the load)"}`,
    `${floorRate.toFixed(0)}/s`,
    "",
    `import at ${((tailRate / floorRate) * 100).toFixed(0)}% of it`,
  );
  if (BULK) {
    row(`the indexes put off, built over ${N.toLocaleString("en")} products (HNSW, full-text GIN)`, `${(indexing / 1000).toFixed(0)} s`, "", "");
    const total = ((matching || ended) - started) / 1000;
    row("load and index build together", `${(importCount / total).toFixed(0)}/s (${total.toFixed(0)} s)`, "", "goal ≥ 2,000/s");
    if (matching) row("matching after the load", `${((ended - matching) / 1000).toFixed(0)} s`, "", "");
  }
  // Past the CLI's query deadline at a million products: on a connection without it.
  const vacuumed = performance.now();
  await handle.longStatements(async (long) => {
    await long.execute(sql`vacuum analyze products`);
    await long.execute(sql`vacuum analyze product_facets`);
  });
  log(`  vacuum analyze ${((performance.now() - vacuumed) / 1000).toFixed(0)} s, load ${load1()}`);
  await handle.close();
}

/** The products table, each of its indexes, and the database, in MB. */
async function sizes(url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => undefined });
  const mb = (bytes: string | number) => `${(Number(bytes) / 1024 / 1024).toFixed(0)} MB`;
  const perProduct = (bytes: string | number) => `${(Number(bytes) / N / 1024).toFixed(2)} KB a product`;
  const [table] =
    await client`select pg_table_size('products') as heap, pg_indexes_size('products') as indexes, pg_database_size(current_database()) as db`;
  row("products table (heap and TOAST)", mb(table!.heap), perProduct(table!.heap), "");
  const indexes =
    await client`select indexrelname as name, pg_relation_size(indexrelid) as bytes from pg_stat_user_indexes where relname = 'products' order by 2 desc`;
  for (const index of indexes.slice(0, 4)) row(`index ${index.name}`, mb(index.bytes), perProduct(index.bytes), "");
  row(
    `the other ${Math.max(0, indexes.length - 4)} indexes of products`,
    mb(indexes.slice(4).reduce((sum, index) => sum + Number(index.bytes), 0)),
    "",
    "",
  );
  row("the whole database (facets mirror, change feed, …)", mb(table!.db), perProduct(table!.db), "");
  await client.end();
}

/** `howMany` products' ids, drawn at random across the table. */
async function someIds(db: Database, howMany: number): Promise<string[]> {
  const rows = await db.select({ id: products.id }).from(products).orderBy(sql`random()`).limit(howMany);
  return rows.map((r) => r.id);
}

interface Timed {
  p50: number;
  p95: number;
  p99: number;
  floor: { p50: number; p95: number; p99: number };
  calls: Statement[][];
}

/**
 * The first `warm` calls once, untimed, then each call timed one at a time on one connection; its captured SQL replayed
 * as the floor. `warm`: all of them where a call's pages would otherwise be read cold only by the service and warm by
 * its replay.
 */
async function timed(handle: ReturnType<typeof capturingHandle>, url: string, calls: (() => Promise<unknown>)[], warm = 5): Promise<Timed> {
  for (const call of calls.slice(0, warm)) await call();
  const took: number[] = [];
  const captured: Statement[][] = [];
  for (const call of calls) {
    const started = performance.now();
    const { statements } = await handle.record(call);
    took.push(performance.now() - started);
    captured.push(statements);
  }
  const raw = replayer(url);
  for (const statements of captured.slice(0, 5)) await raw.replay(statements);
  const floor: number[] = [];
  for (const statements of captured) floor.push(await raw.replay(statements));
  await raw.close();
  const p = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95), p99: percentile(values, 99) });
  return { ...p(took), floor: p(floor), calls: captured };
}

const report = (label: string, t: Timed, goal = "", tail: "p95" | "p99" = "p95") =>
  row(label, `${ms(t.p50)} / ${ms(t[tail])} ms`, `${ms(t.floor.p50)} / ${ms(t.floor[tail])} ms (${t.calls[0]?.length ?? 0} statements)`, goal);

/** Single-connection search, get-by-id and change feed through the services, each beside its SQL replayed. */
async function singleConnection(url: string): Promise<Statement[][]> {
  const handle = capturingHandle(url);
  // In a thread of its own, as the server runs it: the query is encoded while full text is ranked.
  const embedder = await createThreadedEmbedder({ threads: 1 });
  const config = { ...loadConfig({ SAMPLE_CATALOG: "false", LOG_LEVEL: "silent", DATABASE_URL: url }), PRODUCT_CACHE_SIZE: 0 };
  const root = createRoot(config, { role: "cli", database: handle, embedder });
  const services = await root.services();
  const queries = searchQueries(RUNS);
  const CATEGORIES = ["Outdoor", "Kitchen", "Clothing", "Home", "Beauty", "Audio > Headphones", "Food"];
  const filters = { price_min: "20", price_max: "200", currency: "USD", availability: "in_stock" };
  const facets = "brand,category,availability,price";
  const search = (params: Record<string, unknown>) => () => services.search.search(SearchParamsSchema.parse(params) as SearchParams);
  const plain = await timed(
    handle,
    url,
    queries.map((q) => search({ q })),
  );
  report("search, one connection, p50 / p95", plain, "goal p95 ≤ 80 ms");
  report(
    "search with price, availability, category",
    await timed(
      handle,
      url,
      queries.map((q, i) => search({ q, ...filters, category: CATEGORIES[i % 7] })),
    ),
  );
  report(
    "search + facets (brand, category, availability, price)",
    await timed(
      handle,
      url,
      queries.map((q) => search({ q, facets })),
    ),
  );
  report(
    "filtered search + facets",
    await timed(
      handle,
      url,
      queries.map((q, i) => search({ q, ...filters, category: CATEGORIES[i % 7], facets })),
    ),
  );
  const ids = await someIds(handle.db, RUNS * 5);
  report(
    "get by id, one connection, p50 / p99",
    await timed(
      handle,
      url,
      ids.map((id) => () => services.catalog.byId(id, false)),
      // Each product read once before: the replay after would otherwise find warm the pages the service read cold.
      ids.length,
    ),
    "goal p99 ≤ 5 ms",
    "p99",
  );
  let since = 0;
  const pages = Array.from({ length: RUNS }, () => async () => {
    const page = await services.catalog.changes(since, 100);
    since = Number(page.next_cursor);
  });
  report("change feed, a page of 100 from the start, p50 / p95", await timed(handle, url, pages));
  await root.close();
  await embedder.close();
  await handle.close();
  return plain.calls;
}

/** Searches a second over HTTP (WEB_CONCURRENCY=2) at 8 and 32 connections, beside the same SQL on as many connections. */
async function concurrent(url: string, searchCalls: Statement[][]): Promise<void> {
  const handle = openPostgres({ url, max: 1, timeouts: CLI_TIMEOUTS });
  const keys = createKeyService({ db: handle.db, clock: () => new Date(), cacheTtlMs: 30_000 });
  const { key } = await keys.issue({ name: "bench:million", environment: "dev", rateLimitPerMinute: 100_000_000 });
  const ids = await someIds(handle.db, RUNS * 5);
  await handle.close();
  const server = await startServerOnPostgres(url, `million-${N}`, { WEB_CONCURRENCY: "2" });
  const headers = { authorization: key };
  try {
    const searches = searchQueries(5000).map((q) => `/api/v1/products/search?q=${encodeURIComponent(q)}`);
    await load(server.base, searches, headers, 3, 8); // warm both workers
    for (const connections of [8, 32]) {
      const http = await load(server.base, searches, headers, SECONDS, connections);
      const floor = await replayConcurrently(url, searchCalls, connections, SECONDS);
      row(
        `searches a second, ${connections} connections (HTTP, WEB_CONCURRENCY=2)`,
        `${http.rps.toFixed(1)}/s, p50 ${ms(http.p50)} / p95 ${ms(http.p95)} ms${http.busy ? `, ${http.busy} answered 503` : ""}`,
        `${floor.toFixed(1)}/s`,
        `${((http.rps / floor) * 100).toFixed(0)}% of the floor`,
      );
    }
    const byId: number[] = [];
    for (const id of ids.slice(0, RUNS * 5)) {
      const started = performance.now();
      const answer = await fetch(`${server.base}/api/v1/products/${encodeURIComponent(id)}`, { headers });
      await answer.arrayBuffer();
      byId.push(performance.now() - started);
    }
    row("get by id over HTTP, one connection, p50 / p99", `${ms(percentile(byId, 50))} / ${ms(percentile(byId, 99))} ms`, "", "");
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const header = `bench:million — ${N.toLocaleString("en")} products, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
  log(header);
  const { url, loaded } = await database();
  const pool = await namePool(Number(flags.names), cpus().length);
  const loadAtStart = load1();
  if (loaded) log(`reusing ${url}: it holds the ${N} products (--reuse); no load measured`);
  else await loadCatalog(url, pool);
  if (loaded && BULK) await floorAtSize(url, pool);
  await sizes(url);
  const searchCalls = await singleConnection(url);
  await concurrent(url, searchCalls);
  const pg = postgres(url, { max: 1, onnotice: () => undefined });
  const [{ version } = { version: "?" }] = await pg<{ version: string }[]>`select extversion as version from pg_extension where extname = 'vector'`;
  const [{ setting } = { setting: "?" }] = await pg<{ setting: string }[]>`select setting from pg_settings where name = 'shared_buffers'`;
  await pg.end();
  process.stdout.write(
    [
      "",
      header,
      `Postgres with pgvector ${version} (shared_buffers ${Number(setting) / 128} MB), load average ${loadAtStart} at the start, ${load1()} at the end; ${pool.names.length} distinct base names embedded once, their vectors reused`,
      "",
      "| measure | figure | floor: the same SQL straight to the database | |",
      "|---|---|---|---|",
      ...out,
      "",
    ].join("\n"),
  );
}

await main();
process.exit(0);
