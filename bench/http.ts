/**
 * npm run bench:http — HTTP throughput and latency of the lookups and search
 * (issue 5), measured with autocannon against the real server (server/main.ts)
 * running in a child process, so the load generator and the server do not
 * share an event loop.
 *
 * For each catalog (the sample, and a generated one of 100,000 products) and
 * each database path, it runs side by side:
 *   floor      a bare Fastify route answering get-by-id's JSON from memory
 *   rest id    GET /api/v1/products/{id}
 *   trpc id    GET /trpc/products.byId?input=…
 *   rest url   GET /api/v1/products?url=…
 *   search     GET /api/v1/products/search?q=… (default reranker, varied queries)
 * reporting req/s, p50/p95/p99 and each case's req/s against the floor; then
 * search p95 on ~10,000 vs 100,000 products.
 *
 * Databases: "pglite" is the default embedded PGlite, in the server process.
 * There is no real Postgres here, so "pg.js→socket" is the stand-in for
 * the postgres.js path: postgres.js (pool of 1) against PGlite served over
 * @electric-sql/pglite-socket from a third process (bench/http-pg.ts).
 *
 * Options (flags or env):
 *   --duration S     seconds per case (BENCH_DURATION, default 10)
 *   --warmup S       unrecorded seconds before each case (BENCH_WARMUP, default 5: the first pass over
 *                    2,000 products of the 100,000 fills the product cache, ~4 s of misses; measured
 *                    with a 2 s warm-up, the cold tail showed as a p99 of 90 ms)
 *   --connections N  concurrent connections (BENCH_CONNECTIONS, default 50)
 *   --products N     size of the generated catalog (BENCH_PRODUCTS, default 100000)
 *   --small N        size of the catalog search p95 is compared with (BENCH_SMALL, default 10000)
 *   --only LIST      catalogs to run: sample,large,small (default all)
 *   --db LIST        pglite,postgres (default both)
 *   --profile        instead of the table: one run of REST get-by-id on the sample
 *                    catalog (PGlite) under node --cpu-prof, summarised
 * LOG_LEVEL is passed to the server (default: the server's own, info).
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generatedCatalog, prepareTargets, sampleCatalog, type BenchCatalog, type Targets } from "./http-catalog.js";
import { drain, measure, paths } from "./http-load.js";
import { summariseProfile } from "./http-profile.js";
import { CACHE, DB_LABEL, log, ROOT, type Running, startFloor, startServer, type DbKind } from "./http-server.js";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string" },
    products: { type: "string" },
    small: { type: "string" },
    only: { type: "string" },
    db: { type: "string" },
    profile: { type: "boolean" },
  },
});
const num = (flag: string | undefined, env: string | undefined, fallback: number) => Number(flag ?? (env || undefined) ?? fallback);
const DURATION = num(flags.duration, process.env.BENCH_DURATION, 10);
const WARMUP = num(flags.warmup, process.env.BENCH_WARMUP, 5);
const CONNECTIONS = num(flags.connections, process.env.BENCH_CONNECTIONS, 50);
const LARGE = num(flags.products, process.env.BENCH_PRODUCTS, 100_000);
const SMALL = num(flags.small, process.env.BENCH_SMALL, 10_000);
const ONLY = new Set((flags.only ?? "sample,large,small").split(","));
const DATABASES = (flags.db ?? "pglite,postgres").split(",") as DbKind[];

// ---------------------------------------------------------------- load

interface CaseResult {
  catalog: string;
  db: string;
  name: string;
  connections: number;
  rps: number;
  /** Answers completed inside the measured window (requests still in flight at its end are not counted). */
  completed: number;
  p50: number;
  p95: number;
  p99: number;
  bad: number;
  /** The server process's CPU time over the measured run, per answer (µs; NaN where /proc is missing). */
  cpuUsPerAnswer: number;
}

async function runCase(
  label: { catalog: string; db: string; name: string },
  { base, pid }: Pick<Running, "base" | "pid">,
  paths: readonly string[],
  headers: Record<string, string>,
  connections = CONNECTIONS,
  /** Set to the measured run's start and end, in µs of the monotonic clock (as CPU profiles count time). */
  window?: { from: number; to: number },
): Promise<CaseResult> {
  // One request first: a case that answers errors must not pass for a fast one.
  const check = await fetch(base + paths[0], { headers });
  if (check.status !== 200) throw new Error(`${label.name}: ${paths[0]} answered ${check.status}: ${await check.text()}`);
  await check.arrayBuffer();
  const measured = await measure(base, paths, headers, { seconds: DURATION, warmup: WARMUP, connections }, window, pid);
  const result = { ...label, connections, ...measured };
  log(
    `  ${label.catalog} · ${label.db} · ${label.name} (${connections} conn): ${result.rps.toFixed(0)} req/s, ` +
      `p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms${result.bad ? `, ${result.bad} failed` : ""}`,
  );
  return result;
}

// ---------------------------------------------------------------- cases

const LOAD_AT_START = loadavg()
  .map((x) => x.toFixed(1))
  .join(" ");

async function benchCatalog(catalog: BenchCatalog, tag: string, what: "all" | "search"): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  let floorBody: unknown = null;
  let floorTargets: Targets | null = null;
  for (const db of DATABASES) {
    // A fresh key and a fresh random choice of products per run, taken before the server owns the data dir.
    const targets = await prepareTargets(catalog);
    const headers = { authorization: targets.key };
    const p = paths(targets);
    log(`${catalog.name}: starting the server on ${DB_LABEL[db]}…`);
    const server = await startServer(catalog, db, `${tag}-${db}`);
    try {
      // The server warms the reranker in the background after it starts listening (a ts_stat pass over
      // the catalog: seconds at 100,000). The database runs one statement at a time, so a search queued
      // now answers once that is done: wait for it, so start-up work is not measured as the first case.
      const settling = performance.now();
      await drain(server.base, p.search[0]!, headers);
      log(`  warm-up search answered after ${((performance.now() - settling) / 1000).toFixed(1)} s`);
      const label = (name: string) => ({ catalog: catalog.name, db: DB_LABEL[db], name });
      if (what === "all") {
        if (floorBody === null) {
          const answer = await fetch(server.base + p.restId[0], { headers });
          floorBody = await answer.json();
          floorTargets = targets;
        }
        results.push(await runCase(label("rest id"), server, p.restId, headers));
        results.push(await runCase(label("trpc id"), server, p.trpcId, headers));
        results.push(await runCase(label("rest url"), server, p.restUrl, headers));
      }
      results.push(await runCase(label("search"), server, p.search, headers));
      if (db === "pglite") results.push(await runCase(label("search"), server, p.search.slice(2500), headers, 1));
    } finally {
      await server.stop();
    }
  }
  if (floorBody !== null && floorTargets) {
    const floor = await startFloor(floorBody, tag);
    try {
      results.unshift(await runCase({ catalog: catalog.name, db: "none (memory)", name: "floor" }, floor, paths(floorTargets).floor, {}));
    } finally {
      await floor.stop();
    }
  }
  return results;
}

// ---------------------------------------------------------------- report

const ms = (value: number) => (Number.isNaN(value) ? "—" : value >= 100 ? value.toFixed(0) : value.toFixed(1));

function report(results: CaseResult[], catalogs: BenchCatalog[]): void {
  const started = new Date().toISOString().slice(0, 16).replace("T", " ");
  const command = `npm run bench:http ${process.argv.slice(2).join(" ")}`.trim();
  console.log(`\n${command} — ${started} UTC, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`);
  console.log(
    `${CONNECTIONS} connections, ${DURATION} s per case after ${WARMUP} s warm-up; autocannon, the server and the database stand-in each in their own process. ` +
      `Load average at the start ${LOAD_AT_START}, at the end ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} (other work on the machine shares its CPUs).`,
  );
  for (const catalog of catalogs) {
    if (catalog.synthetic) {
      console.log(
        `${catalog.name}: synthetic products written straight into the table, with RANDOM unit vectors of 512 dimensions ` +
          `(not sentence embeddings, which would take ~15 min for 100,000): vector search does the same work, its results mean nothing.`,
      );
    }
  }
  console.log(
    `"answers" counts responses completed inside the measured window (a request still in flight when it ends is not counted, so a case ` +
      `slower than the window shows few or none); "failed" counts non-2xx answers, socket errors and timeouts. Percentiles are exact, over every 2xx answer.`,
  );
  console.log(
    `Databases: "PGlite (embedded)" is the default; "pg.js→socket" is postgres.js (pool of 1) against PGlite over @electric-sql/pglite-socket in another process, the stand-in for a real Postgres.\n`,
  );

  console.log(
    `"server CPU" is the server process's CPU time (user + system) over the measured run per answer, 503s included; ` +
      `"vs floor" beside it is the floor's CPU per answer over the case's: unlike req/s, it hardly moves when other work shares the machine.\n`,
  );
  console.log(
    "| catalog | database | case | conn | req/s | p50 ms | p95 ms | p99 ms | req/s vs floor | server CPU µs/answer | CPU vs floor | answers | failed |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const floor = results.find((f) => f.catalog === r.catalog && f.name === "floor");
    const ratio = floor ? `${((100 * r.rps) / floor.rps).toFixed(1)}%` : "—";
    const cpuRatio = floor && Number.isFinite(r.cpuUsPerAnswer) ? `${((100 * floor.cpuUsPerAnswer) / r.cpuUsPerAnswer).toFixed(1)}%` : "—";
    console.log(
      `| ${r.catalog} | ${r.db} | ${r.name} | ${r.connections} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ratio} | ` +
        `${ms(r.cpuUsPerAnswer)} | ${cpuRatio} | ${r.completed} | ${r.bad} |`,
    );
  }

  const large = catalogs.find((c) => c.products === LARGE && c.synthetic);
  const small = catalogs.find((c) => c.products === SMALL && c.synthetic);
  if (large && small) {
    console.log(`\nSearch p95, ${large.name} vs ${small.name} products (goal: within 2×):\n`);
    console.log(`| database | conn | p95 at ${SMALL.toLocaleString("en-US")} | p95 at ${LARGE.toLocaleString("en-US")} | ratio |`);
    console.log("|---|---|---|---|---|");
    for (const r of results.filter((x) => x.catalog === large.name && x.name === "search")) {
      const s = results.find((x) => x.catalog === small.name && x.name === "search" && x.db === r.db && x.connections === r.connections);
      if (s) console.log(`| ${r.db} | ${r.connections} | ${ms(s.p95)} ms | ${ms(r.p95)} ms | ${(r.p95 / s.p95).toFixed(2)}× |`);
    }
  }

  console.log(`\nIssue 5 goal: get-by-id ≥ 50% of the floor's req/s on Postgres via postgres.js, p99 < 20 ms at ${CONNECTIONS} connections:\n`);
  for (const r of results.filter((x) => x.name === "rest id" || x.name === "trpc id")) {
    const floor = results.find((f) => f.catalog === r.catalog && f.name === "floor");
    if (!floor) continue;
    const share = r.rps / floor.rps;
    console.log(
      `- ${r.catalog}, ${r.db}, ${r.name}: ${(100 * share).toFixed(1)}% of the floor (${share >= 0.5 ? "meets" : "misses"} ≥ 50%), ` +
        `p99 ${ms(r.p99)} ms (${r.p99 < 20 ? "meets" : "misses"} < 20 ms)`,
    );
  }
}

// ---------------------------------------------------------------- main

async function profile(): Promise<void> {
  const catalog = await sampleCatalog();
  const targets = await prepareTargets(catalog);
  const dir = join(CACHE, "http-profile");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await startServer(catalog, "pglite", "profile", ["--cpu-prof", `--cpu-prof-dir=${dir}`]);
  let result: CaseResult;
  const window = { from: 0, to: 0 };
  try {
    const label = { catalog: catalog.name, db: DB_LABEL.pglite, name: "rest id (under --cpu-prof)" };
    result = await runCase(label, server, paths(targets).restId, { authorization: targets.key }, CONNECTIONS, window);
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile was written to ${dir}`);
  console.log(
    `\nREST get-by-id on the sample catalog (PGlite), ${CONNECTIONS} connections, ${DURATION} s under --cpu-prof ` +
      `(after ${WARMUP} s warm-up; start-up and warm-up are left out below): ${result.rps.toFixed(0)} req/s, p99 ${ms(result.p99)} ms`,
  );
  console.log(`profile: ${join(dir, file)} (open in Chrome DevTools or speedscope)\n`);
  console.log(summariseProfile(join(dir, file), ROOT, window));
}

async function main(): Promise<void> {
  mkdirSync(CACHE, { recursive: true });
  if (flags.profile) return profile();
  const catalogs: BenchCatalog[] = [];
  const results: CaseResult[] = [];
  if (ONLY.has("sample")) {
    const catalog = await sampleCatalog();
    catalogs.push(catalog);
    results.push(...(await benchCatalog(catalog, "sample", "all")));
  }
  if (ONLY.has("large")) {
    const catalog = await generatedCatalog(LARGE);
    catalogs.push(catalog);
    results.push(...(await benchCatalog(catalog, "large", "all")));
  }
  if (ONLY.has("small")) {
    const catalog = await generatedCatalog(SMALL);
    catalogs.push(catalog);
    results.push(...(await benchCatalog(catalog, "small", "search")));
  }
  report(results, catalogs);
}

if (!existsSync(join(ROOT, "node_modules", "autocannon"))) throw new Error("autocannon is missing: npm install");
await main();
