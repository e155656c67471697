/**
 * npm run bench:soak — the soak of issue 5: mixed traffic at 80% of the
 * measured capacity for 10 minutes, against the real server (server/main.ts)
 * in a child process on the sample catalog; zero errors, and no unbounded
 * memory growth (the server process's RSS, sampled every 10 s).
 *
 * 1. capacity: unthrottled mixed traffic for --capacity-seconds; capacity is
 *    the 2xx answers per second.
 * 2. the soak: the same mix at 80% of that rate (autocannon's overallRate) for
 *    --duration seconds, sampling the server's RSS (/proc/PID/status) and its
 *    V8 heap (its own /metrics).
 * 3. a markdown summary and two verdicts; the exit code is 1 when either fails.
 *
 * The key is issued with a limit out of reach (prepareTargets), but the rate
 * limiter still verifies, charges and counts every request.
 *
 * Options:
 *   --duration S          seconds of soak (default 600)
 *   --capacity-seconds S  seconds of the capacity run (default 15)
 *   --connections N       concurrent connections (default 50)
 *   --rate N              take N req/s as the capacity instead of measuring it
 *   --db pglite|postgres  the embedded PGlite (default) or pg.js→socket, the stand-in
 *                         for a real Postgres (see bench/http.ts); only the API
 *                         server's memory is sampled, not the stand-in's
 * LOG_LEVEL is passed to the server (default: the server's own, info).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { prepareTargets, sampleCatalog } from "./http-catalog.js";
import { drain, load, paths } from "./http-load.js";
import { CACHE, DB_LABEL, log, startServer, type DbKind } from "./http-server.js";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "600" },
    "capacity-seconds": { type: "string", default: "15" },
    connections: { type: "string", default: "50" },
    rate: { type: "string" },
    db: { type: "string", default: "pglite" },
  },
});
const DURATION = Number(flags.duration);
const CAPACITY_SECONDS = Number(flags["capacity-seconds"]);
const CONNECTIONS = Number(flags.connections);
const DB = flags.db as DbKind;
const SHARE = 0.8;
const WARMUP_SECONDS = 5;
const SAMPLE_SECONDS = 10;
if (!(DB in DB_LABEL)) throw new Error(`--db: pglite or postgres, not ${DB}`);
// The verdict fits a line to the second half's samples: it needs at least two.
if (!(DURATION >= 2 * SAMPLE_SECONDS)) throw new Error(`--duration: at least ${2 * SAMPLE_SECONDS} s`);

/**
 * By request. A catalog lookup service is mostly asked for products by id; a
 * search costs ~10× a lookup's CPU (the query is embedded and reranked), so
 * its 10% is about half the server's work; /trpc goes through tRPC's own
 * handler rather than the REST bridge, so it keeps a share.
 */
const MIX = { restId: 70, restUrl: 15, search: 10, trpcId: 5 } as const;
type Kind = keyof typeof MIX;

/**
 * One cycle of MIX's kinds, spread out (smooth weighted round robin) so no
 * kind comes in runs; it has as many slots as the weights' sum.
 */
function interleave(weights: Readonly<Record<Kind, number>>): Kind[] {
  const kinds = Object.keys(weights) as Kind[];
  const total = kinds.reduce((sum, kind) => sum + weights[kind], 0);
  const current = new Map(kinds.map((kind) => [kind, 0]));
  const order: Kind[] = [];
  for (let slot = 0; slot < total; slot++) {
    for (const kind of kinds) current.set(kind, current.get(kind)! + weights[kind]);
    const chosen = kinds.reduce((best, kind) => (current.get(kind)! > current.get(best)! ? kind : best));
    current.set(chosen, current.get(chosen)! - total);
    order.push(chosen);
  }
  return order;
}

/** The mixed requests, long enough that every search query comes once before the list repeats. */
function mixedPaths(byKind: Record<Kind, readonly string[]>): string[] {
  const cycle = interleave(MIX);
  const cycles = Math.ceil(byKind.search.length / MIX.search);
  const used = new Map<Kind, number>();
  const mixed: string[] = [];
  for (let i = 0; i < cycles * cycle.length; i++) {
    const kind = cycle[i % cycle.length]!;
    const n = used.get(kind) ?? 0;
    used.set(kind, n + 1);
    mixed.push(byKind[kind][n % byKind[kind].length]!);
  }
  return mixed;
}

// ---------------------------------------------------------------- memory

interface Sample {
  /** Seconds since the soak started. */
  t: number;
  rssMb: number;
  /** V8's used heap; NaN when /metrics did not answer in time. */
  heapMb: number;
}

function rssMb(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

async function heapMb(base: string, headers: Record<string, string>): Promise<number> {
  try {
    const answer = await fetch(`${base}/metrics`, { headers, signal: AbortSignal.timeout(5000) });
    const match = (await answer.text()).match(/^nodejs_heap_size_used_bytes (\S+)$/m);
    return match ? Number(match[1]) / 2 ** 20 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Least-squares slope of RSS over time, in MB per minute. */
function slopePerMinute(samples: readonly Sample[]): number {
  const tMean = samples.reduce((sum, s) => sum + s.t, 0) / samples.length;
  const yMean = samples.reduce((sum, s) => sum + s.rssMb, 0) / samples.length;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - tMean) * (s.rssMb - yMean);
    den += (s.t - tMean) ** 2;
  }
  return (60 * num) / den;
}

/**
 * Bounded: RSS at the end is within max(30 MB, 10%) of RSS after the first
 * minute (or half the run, if shorter), and the second half's slope is under
 * 1 MB/min. The first minute is left out as the baseline because the heap
 * and PGlite's WASM memory still grow to their working size there (and WASM
 * memory never shrinks); the allowance covers GC's sawtooth, which moves a
 * single sample by tens of MB; the slope catches a steady leak too slow to
 * cross the allowance in 10 minutes (1 MB/min is 1.4 GB a day).
 */
function memoryVerdict(samples: readonly Sample[]) {
  const baselineAt = Math.min(60, DURATION / 2);
  const baseline = samples.find((s) => s.t >= baselineAt) ?? samples.at(-1)!;
  const end = samples.at(-1)!;
  const allowance = Math.max(30, 0.1 * baseline.rssMb);
  const slope = slopePerMinute(samples.filter((s) => s.t >= DURATION / 2));
  return { baseline, end, allowance, slope, bounded: end.rssMb - baseline.rssMb <= allowance && slope < 1 };
}

// ---------------------------------------------------------------- main

const mb = (value: number) => (Number.isNaN(value) ? "—" : value.toFixed(0));
const ms = (value: number) => (Number.isNaN(value) ? "—" : value >= 100 ? value.toFixed(0) : value.toFixed(1));
const clock = (seconds: number) => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
};
const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

async function main(): Promise<void> {
  mkdirSync(CACHE, { recursive: true });
  const loadAtStart = loadAverage();
  const catalog = await sampleCatalog();
  const targets = await prepareTargets(catalog);
  const headers = { authorization: targets.key };
  const p = paths(targets);
  const mixed = mixedPaths(p);
  log(`${catalog.name}: starting the server on ${DB_LABEL[DB]}…`);
  const server = await startServer(catalog, DB, `soak-${DB}`);
  try {
    // The reranker's warm-up runs after the server listens; a search answers once it is done.
    await drain(server.base, p.search[0]!, headers);
    await load(server.base, mixed, headers, WARMUP_SECONDS, CONNECTIONS);
    await drain(server.base, p.restId[0]!, headers);

    let capacity: number;
    let capacityNote: string;
    if (flags.rate !== undefined) {
      capacity = Number(flags.rate);
      capacityNote = "given with --rate";
    } else {
      log(`measuring capacity: ${CAPACITY_SECONDS} s unthrottled, ${CONNECTIONS} connections…`);
      const measured = await load(server.base, mixed, headers, CAPACITY_SECONDS, CONNECTIONS);
      await drain(server.base, p.restId[0]!, headers);
      capacity = measured.rps;
      capacityNote = `${CAPACITY_SECONDS} s unthrottled, p99 ${ms(measured.p99)} ms${measured.bad ? `, ${measured.bad} failed` : ""}`;
    }
    const target = Math.max(1, Math.round(SHARE * capacity));
    log(`capacity ${capacity.toFixed(0)} req/s (${capacityNote}); soak at ${target} req/s for ${DURATION} s…`);

    const samples: Sample[] = [];
    const started = performance.now();
    const sample = async () => {
      const t = (performance.now() - started) / 1000;
      const s = { t, rssMb: rssMb(server.pid), heapMb: await heapMb(server.base, headers) };
      samples.push(s);
      log(`  ${clock(t)} RSS ${mb(s.rssMb)} MB, heap ${mb(s.heapMb)} MB`);
    };
    await sample();
    const pending: Promise<void>[] = [];
    const timer = setInterval(() => {
      const sampled = sample();
      // Awaited after the load; until then, a failure (the server gone) must not crash the bench as unhandled.
      sampled.catch(() => {});
      pending.push(sampled);
    }, SAMPLE_SECONDS * 1000);
    const soak = await load(server.base, mixed, headers, DURATION, CONNECTIONS, target);
    clearInterval(timer);
    await Promise.all(pending);
    await sample();
    samples.sort((a, b) => a.t - b.t);

    const memory = memoryVerdict(samples);
    const failed = soak.non2xx + soak.errors + soak.timeouts;
    const maxRss = Math.max(...samples.map((s) => s.rssMb));
    const first = samples[0]!;
    const perMinute = samples.filter((_sample, i) => i % (60 / SAMPLE_SECONDS) === 0 || i === samples.length - 1);

    const command = `npm run bench:soak ${process.argv.slice(2).join(" ")}`.trim();
    const date = new Date().toISOString().slice(0, 16).replace("T", " ");
    console.log(`\n${command} — ${date} UTC, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`);
    console.log(
      `${catalog.name} catalog (${catalog.products} products), ${DB_LABEL[DB]}, ${CONNECTIONS} connections; mix by request: ` +
        `${MIX.restId}% REST get-by-id, ${MIX.restUrl}% REST by URL, ${MIX.search}% search (varied queries), ${MIX.trpcId}% /trpc get-by-id. ` +
        `The key's limit is out of reach; the rate limiter still runs. autocannon gives each connection its share of the rate as a quota ` +
        `per second, so requests come in bursts at the start of each second. Load average at the start ${loadAtStart}, at the end ${loadAverage()} ` +
        `(other work on the machine shares its CPUs).\n`,
    );
    console.log("| | |");
    console.log("|---|---|");
    console.log(`| capacity | ${capacity.toFixed(0)} req/s (${capacityNote}) |`);
    console.log(`| target (${100 * SHARE}%) | ${target} req/s for ${DURATION} s |`);
    console.log(`| achieved | ${soak.rps.toFixed(1)} req/s 2xx (${((100 * soak.rps) / target).toFixed(1)}% of target) |`);
    console.log(`| requests answered | ${soak.answered} |`);
    console.log(`| non-2xx / errors / timeouts | ${soak.non2xx} / ${soak.errors} / ${soak.timeouts} |`);
    console.log(`| latency p50 / p99 (2xx) | ${ms(soak.p50)} / ${ms(soak.p99)} ms |`);
    console.log(`| RSS at start (after warm-up) | ${mb(first.rssMb)} MB (heap ${mb(first.heapMb)} MB) |`);
    console.log(`| RSS at ${clock(memory.baseline.t)} (baseline) | ${mb(memory.baseline.rssMb)} MB (heap ${mb(memory.baseline.heapMb)} MB) |`);
    console.log(`| RSS at end | ${mb(memory.end.rssMb)} MB (heap ${mb(memory.end.heapMb)} MB) |`);
    console.log(`| RSS max | ${mb(maxRss)} MB |`);
    console.log(`| RSS slope, second half | ${memory.slope >= 0 ? "+" : ""}${memory.slope.toFixed(2)} MB/min |`);
    console.log(`\nRSS each minute (MB): ${perMinute.map((s) => `${clock(s.t)} ${mb(s.rssMb)}`).join(", ")}\n`);
    const growth = memory.end.rssMb - memory.baseline.rssMb;
    console.log(`- errors: ${failed} ${failed === 0 ? "✓" : "✗"}`);
    console.log(
      `- memory: ${memory.bounded ? "bounded ✓" : "unbounded ✗"} (end ${growth >= 0 ? "+" : ""}${growth.toFixed(0)} MB from the baseline, ` +
        `allowed ${memory.allowance.toFixed(0)}; second-half slope ${memory.slope.toFixed(2)} MB/min, allowed < 1)`,
    );
    if (failed > 0 || !memory.bounded) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
