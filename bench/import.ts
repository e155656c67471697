/**
 * npm run bench:import [-- --products N] [--threads T] [--batch B] [--postgres URL]
 *
 * Where a product's import goes, on the CrowdFlower products (../shared/data/relevance): each stage alone, then
 * whole imports, all in one run.
 *   - prepare: reading a record into a row (prepareRecord), on the main thread;
 *   - encoder pool alone, with 1 thread and with T (default: the machine's cores), embedding the same texts in the
 *     import's batches: the limit an import can reach;
 *   - write alone: the rows with their vectors already made, upserted batch by batch (the database's share);
 *   - import: importRecords as `catalog import` runs it, the pool of 1 thread (the baseline) and of T;
 *   - matching's cost (issue 50): the import with the pool of T without matching, then with it, and the ratio of the two;
 *   - the import with the pool of T as `catalog import --bulk` runs it, a load into an empty catalog.
 * On PGlite (in memory) and, with --postgres (or TEST_POSTGRES_URL), on a real Postgres, in a database of its own.
 * CPU is the process's (every thread) and, on Postgres, the server's processes' (read from /proc).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CLI_TIMEOUTS, type DatabaseHandle, openPglite, openPostgres } from "../server/db/open.js";
import { importRecords } from "../server/ingest/import.js";
import { parseLine } from "../server/ingest/ndjson.js";
import { prepareRecord, type PreparedRecord } from "../server/ingest/record.js";
import type { Embedder } from "../server/search/embedder.js";
import { createThreadedEmbedder } from "../server/search/embedders/threads.js";
import { createPostgresDatabase } from "../tests/helpers/postgres-database.js";
import { DATA } from "./relevance-data.js";

const { values: flags } = parseArgs({
  options: {
    products: { type: "string", default: "2000" },
    threads: { type: "string", default: String(availableParallelism()) },
    batch: { type: "string", default: "64" },
    postgres: { type: "string" },
  },
});
const PRODUCTS = Number(flags.products);
const THREADS = Number(flags.threads);
const BATCH = Number(flags.batch);
const POSTGRES_URL = flags.postgres ?? process.env.TEST_POSTGRES_URL;

const lines = readFileSync(join(DATA, "products.ndjson"), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .slice(0, PRODUCTS)
  .map((text, index) => parseLine("crowdflower", index + 1, text));

/** CPU seconds of every process named postgres (the server's backends), from /proc. */
function postgresCpuSeconds(): number {
  const tick = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (!stat.slice(stat.indexOf("(") + 1, close).startsWith("postgres")) continue;
      const fields = stat.slice(close + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) / tick;
    } catch {
      // The process ended while we read.
    }
  }
  return total;
}

interface Measured {
  seconds: number;
  /** CPU of this process (all its threads), ms. */
  cpuMs: number;
  /** CPU of the Postgres server's processes, ms. */
  serverCpuMs: number;
}

async function measure(work: () => Promise<unknown>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const server = postgresCpuSeconds();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuMs: (used.user + used.system) / 1000, serverCpuMs: (postgresCpuSeconds() - server) * 1000 };
}

const rows: string[] = [];
function report(stage: string, database: string, products: number, m: Measured, note = ""): void {
  const rate = products / m.seconds;
  const server = m.serverCpuMs > 0 ? (m.serverCpuMs / products).toFixed(1) : "";
  rows.push(
    `| ${stage} | ${database} | ${products} | ${rate.toFixed(1)} | ${(m.cpuMs / products).toFixed(1)} | ${server} | ${((m.cpuMs + m.serverCpuMs) / 1000 / m.seconds).toFixed(2)} | ${note} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
}

/** Serves the vectors the encoder made for these texts: the write stage alone, without the encoder. */
function precomputed(vectors: Map<string, number[]>, model: string): Embedder {
  return {
    model,
    dimensions: 512,
    embed: async (texts) => texts.map((text) => vectors.get(text) ?? []),
    close: async () => undefined,
  };
}

async function openDatabase(kind: "PGlite" | "Postgres"): Promise<DatabaseHandle> {
  if (kind === "PGlite") {
    const { handle } = await openPglite();
    await handle.migrate();
    return handle;
  }
  const created = await createPostgresDatabase(POSTGRES_URL!);
  const handle = openPostgres({ url: created.url, max: 4, timeouts: CLI_TIMEOUTS });
  await handle.migrate();
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await created.drop();
    },
  };
}

/**
 * An import as `catalog import` runs it, into a new database: with the shipped matching settings, or none (`null`);
 * `bulk`: as `catalog import --bulk` runs it (batches of 1,000, the HNSW and full-text indexes built after the load).
 */
async function timedImport(
  kind: "PGlite" | "Postgres",
  threads: number,
  warm: readonly string[],
  { matching, bulk = false }: { matching?: null; bulk?: boolean } = {},
): Promise<{ imported: number; m: Measured }> {
  const db = await openDatabase(kind);
  const pool = await createThreadedEmbedder({ threads });
  await pool.embed(warm.slice(0, 64));
  const summary = { imported: 0 };
  const m = await measure(async () => {
    Object.assign(
      summary,
      await importRecords(
        { db: db.db, embedder: pool, ...(matching === null ? { matching } : {}) },
        lines,
        bulk ? { bulk: { longStatements: db.longStatements } } : { batchSize: BATCH },
      ),
    );
  });
  await pool.close();
  await db.close();
  return { imported: summary.imported, m };
}

async function main(): Promise<void> {
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  process.stderr.write(
    `bench:import — ${new Date().toISOString()}, commit ${commit}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ` +
      `Node ${process.versions.node}, load ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}; ${lines.length} CrowdFlower products, batches of ${BATCH}, pool of ${THREADS}\n`,
  );

  let prepared: PreparedRecord[] = [];
  report(
    "prepare (prepareRecord)",
    "",
    lines.length,
    await measure(async () => {
      prepared = lines.flatMap((line) => ("record" in line ? [prepareRecord(line.record)] : []));
    }),
  );
  const texts = prepared.map((record) => record.embeddingText);

  const vectors = new Map<string, number[]>();
  let model = "";
  for (const threads of [1, THREADS]) {
    const pool = await createThreadedEmbedder({ threads });
    model = pool.model;
    await pool.embed(texts.slice(0, 64)); // warm
    const m = await measure(async () => {
      // As the import sends them: one batch at a time, each batch spread over the pool.
      for (let at = 0; at < texts.length; at += BATCH) {
        const batch = texts.slice(at, at + BATCH);
        const out = await pool.embed(batch);
        for (const [i, text] of batch.entries()) vectors.set(text, out[i]!);
      }
    });
    report(`encoder pool alone, ${threads} thread${threads > 1 ? "s" : ""}`, "", texts.length, m, threads === THREADS ? "the limit" : "");
    await pool.close();
  }

  const databases: ("PGlite" | "Postgres")[] = POSTGRES_URL ? ["PGlite", "Postgres"] : ["PGlite"];
  if (!POSTGRES_URL) process.stderr.write("no --postgres URL (nor TEST_POSTGRES_URL): PGlite only\n");
  for (const kind of databases) {
    const writeDb = await openDatabase(kind);
    report(
      "write alone (vectors made)",
      kind,
      prepared.length,
      await measure(() => importRecords({ db: writeDb.db, embedder: precomputed(vectors, model) }, lines, { batchSize: BATCH })),
    );
    await writeDb.close();
    for (const threads of [1, THREADS]) {
      const { imported, m } = await timedImport(kind, threads, texts);
      report(`import, pool of ${threads}`, kind, imported, m, threads === 1 ? "baseline" : "");
    }
    // Matching's cost: the same import without it, then with it again, one after the other.
    const without = await timedImport(kind, THREADS, texts, { matching: null });
    report(`import, pool of ${THREADS}, no matching`, kind, without.imported, without.m, "baseline for matching");
    const matched = await timedImport(kind, THREADS, texts);
    const ratio = matched.imported / matched.m.seconds / (without.imported / without.m.seconds);
    report(
      `import, pool of ${THREADS}, matching`,
      kind,
      matched.imported,
      matched.m,
      `**${ratio.toFixed(2)}×** the throughput without (goal ≥ 0.8×)`,
    );
    // A load into an empty catalog as operations.md says to run one.
    const bulk = await timedImport(kind, THREADS, texts, { bulk: true });
    report(`import --bulk, pool of ${THREADS}`, kind, bulk.imported, bulk.m, "batches of 1,000, indexes built after");
  }

  process.stdout.write(
    [
      "",
      "| stage | database | products | products/s | CPU ms/product (this process) | CPU ms/product (Postgres) | cores busy | |",
      "|---|---|---|---|---|---|---|---|",
      ...rows,
      "",
    ].join("\n"),
  );
}

await main();
process.exit(0);
