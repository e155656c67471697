/**
 * How requests take turns, so a crawl never hammers a merchant: at most one
 * request in flight per host, a least delay between the end of one request to
 * a host and the start of the next (FETCH_HOST_DELAY_MS, or the host's
 * robots.txt Crawl-delay when longer, or the Retry-After it answered), and at
 * most FETCH_CONCURRENCY requests in flight over all hosts. Every request goes
 * through here, robots.txt and each redirect hop included.
 *
 * A request waits for its host's turn, then the host's delay, then a global
 * slot; it never holds a global slot while it waits on its host, so one slow
 * host cannot starve the others.
 */

export interface PolitenessOptions {
  /** Requests in flight over all hosts. */
  concurrency: number;
  /** Milliseconds since the epoch; tests may pass their own. */
  now?: () => number;
}

interface HostState {
  /** Resolves when the request ahead of the last one queued has finished. */
  tail: Promise<void>;
  /** Earliest time the next request may start. */
  notBefore: number;
}

export interface Politeness {
  /**
   * Runs `request` in `host`'s turn, then keeps the host free for `delayMs` after it ends. Rejects (without
   * running it) when `signal` aborts while it waits.
   */
  run<T>(host: string, delayMs: number, request: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** The host asked us to wait (Retry-After): its next request starts no earlier than `untilMs`. */
  defer(host: string, untilMs: number): void;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves when `promise` does, or rejects when `signal` aborts first. */
function until<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

export function createPoliteness(options: PolitenessOptions): Politeness {
  const now = options.now ?? Date.now;
  const hosts = new Map<string, HostState>();
  let inFlight = 0;
  const waiting: (() => void)[] = [];

  function state(host: string): HostState {
    let found = hosts.get(host);
    if (!found) {
      found = { tail: Promise.resolve(), notBefore: 0 };
      hosts.set(host, found);
    }
    return found;
  }

  async function slot(signal?: AbortSignal): Promise<void> {
    if (inFlight < options.concurrency) {
      inFlight++;
      return;
    }
    const turn = new Promise<void>((resolve) => waiting.push(resolve));
    try {
      await until(turn, signal);
    } catch (error) {
      // Our turn may come after all: pass it on.
      void turn.then(freeSlot);
      throw error;
    }
  }

  function freeSlot(): void {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  }

  return {
    async run(host, delayMs, request, signal) {
      const host_ = state(host);
      const ahead = host_.tail;
      let done!: () => void;
      const mine = new Promise<void>((resolve) => {
        done = resolve;
      });
      // The next request waits for this one, which waits for the one ahead: one at a time, in order.
      host_.tail = ahead.then(() => mine);
      try {
        await until(ahead, signal);
        const wait = host_.notBefore - now();
        if (wait > 0) await sleep(wait, signal);
        await slot(signal);
      } catch (error) {
        // Given up before starting: the requests behind only wait for the one ahead.
        done();
        throw error;
      }
      try {
        return await request();
      } finally {
        freeSlot();
        host_.notBefore = Math.max(host_.notBefore, now() + delayMs);
        done();
      }
    },
    defer(host, untilMs) {
      const host_ = state(host);
      host_.notBefore = Math.max(host_.notBefore, untilMs);
    },
  };
}
