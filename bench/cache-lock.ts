/**
 * One process at a time per cached catalog in bench/.cache. PGlite has no lock between processes, and two benches
 * writing one data dir (each issues its API key there) corrupt it: on 2026-11-26 bench:relevance run beside
 * bench:tune-local left both catalogs where the next insert spun forever. Not the data dir's own lock
 * (server/db/lock.ts): a bench that serves the catalog from a child server process leaves that one to the child.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { isAlive } from "../server/db/lock.js";

const held = new Set<string>();

/** Holds `dir` for this process until it exits; throws, naming the holder, when another live process holds it. */
export function holdCache(dir: string): void {
  if (held.has(dir)) return;
  // Beside the directory, not in it: a rebuild removes the directory.
  const lock = `${dir}.lock`;
  // A fresh clone has no bench/.cache yet.
  mkdirSync(dirname(lock), { recursive: true });
  try {
    writeFileSync(lock, String(process.pid), { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(readFileSync(lock, "utf8"));
    if (holder !== process.pid && isAlive(holder)) {
      throw new Error(`${dir} is in use by process ${holder}: run the benchmarks one at a time`);
    }
    writeFileSync(lock, String(process.pid)); // left by a process that has ended
  }
  if (held.size === 0) {
    process.once("exit", () => {
      for (const each of held) rmSync(`${each}.lock`, { force: true });
    });
  }
  held.add(dir);
}
