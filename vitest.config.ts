import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Each file builds its own in-memory database and app; nothing is kept in process state between files (no test
    // changes process.env or a module's globals), so a worker's modules and its sentence encoder are loaded once and
    // shared by the files it runs (isolate: false): importing them per file was 122 s of a 630 s suite, now 18 s.
    pool: "forks",
    isolate: false,
    // Vitest's default (cores − 1) is one file at a time on a 2-core machine, while much of the suite waits on child
    // processes, sockets and timers.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
