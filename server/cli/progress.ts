/** A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal. */
export interface Progress {
  update(done: number, detail?: string): void;
  finish(): void;
}

export interface ProgressOptions {
  stream?: Pick<NodeJS.WriteStream, "isTTY" | "write">;
  /** Milliseconds on a monotonic clock. */
  now?: () => number;
}

/**
 * The rate is over the last RATE_WINDOW_MS, not since the start: a resumed import passes what it wrote before
 * (unchanged, neither embedded nor written) many times faster than what is left, and a rate from the start would
 * promise an ETA that fast.
 */
const RATE_WINDOW_MS = 20_000;

export function createProgress(total: number | null, label: string, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  if (!stream.isTTY) return { update: () => undefined, finish: () => undefined };
  // (time, done) a few times a window: the rate is read from the oldest still inside it.
  const samples: { at: number; done: number }[] = [{ at: now(), done: 0 }];
  let last = Number.NEGATIVE_INFINITY;
  const render = (at: number, done: number, detail: string) => {
    if (at - samples.at(-1)!.at >= RATE_WINDOW_MS / 10) samples.push({ at, done });
    while (samples.length > 2 && at - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    const from = samples[0]!;
    const seconds = (at - from.at) / 1000;
    const rate = seconds > 0 ? (done - from.done) / seconds : 0;
    const width = 24;
    const ratio = total ? Math.min(1, done / total) : 0;
    const bar = total ? `[${"#".repeat(Math.round(ratio * width)).padEnd(width, "-")}] ` : "";
    const eta = total && rate > 0 ? ` eta ${formatSeconds((total - done) / rate)}` : "";
    stream.write(`\r${label} ${bar}${done}${total ? `/${total}` : ""} ${rate.toFixed(1)}/s${eta} ${detail}\u001b[K`);
  };
  return {
    update(done, detail = "") {
      const at = now();
      if (at - last < 100 && done !== total) return;
      last = at;
      render(at, done, detail);
    },
    finish() {
      stream.write("\n");
    },
  };
}

/** 42s, 7m05s, 3h12m: an ETA a person reads at a glance. */
export function formatSeconds(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
