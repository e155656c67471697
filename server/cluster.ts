/**
 * WEB_CONCURRENCY on Postgres: the primary process of a node:cluster keeps N
 * server processes (workers) on one port. It forks them, replaces one that
 * dies unexpectedly (waiting longer after each death that follows another
 * soon, so a crash loop does not spin), passes SIGTERM/SIGINT on to each (each
 * drains as a single server does) and ends when all have ended. What must
 * happen once (migrations, first-run onboarding) the caller does before
 * `superviseWorkers` and in `onReady`; the workers run server/main.ts too.
 */
import cluster, { type Worker } from "node:cluster";
import { hostname } from "node:os";
import { redactKeys } from "./auth/keys.js";
import type { Config } from "./config.js";

/** pino's levels, so the primary's lines read like the workers' to whatever collects the logs. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Number.POSITIVE_INFINITY } as const;

export type PrimaryLog = Record<"info" | "warn" | "error", (fields: Record<string, unknown>, msg: string) => void>;

/** JSON lines on stdout in pino's shape (level, time, pid, hostname, msg), with `worker: 0` for the primary. */
export function primaryLog(level: Config["LOG_LEVEL"], write: (line: string) => void = (line) => process.stdout.write(redactKeys(line))): PrimaryLog {
  const base = { pid: process.pid, hostname: hostname(), worker: 0 };
  const at =
    (name: keyof PrimaryLog) =>
    (fields: Record<string, unknown>, msg: string): void => {
      if (LEVELS[name] < LEVELS[level]) return;
      write(`${JSON.stringify({ level: LEVELS[name], time: Date.now(), ...base, ...fields, msg })}\n`);
    };
  return { info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * What marks a worker forked here: a process manager that runs the server under node:cluster itself (PM2's cluster
 * mode) makes cluster workers too, and each of those must migrate and onboard as a single server does.
 */
const WORKER_ARG = "--catalog-cluster-worker";

/** This process's worker id, when the primary below forked it; undefined for a single server or the primary. */
export function clusterWorkerId(): number | undefined {
  return cluster.isWorker && process.argv.includes(WORKER_ARG) ? cluster.worker?.id : undefined;
}

/** The first replacement waits this long; each death soon after another doubles it, up to RESTART_MAX_MS. */
const RESTART_BASE_MS = 250;
const RESTART_MAX_MS = 30_000;
/** A death this long after the previous one starts the backoff afresh (the workers had been running fine). */
const STABLE_MS = 60_000;

/** The wait before replacing the `streak`th worker to die in a row (1, 2, …): 250 ms, 500 ms, 1 s, … 30 s. */
export function restartDelayMs(streak: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** Math.max(0, streak - 1));
}

export interface SupervisorOptions {
  count: number;
  log: PrimaryLog;
  /** Once, when the first `count` workers all listen on `port` (the first key is printed then, as a single server does). */
  onReady(port: number): Promise<void>;
  /** After a signal is passed on, the longest to wait before the workers still running are killed (they have their own). */
  graceMs: number;
}

/**
 * Runs the workers until a signal ends them or the first start fails (a worker that ends before the others all
 * listened: a port in use, a database refusing, a bad embedding model — the worker said why on stderr; the rest
 * are stopped). Resolves with the exit code for the primary: 0 when every worker drained and ended cleanly.
 */
export function superviseWorkers(options: SupervisorOptions): Promise<number> {
  const { count, log } = options;
  const listening = new Set<number>();
  const restarts = new Set<NodeJS.Timeout>();
  let ready = false;
  let stopping: NodeJS.Signals | null = null;
  let code = 0;
  let streak = 0;
  let lastDeath = Number.NEGATIVE_INFINITY;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const running = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  const fork = () => {
    const worker = cluster.fork();
    log.info({ child: worker.id, childPid: worker.process.pid }, "started a server process");
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = signal;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    log.info({ signal, processes: running().length }, "shutting down: each server process finishes its requests in flight");
    // Straight to the process, not worker.kill(): that disconnects first, closing the worker's listener before it can drain.
    for (const worker of running()) worker.process.kill(signal);
    setTimeout(() => {
      const left = running();
      log.error({ signal, processes: left.length, graceMs: options.graceMs }, "server processes still running at the deadline; killing them");
      for (const worker of left) worker.process.kill("SIGKILL");
    }, options.graceMs).unref();
    if (running().length === 0) finish(code);
  };

  cluster.on("listening", (worker, address) => {
    listening.add(worker.id);
    if (ready || listening.size < count) return;
    ready = true;
    streak = 0;
    void options.onReady(address.port).catch((error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error) }, "first-run onboarding failed");
      code = 1;
      stop("SIGTERM");
    });
  });

  cluster.on("exit", (worker, exitCode, signal) => {
    const wasListening = listening.delete(worker.id);
    const fields = { child: worker.id, childPid: worker.process.pid, code: exitCode, signal };
    if (stopping) {
      // Killed by the forwarded signal itself: it had not yet installed its handler, so had nothing in flight.
      if (exitCode !== 0 && signal !== stopping) code = 1;
      log.info(fields, "a server process ended");
      if (running().length === 0) finish(code);
      return;
    }
    if (!ready) {
      // What stops one worker's first start (a port in use, a database refusing) would stop every replacement.
      log.error(fields, wasListening ? "a server process died during the first start; stopping" : "a server process failed to start; stopping");
      code = 1;
      stop("SIGTERM");
      return;
    }
    const now = Date.now();
    streak = now - lastDeath > STABLE_MS ? 1 : streak + 1;
    lastDeath = now;
    const delayMs = restartDelayMs(streak);
    log.error({ ...fields, restartInMs: delayMs }, "a server process died unexpectedly; starting another");
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delayMs);
    restarts.add(timer);
  });

  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  cluster.setupPrimary({ args: [...process.argv.slice(2), WORKER_ARG] });
  for (let i = 0; i < count; i++) fork();
  return done;
}
