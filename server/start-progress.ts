/**
 * What a start is doing, step by step, each with its time: opening the database (and its migrations), loading the
 * sentence encoder, preparing search and the app, loading the sample catalog. A first start on a busy machine took
 * 43 s, 23 of them after one "(a few seconds)" and nothing else; now a step that runs long says so every few seconds.
 *
 * For a person (LOG_FORMAT human, or auto at a terminal) these are plain lines on stderr, and the logs are plain
 * lines too (api/http/logging.ts), so nothing raw is interleaved. For a collector (json) they are JSON log lines on
 * stdout, in pino's shape, beside the server's own: `starting` and `started` with `step` and `ms`.
 */
import { hostname } from "node:os";
import { Worker } from "node:worker_threads";
import type { LogFormat } from "./api/http/logging.js";
import { redactKeys } from "./auth/keys.js";
import type { Config } from "./config.js";

/** Nothing for this long while a step runs: a line says what is still running and for how long. */
const HEARTBEAT_MS = 5_000;
/** Counts (products loaded) are said at most this often, and once more at the end. */
const COUNT_EVERY_MS = 1_000;

export interface StartProgress {
  /** Runs one step, saying when it starts and how long it took. */
  step<T>(name: string, doing: string, work: () => Promise<T>): Promise<T>;
  /** How far a step that counts has got (the sample catalog's products). */
  count(name: string, doing: string, done: number, total: number, unit: string): void;
  /** A step timed by its caller (one that may turn out to have nothing to do) ended, `ms` after it began. */
  finished(name: string, doing: string, ms: number): void;
  /** A line of the start that is no step (the cluster's plan). */
  say(msg: string, fields?: Record<string, unknown>): void;
  /** Milliseconds since the start began. */
  elapsedMs(): number;
  /** Stops the heartbeat (a start that failed, or finished). */
  close(): void;
}

export interface StartProgressOptions {
  format: LogFormat;
  level: Config["LOG_LEVEL"];
  /** Where human lines go (stderr) and JSON lines go (stdout, with the logs). */
  writeHuman?: (text: string) => void;
  writeJson?: (text: string) => void;
  /** Whether the human stream is a terminal: a count then rewrites its one line. */
  terminal?: boolean;
  now?: () => number;
  heartbeatMs?: number;
  /** Where the heartbeat thread writes: stderr for human lines, stdout for JSON. */
  heartbeatFd?: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The heartbeat runs in a thread of its own and writes to the file descriptor itself: loading the encoder's model and
 * starting the embedded database hold the main thread for seconds at a time (measured: 8 s without one timer firing),
 * which is exactly when a person waiting needs to hear that the start is alive. The main thread tells it what runs.
 */
const HEARTBEAT_THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const { everyMs, fd, format, pid, hostname } = workerData;
let state = { lastSaid: Date.now(), steps: [] };
parentPort.on("message", (message) => { state = message; });
setInterval(() => {
  const now = Date.now();
  if (state.steps.length === 0 || now - state.lastSaid < everyMs) return;
  const longest = Math.max(...state.steps.map((step) => now - step.since));
  const line = format === "human"
    ? "Starting: still " + state.steps.map((step) => step.doing).join(", and ") + " (" + (longest / 1000).toFixed(1) + " s so far)\\u2026\\n"
    : JSON.stringify({ level: 30, time: now, pid, hostname, steps: state.steps.map((step) => step.name), ms: Math.round(longest), msg: "still starting" }) + "\\n";
  try { writeSync(fd, line); } catch {}
  state.lastSaid = now;
}, Math.max(50, Math.round(everyMs / 5)));
`;

function startHeartbeat(options: StartProgressOptions): Worker {
  const worker = new Worker(HEARTBEAT_THREAD, {
    eval: true,
    workerData: {
      everyMs: options.heartbeatMs ?? HEARTBEAT_MS,
      fd: options.heartbeatFd ?? (options.format === "human" ? 2 : 1),
      format: options.format,
      pid: process.pid,
      hostname: hostname(),
    },
    // Its own stdio would be relayed through the main thread, which is what it must not wait on.
    stdout: false,
    stderr: false,
  });
  worker.unref();
  // Only a heartbeat: whatever befalls it must not stop a start.
  worker.on("error", () => undefined);
  return worker;
}

export function startProgress(options: StartProgressOptions): StartProgress {
  const now = options.now ?? (() => performance.now());
  const began = now();
  // Progress is said at info: a quieter LOG_LEVEL hears none of it, as before.
  const quiet = ["warn", "error", "fatal", "silent"].includes(options.level);
  const writeHuman = options.writeHuman ?? ((text: string) => process.stderr.write(text));
  const writeJson = options.writeJson ?? ((text: string) => process.stdout.write(text));
  const terminal = options.terminal ?? Boolean(process.stderr.isTTY);
  const running = new Map<string, { doing: string; since: number }>();
  let lastSaid = began;
  let countLine = false;
  const lastCount = new Map<string, number>();

  const human = (line: string, rewrite = false) => {
    // A count being rewritten in place is ended before any other line.
    const end = countLine && !rewrite ? "\n" : "";
    countLine = rewrite;
    writeHuman(rewrite ? `${end}\r\u001b[K${line}` : `${end}${line}\n`);
  };
  const json = (msg: string, fields: Record<string, unknown>) =>
    writeJson(redactKeys(`${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname: hostname(), ...fields, msg })}\n`));
  const emit = (humanText: string, msg: string, fields: Record<string, unknown>, rewrite = false) => {
    if (quiet) return;
    lastSaid = now();
    if (options.format === "human") human(humanText, rewrite && terminal);
    else json(msg, fields);
    tell();
  };

  const heartbeat = quiet ? null : startHeartbeat(options);
  const tell = () =>
    heartbeat?.postMessage({
      lastSaid: Date.now() - (now() - lastSaid),
      steps: [...running.entries()].map(([name, step]) => ({ name, doing: step.doing, since: Date.now() - (now() - step.since) })),
    });

  return {
    async step(name, doing, work) {
      const since = now();
      running.set(name, { doing, since });
      emit(`Starting: ${doing}…`, "starting", { step: name });
      try {
        const result = await work();
        const ms = now() - since;
        emit(`Starting: ${doing}, done in ${seconds(ms)}`, "started", { step: name, ms: Math.round(ms) });
        return result;
      } finally {
        running.delete(name);
        tell();
      }
    },
    count(name, doing, done, total, unit) {
      const at = now();
      if (done < total && at - (lastCount.get(name) ?? Number.NEGATIVE_INFINITY) < COUNT_EVERY_MS) return;
      lastCount.set(name, at);
      emit(`Starting: ${doing}, ${done}/${total} ${unit}`, "starting", { step: name, done, total }, true);
    },
    finished(name, doing, ms) {
      emit(`Starting: ${doing}, done in ${seconds(ms)}`, "started", { step: name, ms: Math.round(ms) });
    },
    say(msg, fields = {}) {
      emit(msg, msg, fields);
    },
    elapsedMs: () => now() - began,
    close() {
      void heartbeat?.terminate();
      if (countLine && !quiet) writeHuman("\n");
      countLine = false;
    },
  };
}
