import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * The suite's Postgres half: the files that exercise the database itself (migrations, the repositories' queries,
 * search's SQL, imports and the change feed), run again on a real Postgres with pgvector. The rest of the suite
 * reaches the database through the same queries, so running it twice would double the time for little: it runs
 * on PGlite only. `.ci/postgres.sh start` starts a Postgres for it and prints the URL to set.
 */
const POSTGRES_HALF = [
  "tests/integration/migrations.test.ts",
  "tests/integration/halfvec-migration.test.ts",
  "tests/integration/search.test.ts",
  "tests/integration/fulltext.test.ts",
  "tests/integration/search-pipeline.test.ts",
  "tests/integration/structured-import.test.ts",
  "tests/integration/import-hostile.test.ts",
  "tests/integration/reindex.test.ts",
  "tests/integration/freshness.test.ts",
  "tests/integration/attributes.test.ts",
  "tests/integration/catalog-cache.test.ts",
  "tests/integration/issue-47-import.test.ts",
  "tests/integration/import-pipeline.test.ts",
  "tests/integration/import-vectors-resume.test.ts",
  "tests/integration/bulk-import.test.ts",
  "tests/integration/facets-mirror.test.ts",
  "tests/integration/auth.test.ts",
  "tests/integration/rest.test.ts",
  "tests/integration/ratelimit.test.ts",
  "tests/integration/matching.test.ts",
  "tests/integration/feeds.test.ts",
];

const postgresUrl = process.env.TEST_POSTGRES_URL;
// Vitest reads this file more than once in a run; the notice is said once.
const said = globalThis as { postgresHalfNoticed?: boolean };
if (!postgresUrl && !said.postgresHalfNoticed) {
  said.postgresHalfNoticed = true;
  const unavailable = process.env.TEST_POSTGRES_UNAVAILABLE;
  if (process.env.CI && !unavailable) {
    throw new Error("CI is set but TEST_POSTGRES_URL is not: the suite's Postgres half must run in CI (.ci/run starts one)");
  }
  if (unavailable) process.stderr.write(`\n*** The Postgres half of the suite did NOT run: ${unavailable}. ***\n`);
  process.stderr.write(
    `\nThe Postgres half of the suite is SKIPPED (${POSTGRES_HALF.length} files run on PGlite only): no TEST_POSTGRES_URL.\n` +
      'To run it: eval "export $(bash .ci/postgres.sh start)" && npm test   (a Postgres 15 with pgvector on loopback; .ci/postgres.sh stop)\n\n',
  );
}

export default defineConfig({
  test: {
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
    projects: [
      { extends: true, test: { name: "pglite", include: ["tests/**/*.test.ts"], provide: { testDatabase: { kind: "pglite" } } } },
      ...(postgresUrl
        ? [
            {
              extends: true as const,
              test: { name: "postgres", include: POSTGRES_HALF, provide: { testDatabase: { kind: "postgres" as const, url: postgresUrl } } },
            },
          ]
        : []),
    ],
  },
});
