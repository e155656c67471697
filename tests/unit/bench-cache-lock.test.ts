/** bench/cache-lock.ts: one process at a time per cached benchmark catalog. */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { holdCache } from "../../bench/cache-lock.js";

const made: string[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), "cache-lock-"));
  made.push(dir);
  return dir;
};
const fresh = () => join(folder(), "catalog");
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("holdCache", () => {
  it("holds a catalog for this process, again without complaint", () => {
    const dir = fresh();
    holdCache(dir);
    holdCache(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
  });

  it("makes the cache's folder when there is none yet (a fresh clone)", () => {
    const dir = join(folder(), ".cache", "catalog");
    holdCache(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
  });

  it("refuses a catalog a live process holds, naming it", () => {
    const dir = fresh();
    writeFileSync(`${dir}.lock`, "1"); // init: always alive
    expect(() => holdCache(dir)).toThrow(`${dir} is in use by process 1: run the benchmarks one at a time`);
  });

  it("takes over a lock left by a process that has ended", () => {
    const dir = fresh();
    const ended = spawnSync(process.execPath, ["-e", "0"]).pid!;
    writeFileSync(`${dir}.lock`, String(ended));
    holdCache(dir);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(String(process.pid));
  });

  it("lets go when the process exits", () => {
    const dir = fresh();
    const module = new URL("../../bench/cache-lock.ts", import.meta.url).href;
    execFileSync(process.execPath, ["--import", "tsx", "-e", `import(${JSON.stringify(module)}).then((m) => m.holdCache(${JSON.stringify(dir)}))`]);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});
