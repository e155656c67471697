/** The CLI's progress line (server/cli/progress.ts): its rate and ETA follow the recent pace. */
import { describe, expect, it } from "vitest";
import { createProgress, formatSeconds } from "../../server/cli/progress.js";

function terminal() {
  const written: string[] = [];
  return { stream: { isTTY: true, write: (text: string) => written.push(text) > 0 }, last: () => written.at(-1) ?? "" };
}

describe("the progress line", () => {
  it("reads the rate from the last 20 seconds, so a resumed import's fast skipped start does not shorten its ETA", () => {
    let clock = 0;
    const out = terminal();
    const progress = createProgress(20_000, "importing", { stream: out.stream, now: () => clock });
    // 5,000 records found already in within 5 s, then 100 a second.
    clock = 5_000;
    progress.update(5_000);
    for (let second = 6; second <= 60; second++) {
      clock = second * 1000;
      progress.update(5_000 + (second - 5) * 100, "(5000 unchanged, 0 failed)");
    }
    // From the start it would be 175/s and 54 s.
    expect(out.last()).toContain(" 10500/20000 100.0/s eta 1m35s (5000 unchanged, 0 failed)");
  });

  it("says nothing when stderr is not a terminal", () => {
    const written: string[] = [];
    const progress = createProgress(10, "importing", { stream: { isTTY: false, write: (text: string) => written.push(text) > 0 } });
    progress.update(5);
    progress.finish();
    expect(written).toEqual([]);
  });

  it("writes long ETAs in minutes and hours", () => {
    expect([formatSeconds(42), formatSeconds(425), formatSeconds(11_520)]).toEqual(["42s", "7m05s", "3h12m"]);
  });
});
