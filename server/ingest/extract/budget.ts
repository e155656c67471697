/**
 * The CPU time one page's extraction may take (EXTRACT_BUDGET_MS). Extraction is synchronous: on the API server
 * (live lookup) it holds the event loop, and no deadline outside it can stop it. So the work checks its own budget
 * as it goes (between chunks of the HTML parse, between layers, in the loops a page can make long) and stops with
 * OverBudgetError once it is spent; see docs/decisions/0004-extraction-budget.md.
 */

export class OverBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(`extraction stopped: the page took more than EXTRACT_BUDGET_MS (${budgetMs} ms of CPU)`);
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

/** A process.cpuUsage() call costs about a microsecond; a tick is a loop's turn, far cheaper. */
const TICKS_PER_CHECK = 512;

/**
 * A budget of `ms` of CPU from now. CPU time, not wall time, so that a page's result does not depend on how busy
 * the machine is (on a loaded host wall time runs ahead of it); it is the process's, which during a synchronous
 * extraction is this work and the garbage collection it causes.
 */
export function cpuBudget(ms: number): Budget {
  if (!Number.isFinite(ms)) return UNBOUNDED;
  const start = process.cpuUsage();
  let ticks = 0;
  const check = () => {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 > ms) throw new OverBudgetError(ms);
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
