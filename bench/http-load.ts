/** Load for the HTTP benchmarks (npm run bench:http, bench:soak): what to ask, and autocannon runs against a started server. */
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { searchQueries, type Targets } from "./http-catalog.js";

const QUERIES = searchQueries(5000);

/** Each case's requests, spread over the targets' products (and the floor's, which answers any id). */
export function paths(targets: Targets, queries: readonly string[] = QUERIES) {
  const ids = targets.products.map((p) => p.id);
  return {
    floor: ids.map((id) => `/floor/products/${encodeURIComponent(id)}`),
    restId: ids.map((id) => `/api/v1/products/${encodeURIComponent(id)}`),
    trpcId: ids.map((id) => `/trpc/products.byId?input=${encodeURIComponent(JSON.stringify({ id }))}`),
    restUrl: targets.products.map((p) => `/api/v1/products?url=${encodeURIComponent(p.url)}`),
    // By default more distinct queries than the server's query-vector cache (1,000) holds, so each is embedded;
    // a catalog's own queries (CrowdFlower's 130) repeat, so after one round their vectors are cached.
    search: queries.map((q) => `/api/v1/products/search?q=${encodeURIComponent(q)}`),
  };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * One autocannon run over `paths` in turn (one path per request); latencies recorded per response.
 * `overallRate` caps the requests per second over all connections (unset: as fast as answers come).
 */
export async function load(
  base: string,
  paths: readonly string[],
  headers: Record<string, string>,
  seconds: number,
  connections: number,
  overallRate?: number,
) {
  let next = 0;
  const latencies: number[] = [];
  let busy = 0;
  const instance = autocannon({
    url: base,
    connections,
    duration: seconds,
    timeout: 30,
    headers,
    ...(overallRate ? { overallRate } : {}),
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
  });
  // Latencies of 2xx answers only: a fast 503 must not pass for a fast answer (failures are counted apart).
  instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else if (status === 503) busy++;
  });
  const result = await instance;
  const sorted = Float64Array.from(latencies).sort();
  return {
    rps: result["2xx"] / result.duration,
    completed: latencies.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
    /** 503 answers (search admission's `overloaded`, or the database down). */
    busy,
    bad: result.non2xx + result.errors + result.timeouts,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    /** Every answer autocannon counted, whatever its status. */
    answered: result.requests.total,
  };
}

/**
 * autocannon stops at the deadline, but the server goes on with the requests
 * it had (50 searches can be many seconds of work): one more request, queued
 * behind them, returns when they are done, so the next run starts clean.
 */
export async function drain(base: string, path: string, headers: Record<string, string>): Promise<void> {
  const answer = await fetch(base + path, { headers, signal: AbortSignal.timeout(120_000) });
  await answer.arrayBuffer();
}

/** A process's /proc/PID/stat fields after the command's name: [0] state, [1] parent pid, [11] user and [12] system ticks. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // not Linux, or ended between the listing and the read
  }
}

/**
 * User + system CPU time in ms (clock ticks of 10 ms) a process and its children (a cluster's workers) have used
 * so far, threads included; NaN without /proc (Linux only). What a request costs the server, which other work on
 * the machine changes far less than req/s. A child that ended is not counted (none do during a case).
 */
export function processCpuMs(pid: number): number {
  const own = statFields(pid);
  if (!own) return Number.NaN;
  const ticks = (fields: string[]) => Number(fields[11]) + Number(fields[12]);
  let total = ticks(own);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[1]) === pid) total += ticks(fields);
  }
  return total * 10;
}

/**
 * One case as the benchmarks measure it: `warmup` unrecorded seconds first
 * (JIT, connection set-up), then the measured run, each drained after so
 * neither run's backlog spills into the next. `window` gets the measured run's
 * start and end in µs of the monotonic clock (as CPU profiles count time).
 */
export async function measure(
  base: string,
  paths: readonly string[],
  headers: Record<string, string>,
  run: { seconds: number; warmup: number; connections: number },
  window?: { from: number; to: number },
  /** The server's process: its CPU time over the measured run is reported per answer (`cpuUsPerAnswer`). */
  pid?: number,
) {
  if (run.warmup > 0) {
    await load(base, paths, headers, run.warmup, run.connections);
    await drain(base, paths[0]!, headers);
  }
  const from = Number(process.hrtime.bigint() / 1000n);
  const cpuBefore = pid === undefined ? Number.NaN : processCpuMs(pid);
  const measured = await load(base, paths, headers, run.seconds, run.connections);
  const cpuMs = pid === undefined ? Number.NaN : processCpuMs(pid) - cpuBefore;
  if (window) Object.assign(window, { from, to: Number(process.hrtime.bigint() / 1000n) });
  await drain(base, paths[0]!, headers);
  return { ...measured, cpuUsPerAnswer: (1000 * cpuMs) / measured.answered };
}
