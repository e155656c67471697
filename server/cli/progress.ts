/** A one-line progress bar on a terminal's stderr; silent when stderr is not a terminal. */
export interface Progress {
  update(done: number, detail?: string): void;
  finish(): void;
}

export function createProgress(total: number | null, label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update: () => undefined, finish: () => undefined };
  const started = performance.now();
  let last = 0;
  const render = (done: number, detail: string) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const width = 24;
    const ratio = total ? Math.min(1, done / total) : 0;
    const bar = total ? `[${"#".repeat(Math.round(ratio * width)).padEnd(width, "-")}] ` : "";
    const eta = total && rate > 0 ? ` eta ${Math.ceil((total - done) / rate)}s` : "";
    stream.write(`\r${label} ${bar}${done}${total ? `/${total}` : ""} ${rate.toFixed(1)}/s${eta} ${detail}\u001b[K`);
  };
  return {
    update(done, detail = "") {
      const now = performance.now();
      if (now - last < 100 && done !== total) return;
      last = now;
      render(done, detail);
    },
    finish() {
      stream.write("\n");
    },
  };
}
