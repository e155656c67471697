/**
 * Issue 47, finding 4: a start step that holds the main thread (the encoder's model load, the embedded database's
 * start: seconds without one timer firing) is still heard from: the heartbeat runs in a thread of its own.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { startProgress } from "../../server/start-progress.js";

it("says a blocking step is still running, with how long so far, while the main thread is held", async () => {
  const dir = mkdtempSync(join(tmpdir(), "catalog-progress-"));
  const path = join(dir, "out");
  const fd = openSync(path, "w");
  const said: string[] = [];
  const progress = startProgress({ format: "json", level: "info", writeJson: (text) => said.push(text), heartbeatMs: 200, heartbeatFd: fd });
  try {
    // Let the heartbeat thread start, as it does while the first step begins.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await progress.step("encoder", "loading the sentence encoder", async () => {
      const until = performance.now() + 1_200;
      while (performance.now() < until) {
        // Held, as a model load holds it: no timer of this thread fires.
      }
    });
  } finally {
    progress.close();
    closeSync(fd);
  }
  const heartbeats = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg: string; steps: string[]; ms: number });
  rmSync(dir, { recursive: true, force: true });
  expect(heartbeats.length).toBeGreaterThanOrEqual(2);
  for (const beat of heartbeats) expect(beat).toMatchObject({ msg: "still starting", steps: ["encoder"], ms: expect.any(Number) });
  expect(said.map((line) => JSON.parse(line) as { msg: string; step: string })).toEqual([
    expect.objectContaining({ msg: "starting", step: "encoder" }),
    expect.objectContaining({ msg: "started", step: "encoder", ms: expect.any(Number) }),
  ]);
});
