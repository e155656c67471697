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
 * For each: at 1, 8, 32 and 64 connections, req/s, p50 / p99 / max of the
 * answered searches, 503s, and CPU milliseconds per answered search (the
 * server process's user+system time from /proc, threads included, ÷ 2xx
 * answers); then one user searching on one connection, alone, and then while
 * another key floods with 48 connections: that user's p50 / p95 and 503s.
 *
 * Options (flags or env):
 *   --duration S     seconds per case (BENCH_DURATION, default 10)
 *   --warmup S       unrecorded seconds before each case (BENCH_WARMUP, default 3)
 *   --products N     the generated catalog's size (BENCH_PRODUCTS, default 100000); 0: the sample catalog
 *   --db LIST        pglite,postgres (default pglite; postgres is the postgres.js path to PGlite over a socket)
 *   --variants LIST  off,on,threads2 (default off,on)
 *   --connections L  comma-separated (default 1,8,32,64)
 * Linux only (CPU time is read from /proc).
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { generatedCatalog, prepareTargets, sampleCatalog } from "./http-catalog.js";
import { drain, load, paths } from "./http-load.js";
import { DB_LABEL, type DbKind, log, startServer } from "./http-server.js";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string" },
    warmup: { type: "string" },
    products: { type: "string" },
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
};
const variants = (flags.variants ?? "off,on").split(",");
for (const name of variants) if (!VARIANTS[name]) throw new Error(`unknown variant ${name}; known: ${Object.keys(VARIANTS).join(", ")}`);

/** The process's user + system CPU time in ms, its threads included (/proc/PID/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Row {
  variant: string;
  db: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
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
  const catalog = PRODUCTS > 0 ? await generatedCatalog(PRODUCTS) : await sampleCatalog();
  const rows: Row[] = [];
  const abuse: AbuseRow[] = [];
  for (const db of DBS) {
    for (const variant of variants) {
      const abuser = await prepareTargets(catalog, 200);
      const user = await prepareTargets(catalog, 200);
      const search = paths(abuser).search;
      // The user's queries are not the abuser's, so neither warms the other's query vectors.
      const userSearch = [...search].reverse();
      const headers = { authorization: `Bearer ${abuser.key}` };
      log(`${catalog.name}, ${DB_LABEL[db]}, ${variant}: starting the server`);
      const server = await startServer(catalog, db, `search-load-${variant}`, [], VARIANTS[variant]);
      try {
        for (const connections of CONNECTIONS) {
          log(`  ${connections} connections`);
          if (WARMUP > 0) {
            await load(server.base, search, headers, WARMUP, connections);
            await drain(server.base, search[0]!, headers);
          }
          const before = cpuMs(server.pid);
          const result = await load(server.base, search, headers, DURATION, connections);
          const cpu = cpuMs(server.pid) - before;
          await drain(server.base, search[0]!, headers);
          rows.push({
            variant,
            db: DB_LABEL[db],
            connections,
            rps: result.rps,
            p50: result.p50,
            p99: result.p99,
            max: result.max,
            busy: result.busy,
            cpuPerSearch: cpu / Math.max(1, result.completed),
          });
        }
        log("  one user alone, then beside a flood");
        const userHeaders = { authorization: `Bearer ${user.key}` };
        const alone = await load(server.base, userSearch, userHeaders, DURATION, 1);
        const [flood, single] = await Promise.all([
          load(server.base, search, headers, DURATION, ABUSE_CONNECTIONS),
          load(server.base, userSearch.slice(1000), userHeaders, DURATION, 1),
        ]);
        await drain(server.base, search[0]!, headers);
        abuse.push({
          variant,
          db: DB_LABEL[db],
          aloneP95: alone.p95,
          p50: single.p50,
          p95: single.p95,
          answered: single.completed,
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
  console.log("| variant | database | conn | searches/s | p50 ms | p99 ms | max ms | p99 ÷ p50 | 503s | CPU ms per search | CPU vs off |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const off = rows.find((o) => o.variant === "off" && o.db === r.db && o.connections === r.connections);
    const ratio = off ? `${(r.cpuPerSearch / off.cpuPerSearch).toFixed(2)}×` : "—";
    console.log(
      `| ${r.variant} | ${r.db} | ${r.connections} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${(r.p99 / r.p50).toFixed(1)} | ${r.busy} | ${r.cpuPerSearch.toFixed(1)} | ${ratio} |`,
    );
  }
  console.log(`\nOne user's searches (1 connection) while another key floods with ${ABUSE_CONNECTIONS} connections:\n`);
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
