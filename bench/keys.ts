/**
 * npm run bench:keys — what verifying an API key costs, in process, on the
 * embedded database (a data dir on disk with 1,000 keys), with each case's
 * baseline from the same run: the key service without its table in memory
 * (KEY_CACHE_TTL_SECONDS=0: every verify reads its key, as every key not yet
 * held did before issue 47).
 *
 * 1. Median and p99 of one verify, sequential: a malformed key (no read), one
 *    unknown key over and over, a valid key.
 * 2. A flood: made-up keys, each a new one, offered at a steady rate for a
 *    few seconds, while a prober times a small indexed read on the same
 *    database every 5 ms (standing for the lookups of real clients) and a
 *    valid key, never seen before by that service, is verified every 5 ms:
 *    how many made-up keys were answered, how many answers were refused
 *    (503), how many valid verifies failed, and what the prober waited.
 *
 * Options: --flood-seconds S (default 3), --rate N made-up keys a second (default 3000, more than the embedded database reads), --iterations N (default 2000).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { createKeyService, type KeyService } from "../server/auth/service.js";
import { generateKey } from "../server/auth/keys.js";
import { openDatabase } from "../server/db/open.js";
import { isDatabaseUnavailable } from "../server/db/errors.js";
import { catalogMeta } from "../server/db/schema.js";
import type { Database } from "../server/db/client.js";

const { values: flags } = parseArgs({
  options: {
    "flood-seconds": { type: "string", default: "3" },
    rate: { type: "string", default: "3000" },
    iterations: { type: "string", default: "2000" },
  },
});
const FLOOD_MS = Number(flags["flood-seconds"]) * 1000;
const ITERATIONS = Number(flags.iterations);
/** Made-up keys offered a second in the flood. */
const RATE = Number(flags.rate);
/** The prober stands for a few real clients: a read every 5 ms, not one after another. */
const PROBE_EVERY_MS = 5;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const ms = (value: number) => value.toFixed(3);

async function timeEach(n: number, call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** A well-formed key nobody issued, made cheaply (generateKey's base58 would make the flood's own CPU the cost measured). */
function madeUpKey(): string {
  return `pcl_test_${Array.from(randomBytes(44), (byte) => ALPHABET[byte % ALPHABET.length]).join("")}`;
}

/** Made-up keys offered at RATE a second for FLOOD_MS (whether or not earlier ones were answered), while the prober times an indexed read and verifies `valid` every PROBE_EVERY_MS. */
async function flood(db: Database, keys: KeyService, valid: string) {
  let found = 0;
  let validFailed = 0;
  let refused = 0;
  const pending: Promise<void>[] = [];
  const started = performance.now();
  const stopAt = started + FLOOD_MS;
  const offer = async () => {
    let offered = 0;
    while (performance.now() < stopAt) {
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      for (; offered < due; offered++) {
        pending.push(
          keys.verify(madeUpKey()).then(
            () => {
              found++;
            },
            (error: unknown) => {
              if (!isDatabaseUnavailable(error)) throw error;
              refused++;
            },
          ),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  };
  const probes: number[] = [];
  const prober = async () => {
    while (performance.now() < stopAt) {
      const start = performance.now();
      await db.select().from(catalogMeta).where(eq(catalogMeta.key, "probe")).limit(1);
      probes.push(performance.now() - start);
      const verified = await keys.verify(valid).catch(() => null);
      if (verified?.code !== "VALID") validFailed++;
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  await Promise.all([prober(), offer()]);
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  probes.sort((a, b) => a - b);
  return {
    answered: (found + refused) / seconds,
    refused,
    validFailed,
    probeP50: quantile(probes, 0.5),
    probeP99: quantile(probes, 0.99),
  };
}

const dir = mkdtempSync(join(tmpdir(), "bench-keys-"));
const database = await openDatabase({ databaseUrl: undefined, dataDir: join(dir, "data"), poolSize: 1, role: "server" });
try {
  await database.migrate();
  const clock = () => new Date();
  const operator = createKeyService({ db: database.db, clock, cacheTtlMs: 0 });
  for (let i = 0; i < 999; i++) await operator.issue({ name: `bench ${i}`, environment: "dev" });
  const { key: valid } = await operator.issue({ name: "bench valid", environment: "dev" });
  const unknown = generateKey("dev").key;

  // Without the table: every verify reads its key.
  const uncached = createKeyService({ db: database.db, clock, cacheTtlMs: 0 });
  const cached = createKeyService({ db: database.db, clock, cacheTtlMs: 30_000 });
  await cached.syncCache();

  process.stdout.write(
    `bench:keys — ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}\n\n`,
  );
  process.stdout.write("One verify, sequential (ms)                        p50      p99     ratio p50 to baseline\n");
  const rows: [string, () => Promise<unknown>][] = [
    ["malformed key (no read)", () => cached.verify("pcl_test_short")],
    ["unknown key, no caches (baseline)", () => uncached.verify(unknown)],
    ["unknown key, table held (waits for a check)", () => cached.verify(unknown)],
    ["valid key, no caches (baseline)", () => uncached.verify(valid)],
    ["valid key, table held", () => cached.verify(valid)],
  ];
  const results = new Map<string, { p50: number; p99: number }>();
  for (const [name, call] of rows) {
    // A miss waits for the next check of keys_version (at most MISS_CHECK_INTERVAL_MS): a few tries say what it costs.
    const waits = name.includes("waits");
    await timeEach(waits ? 2 : 200, call); // warm-up
    results.set(name, await timeEach(waits ? 20 : ITERATIONS, call));
  }
  for (const [name, { p50, p99 }] of results) {
    const baseline = results.get(name.startsWith("valid") ? "valid key, no caches (baseline)" : "unknown key, no caches (baseline)")!;
    process.stdout.write(`  ${name.padEnd(48)} ${ms(p50).padStart(7)}  ${ms(p99).padStart(7)}   ${(p50 / baseline.p50).toFixed(2)}\n`);
  }

  process.stdout.write(`\nA flood of made-up keys, each new, ${RATE} a second for ${FLOOD_MS / 1000} s, and a prober timing an indexed read\n`);
  process.stdout.write("                                        answered/s   refused   valid failed   probe p50 ms   probe p99 ms\n");
  for (const [name, cacheTtlMs] of [
    ["no table, a read a key (baseline)", 0],
    ["key table held (default)", 30_000],
  ] as const) {
    const keys = createKeyService({ db: database.db, clock, cacheTtlMs });
    const { key: fresh } = await operator.issue({ name: `bench flood ${cacheTtlMs}`, environment: "dev" });
    const r = await flood(database.db, keys, fresh);
    process.stdout.write(
      `  ${name.padEnd(36)} ${r.answered.toFixed(0).padStart(12)} ${String(r.refused).padStart(9)} ${String(r.validFailed).padStart(14)} ${ms(r.probeP50).padStart(14)} ${ms(r.probeP99).padStart(14)}\n`,
    );
  }
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
