/** One measured bound of `npm run bench:hostile`: a figure beside its baseline from the same run, and its goal. */
export interface HostileFigure {
  /** What was measured, e.g. "extraction, 1 MB hostile page". */
  name: string;
  value: number;
  unit: string;
  /** The same measure on benign input (or the code path without the bound), in the same run. */
  baseline?: { name: string; value: number };
  /** The goal in words, e.g. "≤ 3× baseline". */
  goal: string;
  met: boolean;
}

/** A file of bench/hostile/ that measures one kind of hostile input. */
export interface HostilePart {
  title: string;
  run(): Promise<HostileFigure[]>;
}
