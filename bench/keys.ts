/**
 * npm run bench:keys — what verifying an API key costs, in process, on the
 * embedded database (a data dir on disk with 1,000 keys), with each case's
 * baseline from the same run: the key service without caches (every verify
 * reads its key, as unknown keys were before issue 12, item 6), and without
 * the budget on reads that find nothing (as a flood of made-up keys was).
 *
 * 1. Median and p99 of one verify, sequential: a malformed key (no read), one
 *    unknown key over and over, a held valid key.
 * 2. A flood: made-up keys, each a new one, offered at a steady rate for a
 *    few seconds, while a prober times a small indexed read on the same
 *    database every 5 ms (standing for the lookups of real clients): how many
 *    key reads the flood caused, how many keys were refused, and what the
 *    prober waited.
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
import { DatabaseShedError } from "../server/db/errors.js";
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

/** Made-up keys offered at RATE a second for FLOOD_MS (whether or not earlier ones were answered), while the prober times an indexed read every PROBE_EVERY_MS. */
async function flood(db: Database, keys: KeyService) {
  let found = 0;
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
              if (!(error instanceof DatabaseShedError)) throw error;
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
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  };
  await Promise.all([prober(), offer()]);
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  probes.sort((a, b) => a - b);
  return {
    answered: (found + refused) / seconds,
    readsPerSecond: found / seconds,
    refused,
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

  // As before: every verify reads, however often the key was not found.
  const uncached = createKeyService({ db: database.db, clock, cacheTtlMs: 0, missesPerSecond: Number.POSITIVE_INFINITY });
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
    ["unknown key, remembered", () => cached.verify(unknown)],
    ["valid key, no caches (baseline)", () => uncached.verify(valid)],
    ["valid key, held", () => cached.verify(valid)],
  ];
  const results = new Map<string, { p50: number; p99: number }>();
  for (const [name, call] of rows) {
    await timeEach(200, call); // warm-up
    results.set(name, await timeEach(ITERATIONS, call));
  }
  for (const [name, { p50, p99 }] of results) {
    const baseline = results.get(name.startsWith("valid") ? "valid key, no caches (baseline)" : "unknown key, no caches (baseline)")!;
    process.stdout.write(`  ${name.padEnd(48)} ${ms(p50).padStart(7)}  ${ms(p99).padStart(7)}   ${(p50 / baseline.p50).toFixed(2)}\n`);
  }

  process.stdout.write(`\nA flood of made-up keys, each new, ${RATE} a second for ${FLOOD_MS / 1000} s, and a prober timing an indexed read\n`);
  process.stdout.write("                                        answered/s   key reads/s   refused   probe p50 ms   probe p99 ms\n");
  for (const [name, missesPerSecond] of [
    ["no budget (baseline)", Number.POSITIVE_INFINITY],
    ["budget 100/s (default)", undefined],
  ] as const) {
    const keys = createKeyService({ db: database.db, clock, cacheTtlMs: 30_000, ...(missesPerSecond === undefined ? {} : { missesPerSecond }) });
    const r = await flood(database.db, keys);
    process.stdout.write(
      `  ${name.padEnd(36)} ${r.answered.toFixed(0).padStart(12)} ${r.readsPerSecond.toFixed(0).padStart(13)} ${String(r.refused).padStart(9)} ${ms(r.probeP50).padStart(14)} ${ms(r.probeP99).padStart(14)}\n`,
    );
  }
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
