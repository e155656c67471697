/**
 * npm run bench:search-load — search under load (issue 16): the real server
 * (server/main.ts) in a child process, autocannon from this one, varied
 * queries (more than the query-vector cache holds).
 *
 * Each variant is a server started with other settings, measured in the same
 * run, so the ratios compare like with like on a machine whose load moves:
 *   off        SEARCH_CONCURRENCY=0 ENCODER_THREADS=0: no admission, the encoder
 *              on the main thread (the service before issue 16)
 *   on         the defaults (admission, one encoder thread)
 *   threads2   the defaults with ENCODER_THREADS=2
 *   wc1, wc2   WEB_CONCURRENCY=1 and 2: one or two server processes (node:cluster);
 *              several need DATABASE_URL, so with --db shared (postgres.js to
 *              PGlite behind the server's own bridge, which, unlike pglite-socket,
 *              several processes' connections can share). PGlite is still one
 *              single-threaded session in one process, so this measures what a
 *              second server process takes off the first (HTTP, keys, JSON, the
 *              encoder, the reranker), not what Postgres would give a second core.
 * For each: at 1, 8, 32 and 64 connections, req/s, p50 / p95 / p99 / max of the
 * answered searches, 503s, and CPU milliseconds per answered search (the
 * server's user+system time from /proc, threads and cluster workers included,
 * ÷ 2xx answers); then one user searching one query after another, alone, and then
 * while another key floods with 48 connections: that user's p50 / p95 and 503s.
 *
 * Latencies are given twice: as autocannon saw them (from this process), and
 * as the server timed them (its request log's responseTime, from the request
 * read to the answer sent). On a loaded machine the two differ by seconds: the
 * load generator is starved too, and requests wait in sockets before the
 * server reads them, which no admission control inside the server can bound.
 *
 * Options (flags or env):
 *   --duration S     seconds per case (BENCH_DURATION, default 10)
 *   --warmup S       unrecorded seconds before each case (BENCH_WARMUP, default 3)
 *   --products N     the generated catalog's size (BENCH_PRODUCTS, default 100000); 0: the sample catalog
 *   --catalog NAME   crowdflower: bench:relevance's CrowdFlower catalog (9,913 products) and its 130 dev queries,
 *                    cycled (after the first round their vectors are cached); overrides --products
 *   --db LIST        pglite,postgres,shared (default pglite; postgres is the postgres.js path to PGlite over pglite-socket,
 *                    shared the same through the server's bridge)
 *   --variants LIST  off,on,threads2,wc1,wc2 (default off,on)
 *   --connections L  comma-separated (default 1,8,32,64)
 * Linux only (CPU time is read from /proc).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { crowdflowerCatalog, generatedCatalog, prepareTargets, sampleCatalog } from "./http-catalog.js";
import { drain, load, paths, percentile, processCpuMs } from "./http-load.js";
import { CACHE, DB_LABEL, type DbKind, log, startServer } from "./http-server.js";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string" },
    warmup: { type: "string" },
    products: { type: "string" },
    catalog: { type: "string" },
    db: { type: "string" },
    variants: { type: "string" },
    connections: { type: "string" },
  },
});
const num = (flag: string | undefined, env: string | undefined, fallback: number) => Number(flag ?? (env || undefined) ?? fallback);
const DURATION = num(flags.duration, process.env.BENCH_DURATION, 10);
const WARMUP = num(flags.warmup, process.env.BENCH_WARMUP, 3);
const PRODUCTS = num(flags.products, process.env.BENCH_PRODUCTS, 100_000);
const DBS = (flags.db ?? "pglite").split(",") as DbKind[];
const CONNECTIONS = (flags.connections ?? "1,8,32,64").split(",").map(Number);
const ABUSE_CONNECTIONS = 48;

const VARIANTS: Record<string, Record<string, string>> = {
  off: { SEARCH_CONCURRENCY: "0", ENCODER_THREADS: "0" },
  on: {},
  threads2: { ENCODER_THREADS: "2" },
  wc1: { WEB_CONCURRENCY: "1" },
  wc2: { WEB_CONCURRENCY: "2" },
};
const variants = (flags.variants ?? "off,on").split(",");
for (const name of variants) if (!VARIANTS[name]) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(", ")}`);

/** Search answers the server logged (status, ms) since `from` bytes into its log. */
function serverTimes(logFile: string, from: number): { status: number; ms: number }[] {
  const text = readFileSync(logFile, "utf8").slice(from);
  const times: { status: number; ms: number }[] = [];
  for (const line of text.split("\n")) {
    if (!line.includes('"request completed"') || !line.includes("/products/search")) continue;
    const status = line.match(/"statusCode":(\d+)/);
    const ms = line.match(/"responseTime":([\d.]+)/);
    if (status && ms) times.push({ status: Number(status[1]), ms: Number(ms[1]) });
  }
  return times;
}

function percentiles(values: number[]): { p50: number; p95: number; p99: number; max: number } {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** One user: a search, then the next once it is answered, for `seconds`. */
async function oneUser(base: string, queries: readonly string[], key: string, seconds: number) {
  const latencies: number[] = [];
  let busy = 0;
  const end = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const started = performance.now();
    const answer = await fetch(base + queries[i % queries.length], { headers: { authorization: `Bearer ${key}` } });
    await answer.arrayBuffer();
    if (answer.ok) latencies.push(performance.now() - started);
    else if (answer.status === 503) busy++;
  }
  return { ...percentiles(latencies), answered: latencies.length, busy };
}

interface Row {
  variant: string;
  db: string;
  connections: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  server: { p50: number; p99: number; max: number };
  busy: number;
  cpuPerSearch: number;
}
interface AbuseRow {
  variant: string;
  db: string;
  /** The user's p95 with no one else searching, just before. */
  aloneP95: number;
  p50: number;
  p95: number;
  answered: number;
  busy: number;
  abuserBusy: number;
}

const ms = (value: number) => (Number.isNaN(value) ? "—" : value.toFixed(value < 10 ? 1 : 0));
const loadAtStart = loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");

async function main(): Promise<void> {
  if (flags.catalog !== undefined && flags.catalog !== "crowdflower") throw new Error(`unknown catalog ${flags.catalog}; known: crowdflower`);
  const catalog = flags.catalog ? await crowdflowerCatalog() : PRODUCTS > 0 ? await generatedCatalog(PRODUCTS) : await sampleCatalog();
  const rows: Row[] = [];
  const abuse: AbuseRow[] = [];
  for (const db of DBS) {
    for (const variant of variants) {
      const abuser = await prepareTargets(catalog, 200);
      const user = await prepareTargets(catalog, 200);
      const search = paths(abuser, catalog.queries).search;
      // The user's queries are not the abuser's, so neither warms the other's query vectors.
      const userSearch = [...search].reverse();
      const headers = { authorization: `Bearer ${abuser.key}` };
      log(`${catalog.name}, ${DB_LABEL[db]}, ${variant}: starting the server`);
      const tag = `search-load-${variant}`;
      const server = await startServer(catalog, db, tag, [], VARIANTS[variant]);
      const logFile = join(CACHE, `http-server-${tag}.log`);
      try {
        for (const connections of CONNECTIONS) {
          log(`  ${connections} connections`);
          if (WARMUP > 0) {
            await load(server.base, search, headers, WARMUP, connections);
            await drain(server.base, search[0]!, headers);
          }
          const logAt = statSync(logFile).size;
          const before = processCpuMs(server.pid);
          const result = await load(server.base, search, headers, DURATION, connections);
          const cpu = processCpuMs(server.pid) - before;
          await drain(server.base, search[0]!, headers);
          const served = percentiles(
            serverTimes(logFile, logAt)
              .filter((time) => time.status === 200)
              .map((time) => time.ms),
          );
          rows.push({
            variant,
            db: DB_LABEL[db],
            connections,
            rps: result.rps,
            p50: result.p50,
            p95: result.p95,
            p99: result.p99,
            max: result.max,
            server: served,
            busy: result.busy,
            cpuPerSearch: cpu / Math.max(1, result.completed),
          });
        }
        log("  one user alone, then beside a flood");
        const alone = await oneUser(server.base, userSearch, user.key, DURATION);
        const [flood, single] = await Promise.all([
          load(server.base, search, headers, DURATION, ABUSE_CONNECTIONS),
          // Queries the user has not asked alone, unless the catalog's own are too few (CrowdFlower's 130).
          oneUser(server.base, userSearch.length > 1000 ? userSearch.slice(1000) : userSearch, user.key, DURATION),
        ]);
        await drain(server.base, search[0]!, headers);
        abuse.push({
          variant,
          db: DB_LABEL[db],
          aloneP95: alone.p95,
          p50: single.p50,
          p95: single.p95,
          answered: single.answered,
          busy: single.busy,
          abuserBusy: flood.busy,
        });
      } finally {
        await server.stop();
      }
    }
  }

  console.log(
    `\nnpm run bench:search-load — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`,
  );
  console.log(
    `Load average at the start ${loadAtStart}, at the end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")} (the machine is shared). ${catalog.name} products; ${DURATION} s per case after ${WARMUP} s of warm-up.\n`,
  );
  console.log(
    "| variant | database | conn | searches/s | p50 ms | p95 ms | p99 ms | max ms | server p50 / p99 / max ms | server p99 ÷ p50 | 503s | CPU ms per search | CPU vs off |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const off = rows.find((o) => o.variant === "off" && o.db === r.db && o.connections === r.connections);
    const ratio = off ? `${(r.cpuPerSearch / off.cpuPerSearch).toFixed(2)}×` : "—";
    console.log(
      `| ${r.variant} | ${r.db} | ${r.connections} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.server.p50)} / ${ms(r.server.p99)} / ${ms(r.server.max)} | ${(r.server.p99 / r.server.p50).toFixed(1)} | ${r.busy} | ${r.cpuPerSearch.toFixed(1)} | ${ratio} |`,
    );
  }
  console.log(`\nOne user searching, one query after another, while another key floods with ${ABUSE_CONNECTIONS} connections:\n`);
  console.log(
    "| variant | database | user alone p95 ms | user p50 ms | user p95 ms | p95 vs alone | user p95 vs off | user answered | user 503s | flood 503s |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const a of abuse) {
    const off = abuse.find((o) => o.variant === "off" && o.db === a.db);
    const ratio = off ? `${(a.p95 / off.p95).toFixed(2)}×` : "—";
    console.log(
      `| ${a.variant} | ${a.db} | ${ms(a.aloneP95)} | ${ms(a.p50)} | ${ms(a.p95)} | ${(a.p95 / a.aloneP95).toFixed(1)}× | ${ratio} | ${a.answered} | ${a.busy} | ${a.abuserBusy} |`,
    );
  }
}

await main();
