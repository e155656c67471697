/**
 * The time one page's extraction may take (EXTRACT_BUDGET_MS). Extraction is synchronous: on the API server
 * (live lookup) it holds the event loop, and no deadline outside it can stop it. So the work checks its own budget
 * as it goes (between chunks of the HTML parse, between layers, in the loops a page can make long) and stops with
 * OverBudgetError once it is spent; see docs/decisions/0004-extraction-budget.md.
 */

/**
 * What a budget counts: CPU time, so that a page's result does not depend on how busy the machine is (imports,
 * fetches, refreshes); or wall time, where what matters is how long the event loop is held (the API server's live
 * lookups: on a loaded host wall time runs ahead of CPU time, 5× at a load of 12 on 2 cores).
 */
export type BudgetClock = "cpu" | "wall";

export class OverBudgetError extends Error {
  constructor(
    readonly budgetMs: number,
    clock: BudgetClock,
  ) {
    super(`extraction stopped: the page took more than EXTRACT_BUDGET_MS (${budgetMs} ms ${clock === "cpu" ? "of CPU" : "holding the server"})`);
    this.name = "OverBudgetError";
  }
}

export interface Budget {
  /** The budget in ms of CPU; Infinity when unbounded. */
  readonly ms: number;
  /** A unit of work done: cheap, reads the clock every TICKS_PER_CHECK calls. */
  tick(): void;
  /** Throws OverBudgetError when the budget is spent. */
  check(): void;
}

/** A look at the clock (process.cpuUsage()) costs about a microsecond; a tick is a loop's turn, far cheaper. */
const TICKS_PER_CHECK = 512;

/**
 * A budget of `ms` from now, on `clock`. The CPU clock is the process's, which during a synchronous extraction is
 * this work and the garbage collection it causes.
 */
export function pageBudget(ms: number, clock: BudgetClock = "cpu"): Budget {
  if (!Number.isFinite(ms)) return UNBOUNDED;
  const spent =
    clock === "cpu"
      ? (() => {
          const start = process.cpuUsage();
          return () => {
            const used = process.cpuUsage(start);
            return (used.user + used.system) / 1000;
          };
        })()
      : (() => {
          const start = performance.now();
          return () => performance.now() - start;
        })();
  let ticks = 0;
  const check = () => {
    if (spent() > ms) throw new OverBudgetError(ms, clock);
  };
  return {
    ms,
    check,
    tick() {
      if (++ticks % TICKS_PER_CHECK === 0) check();
    },
  };
}

/** No budget: the benchmark and the tests that time the layers themselves. */
export const UNBOUNDED: Budget = { ms: Number.POSITIVE_INFINITY, tick() {}, check() {} };
