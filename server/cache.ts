/**
 * A small bounded LRU map, optionally with a time to live. Map keeps insertion
 * order, so the first key is the least recently used. Used for what is read
 * far more often than it changes: query vectors, key rows, products.
 */
export interface LruOptions {
  /** Entries older than this are treated as absent; unset: they never expire. */
  ttlMs?: number;
  /** Milliseconds; tests pass a fake clock. */
  now?: () => number;
}

export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; at: number }>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(
    readonly capacity: number,
    options: LruOptions = {},
  ) {
    this.#ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.#now = options.now ?? Date.now;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (this.#now() - entry.at >= this.#ttlMs) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.capacity <= 0 || this.#ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, at: this.#now() });
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The keys held, least recently used first; expired ones too, until they are next read. */
  keys(): MapIterator<K> {
    return this.#entries.keys();
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * A value read at most once per `ttlMs` (a count of the catalog, its brand names: not free to read, and changed
 * only by imports). The first caller waits for the first read; later callers get the last value at once, and one of
 * them past `ttlMs` starts a new read behind them: at a million products such a read takes seconds, which no search
 * should wait for. A failed read is not kept: the next caller reads again (and, before any value, waits for it).
 */
export function refreshedEvery<T>(read: () => Promise<T>, ttlMs: number, now: () => number = () => performance.now()): () => Promise<T> {
  let last: { value: T; at: number } | null = null;
  let reading: Promise<T> | null = null;
  const start = () => {
    const at = now();
    reading = read()
      .then((value) => {
        last = { value, at };
        return value;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  return () => {
    if (!last) return reading ?? start();
    if (!reading && now() - last.at > ttlMs) start().catch(() => undefined);
    return Promise.resolve(last.value);
  };
}
