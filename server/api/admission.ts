/**
 * Admission control for search-class calls (an operation declared with
 * `admission: "search"`): at most `concurrency` run at once, up to
 * `queueLength` more wait their turn in arrival order, and none waits longer
 * than `queueTimeoutMs`. Beyond that a call is refused at once with 503
 * `overloaded` and a `Retry-After`, instead of piling onto the database.
 *
 * Why a bound on searches in progress also makes them fair: the embedded
 * database runs one statement at a time, and each search is several
 * statements (full text, vectors, records, reranker statistics). Unbounded,
 * every search's statements queue behind everyone else's, so a search that
 * needs more of them starves (seconds) while most take a fraction of that.
 * With few searches in progress, a search that has started keeps its share
 * of the database until it is done, and the rest wait in a FIFO queue, so
 * the wait is the same for everyone. Lookups and /health never come here.
 *
 * Why per client: one FIFO would let a client that sends 64 searches at once
 * fill the queue and push everyone else into 503s. Waiting clients take turns
 * instead (round robin over API keys), and when the queue is full the client
 * with the most searches waiting gives up its newest, so a user with one
 * search waits about one search's time behind an abusive client, not its
 * whole backlog.
 */
import { RequestError } from "../errors.js";

export interface AdmissionSettings {
  /** Search-class calls in progress at once (SEARCH_CONCURRENCY); 0 turns admission off. */
  concurrency: number;
  /** Calls that may wait for a slot (SEARCH_QUEUE_LENGTH); one more is refused at once. */
  queueLength: number;
  /** The longest a call waits for a slot (SEARCH_QUEUE_TIMEOUT_MS); then it is refused. */
  queueTimeoutMs: number;
}

export type Rejection = "queue_full" | "queue_timeout";

/** What admission reports as it happens (metrics); slots in use and the queue's depth are read with `state()`. */
export interface AdmissionObserver {
  admitted(waitSeconds: number): void;
  rejected(reason: Rejection): void;
}

export interface AdmissionState {
  running: number;
  queued: number;
  concurrency: number;
  queueLength: number;
}

export interface Admission {
  /**
   * Runs `work` once a slot is free, holding the slot until it settles; throws OverloadedError when it cannot get
   * one. `client` (the API key) is whose turn it is: waiting clients take turns, so one cannot starve another.
   */
  run<T>(client: string, work: () => Promise<T>): Promise<T>;
  state(): AdmissionState;
}

/** 503 `overloaded`: the service is busy with other searches; retry after `retryAfterSeconds`. */
export class OverloadedError extends RequestError {
  constructor(
    readonly reason: Rejection,
    readonly retryAfterSeconds: number,
  ) {
    super(
      "overloaded",
      reason === "queue_full"
        ? `Too many searches are in progress or waiting; retry in ${retryAfterSeconds} s.`
        : `No search slot came free in time; retry in ${retryAfterSeconds} s.`,
    );
  }
}

interface Waiter {
  client: string;
  start(): void;
  refuse(error: OverloadedError): void;
  timer: NodeJS.Timeout;
}

/** How much one search's time counts in the running average behind Retry-After. */
const SMOOTHING = 0.1;
/** Retry-After never says more than this: a client is told to come back soon, not to give up. */
const MAX_RETRY_AFTER_S = 30;

export function createAdmission(settings: AdmissionSettings, observer?: AdmissionObserver, now: () => number = () => performance.now()): Admission {
  let running = 0;
  let waiting = 0;
  /**
   * Each client's waiters in arrival order; the map's order is the clients' turn order. A client whose waiter
   * is started goes to the back, so a client with many searches waiting takes one turn in N, not all of them.
   */
  const queues = new Map<string, Waiter[]>();
  /** A running average of how long a search holds its slot, for Retry-After. */
  let averageMs = 50;

  /** About when the queue will have room: what is ahead of a newcomer, at the recent pace. */
  function retryAfter(): number {
    const seconds = ((waiting + 1) * averageMs) / Math.max(1, settings.concurrency) / 1000;
    return Math.min(MAX_RETRY_AFTER_S, Math.max(1, Math.ceil(seconds)));
  }

  function remove(waiter: Waiter): void {
    const queue = queues.get(waiter.client);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    if (queue.length === 0) queues.delete(waiter.client);
    waiting--;
    clearTimeout(waiter.timer);
  }

  function next(): void {
    while (running < settings.concurrency) {
      const first = queues.entries().next();
      if (first.done) return;
      const [client, queue] = first.value;
      const waiter = queue[0]!;
      remove(waiter);
      // Its turn is taken: to the back of the line of clients.
      if (queue.length > 0) {
        queues.delete(client);
        queues.set(client, queue);
      }
      waiter.start();
    }
  }

  /**
   * With the queue full, the client with the most waiters gives up its newest one, unless the newcomer's client
   * already has as many: a client sending many searches at once is refused before one sending few is.
   */
  function makeRoom(client: string): boolean {
    let longest: Waiter[] | undefined;
    for (const queue of queues.values()) if (!longest || queue.length > longest.length) longest = queue;
    const own = queues.get(client)?.length ?? 0;
    if (!longest || longest.length <= own + 1) return false;
    const evicted = longest[longest.length - 1]!;
    remove(evicted);
    observer?.rejected("queue_full");
    evicted.refuse(new OverloadedError("queue_full", retryAfter()));
    return true;
  }

  async function hold<T>(work: () => Promise<T>): Promise<T> {
    running++;
    const started = now();
    try {
      return await work();
    } finally {
      running--;
      averageMs += SMOOTHING * (now() - started - averageMs);
      next();
    }
  }

  return {
    run(client, work) {
      if (settings.concurrency <= 0) return work();
      if (running < settings.concurrency && waiting === 0) {
        observer?.admitted(0);
        return hold(work);
      }
      if (waiting >= settings.queueLength && !makeRoom(client)) {
        observer?.rejected("queue_full");
        return Promise.reject(new OverloadedError("queue_full", retryAfter()));
      }
      const queuedAt = now();
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          client,
          start: () => {
            observer?.admitted((now() - queuedAt) / 1000);
            hold(work).then(resolve, reject);
          },
          refuse: reject,
          timer: setTimeout(() => {
            remove(waiter);
            observer?.rejected("queue_timeout");
            reject(new OverloadedError("queue_timeout", retryAfter()));
          }, settings.queueTimeoutMs),
        };
        const queue = queues.get(client);
        if (queue) queue.push(waiter);
        else queues.set(client, [waiter]);
        waiting++;
      });
    },
    state: () => ({ running, queued: waiting, concurrency: settings.concurrency, queueLength: settings.queueLength }),
  };
}
