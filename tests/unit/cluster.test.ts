/** server/cluster.ts's pure parts: the restart backoff, and the primary's log lines in the workers' shape. */
import { describe, expect, it } from "vitest";
import { primaryLog, restartDelayMs } from "../../server/cluster.js";

describe("the cluster's primary", () => {
  it("replaces a dead server process soon the first time, and ever later while they keep dying, up to 30 s", () => {
    expect([1, 2, 3, 4].map(restartDelayMs)).toEqual([250, 500, 1000, 2000]);
    expect(restartDelayMs(20)).toBe(30_000);
  });

  it("logs JSON lines like pino's, as worker 0, at LOG_LEVEL and above", () => {
    const lines: string[] = [];
    const log = primaryLog("warn", (line) => lines.push(line));
    log.info({ child: 1 }, "started a server process");
    log.error({ child: 1, code: 1 }, "a server process died unexpectedly; starting another");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 50,
      pid: process.pid,
      worker: 0,
      child: 1,
      code: 1,
      msg: "a server process died unexpectedly; starting another",
    });
    expect(lines[0]!.endsWith("\n")).toBe(true);
    primaryLog("silent", (line) => lines.push(line)).error({}, "never");
    expect(lines).toHaveLength(1);
  });
});
