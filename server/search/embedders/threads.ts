/**
 * An embedder whose encoding runs in worker threads (ENCODER_THREADS), so the
 * event loop keeps answering lookups and database I/O while a query is
 * embedded: the local encoder takes milliseconds of pure CPU per query, all
 * of it on the main thread otherwise.
 *
 * Each thread loads its own copy of the model (encoder-thread.ts) and embeds
 * what is waiting together; a call goes to the thread with the fewest calls in
 * hand. A thread that dies is replaced, and the calls it had are sent again.
 * Only the calls it was embedding when it died are suspects; they are sent
 * again one by one, so a call that kills a second thread too is the culprit,
 * and fails with EncoderCrashedError instead of taking down thread after
 * thread, while the calls that were merely batched with it are answered.
 */
import { parentPort, Worker } from "node:worker_threads";
import type { Embedder } from "../embedder.js";
import { warnOnStderr } from "../../warnings.js";

/** `alone`: a call a thread died with, embedded by itself so that only the call that kills a thread is blamed. */
type ToThread = { id: number; texts: readonly string[]; alone: boolean };
type FromThread =
  | { ready: { model: string; dimensions: number } }
  /** The calls now being embedded: if the thread dies before answering, one of them killed it. */
  | { started: number[] }
  | { id: number; vectors: number[][] }
  | { id: number; error: string };

/**
 * Calls that arrive while the encoder is busy are embedded together, up to this many texts: one run of the
 * model's graph for several queries instead of one each (the encoder runs ~116 short titles a second in
 * batches, docs/search.md), and under load there is always a queue.
 */
const COALESCE_TEXTS = 16;

async function settle(vectors: Promise<number[][]>): Promise<{ vectors: number[][] } | { error: string }> {
  try {
    return { vectors: await vectors };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Runs inside a worker thread: serves `make()`'s embedder to the thread's parent (the entry is encoder-thread.ts). */
export async function serveEncoder(make: () => Promise<Embedder>): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("serveEncoder runs in a worker thread (see threads.ts)");
  const embedder = await make();
  const reply = (message: FromThread) => port.postMessage(message);
  const waiting: ToThread[] = [];
  let busy = false;

  /** Embeds what is waiting, several calls at once while they are small, then looks again. */
  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = [waiting.shift()!];
      let texts = batch[0]!.texts.length;
      while (!batch[0]!.alone && waiting.length > 0 && !waiting[0]!.alone && texts + waiting[0]!.texts.length <= COALESCE_TEXTS) {
        const next = waiting.shift()!;
        texts += next.texts.length;
        batch.push(next);
      }
      reply({ started: batch.map((call) => call.id) });
      const embedded = await settle(embedder.embed(batch.flatMap((call) => call.texts)));
      if ("vectors" in embedded) {
        let at = 0;
        for (const call of batch) {
          reply({ id: call.id, vectors: embedded.vectors.slice(at, at + call.texts.length) });
          at += call.texts.length;
        }
      } else if (batch.length === 1) {
        reply({ id: batch[0]!.id, error: embedded.error });
      } else {
        // One bad call must not fail the others it was batched with: each is tried alone.
        for (const call of batch) reply({ id: call.id, ...(await settle(embedder.embed(call.texts))) });
      }
    }
    busy = false;
  }

  port.on("message", (message: ToThread) => {
    waiting.push(message);
    // On the next turn, so calls that arrived together are embedded together.
    if (!busy) {
      busy = true;
      setImmediate(() => void drain());
    }
  });
  reply({ ready: { model: embedder.model, dimensions: embedder.dimensions } });
}

/** A call that the encoder threads died on twice: not retried again. */
export class EncoderCrashedError extends Error {
  override readonly name = "EncoderCrashedError";
}

export interface ThreadedEmbedderOptions {
  threads: number;
  /**
   * The most threads a large call (an import's batch) is spread over (default `threads`): the threads beyond
   * `threads` are started by the first such call and kept, so a server that only embeds queries never loads them.
   */
  spreadTo?: number;
  /** The module each thread runs; default encoder-thread.ts. Tests give one that dies on purpose. */
  entry?: URL;
  /** Told when a thread dies and is replaced; default a line on stderr. */
  warn?: (message: string) => void;
}

/** A call that was being embedded when this many threads died is given up on. */
const DEATHS = 2;
/** A slot whose thread dies this many times in a row before it is ready is given up on (a broken model, say). */
const FAILED_STARTS = 3;

interface Call {
  id: number;
  texts: readonly string[];
  /** Threads that died while embedding this call. */
  deaths: number;
  resolve(vectors: number[][]): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  calls: Map<number, Call>;
  /** The ids the thread said it is embedding now. */
  started: Set<number>;
}

/**
 * The thread's entry is TypeScript, run by tsx like the rest of the server, and a worker does not
 * inherit `--import tsx`: the worker registers tsx's loader first, then imports the entry.
 */
function spawn(entry: URL): Worker {
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true });
}

/** What the threads of one embedder share: where they start from, who is told of deaths, the slots, and the phase. */
interface Pool {
  entry: URL;
  warn: (message: string) => void;
  slots: (Thread | null)[];
  /** Until every thread is first ready: a death then is the caller's failure, not restarted. */
  booting: boolean;
  closing: boolean;
}

export async function createThreadedEmbedder(options: ThreadedEmbedderOptions): Promise<Embedder> {
  if (!Number.isInteger(options.threads) || options.threads < 1) throw new RangeError(`threads must be a positive integer, got ${options.threads}`);
  const spreadTo = Math.max(options.threads, options.spreadTo ?? options.threads);
  const pool: Pool = {
    entry: options.entry ?? new URL("./encoder-thread.ts", import.meta.url),
    warn: options.warn ?? warnOnStderr,
    slots: [],
    booting: true,
    closing: false,
  };
  const inFlight = new Set<Promise<unknown>>();
  let nextId = 0;

  // The threads load their models side by side; the embedder is ready once all are.
  let info: { model: string; dimensions: number } | undefined;
  try {
    [info] = await Promise.all(Array.from({ length: options.threads }, (_, slot) => start(pool, slot, 0)));
  } catch (error) {
    await terminateAll(pool);
    throw error;
  }
  pool.booting = false;
  if (!info) throw new Error("no encoder thread started"); // unreachable: threads ≥ 1

  const call = (texts: readonly string[]): Promise<number[][]> => {
    const vectors = new Promise<number[][]>((resolve, reject) => send(pool, { id: nextId++, texts, deaths: 0, resolve, reject }));
    inFlight.add(vectors);
    const done = () => inFlight.delete(vectors);
    vectors.then(done, done);
    return vectors;
  };

  return {
    model: info.model,
    dimensions: info.dimensions,
    embed(texts) {
      if (pool.closing) return Promise.reject(new Error("embedder is closed"));
      if (texts.length === 0) return Promise.resolve([]);
      const parts = Math.min(spreadTo, Math.floor(texts.length / SPLIT_TEXTS));
      // A thread still loading its model takes its part once ready.
      for (let slot = pool.slots.length; slot < parts; slot++) start(pool, slot, 0).catch(() => undefined);
      return parts > 1 ? embedSpread(texts, parts, call) : call(texts);
    },
    async close() {
      if (pool.closing) return;
      // Calls made before close() still finish.
      await Promise.allSettled([...inFlight]);
      await terminateAll(pool);
    },
  };
}

/**
 * A call of at least this many texts per thread (an import's batch) is spread over the threads, so every core embeds;
 * a query's few texts stay one call, which the threads coalesce with others under load.
 */
const SPLIT_TEXTS = 32;

/**
 * Embeds `texts` as `parts` calls, one a thread. The texts are dealt out by length in turn, so each part holds short
 * and long texts alike (the encoder pads a batch to its longest text and sorts each call by length itself) and the
 * threads finish together.
 */
async function embedSpread(texts: readonly string[], parts: number, call: (texts: readonly string[]) => Promise<number[][]>): Promise<number[][]> {
  const byLength = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
  const dealt = Array.from({ length: parts }, (_, part) => byLength.filter((_, rank) => rank % parts === part));
  const answers = await Promise.all(dealt.map((indices) => call(indices.map((i) => texts[i]!))));
  const out = new Array<number[]>(texts.length);
  for (const [part, indices] of dealt.entries()) for (const [k, i] of indices.entries()) out[i] = answers[part]![k]!;
  return out;
}

function send(pool: Pool, call: Call): void {
  let thread: Thread | undefined;
  for (const t of pool.slots) if (t && (!thread || t.calls.size < thread.calls.size)) thread = t;
  if (!thread) {
    call.reject(new EncoderCrashedError("no encoder thread is running (each failed to start)"));
    return;
  }
  thread.calls.set(call.id, call);
  // Posted at once: a thread still loading its model reads its messages once it is ready.
  thread.worker.postMessage({ id: call.id, texts: call.texts, alone: call.deaths > 0 } satisfies ToThread);
}

/** Starts the slot's thread; resolves with the model once it is ready, rejects if it dies first. */
function start(pool: Pool, slot: number, failedStarts: number): Promise<{ model: string; dimensions: number }> {
  const thread: Thread = { worker: spawn(pool.entry), ready: false, calls: new Map(), started: new Set() };
  pool.slots[slot] = thread;
  let cause = "";
  return new Promise((resolve, reject) => {
    thread.worker.on("message", (message: FromThread) => {
      if ("ready" in message) {
        thread.ready = true;
        resolve(message.ready);
        return;
      }
      received(thread, message);
    });
    thread.worker.on("error", (error) => {
      cause = error.message;
    });
    thread.worker.on("exit", (code) => {
      pool.slots[slot] = null;
      const why = cause || `exit code ${code}`;
      reject(new Error(`the encoder thread failed to start: ${why}`));
      // At boot the failure is the caller's (the server does not come up without its encoder); at close it is expected.
      if (pool.closing || pool.booting) return;
      died(pool, slot, thread, thread.ready ? 0 : failedStarts + 1, why);
    });
  });
}

/** A thread's message other than `ready`: what it is embedding now, or a call's answer. */
function received(thread: Thread, message: Exclude<FromThread, { ready: unknown }>): void {
  if ("started" in message) {
    thread.started = new Set(message.started);
    return;
  }
  const call = thread.calls.get(message.id);
  if (!call) return;
  thread.calls.delete(message.id);
  thread.started.delete(message.id);
  if ("error" in message) call.reject(new Error(message.error));
  else call.resolve(message.vectors);
}

/** A thread died after boot: restarts its slot (unless it keeps failing to start) and sends its calls again. */
function died(pool: Pool, slot: number, thread: Thread, failed: number, why: string): void {
  const calls = [...thread.calls.values()];
  if (failed >= FAILED_STARTS) {
    pool.warn(`encoder thread ${slot} failed to start ${failed} times in a row (${why}); not restarted`);
  } else {
    pool.warn(`encoder thread ${slot} died (${why}); restarting it and sending its ${calls.length} calls again`);
    start(pool, slot, failed).catch(() => undefined);
  }
  for (const call of calls) {
    if (thread.started.has(call.id)) call.deaths++;
    if (call.deaths >= DEATHS) call.reject(new EncoderCrashedError(`the encoder thread died on this call twice (${why})`));
    else send(pool, call);
  }
}

async function terminateAll(pool: Pool): Promise<void> {
  pool.closing = true;
  await Promise.all(pool.slots.map((thread) => thread?.worker.terminate()));
}
