import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Each file builds its own in-memory database and app; the sentence encoder is loaded once per worker.
    pool: "forks",
    // Vitest's default (cores − 1) is one file at a time on a 2-core machine, and much of the suite waits on child
    // processes, sockets and timers: two files at once took CI's suite from ~11 to under 10 minutes.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
