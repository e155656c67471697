/**
 * npm run bench:hostile -- answers: what one key's largest answers do to another client's lookups (issue 47). A real
 * server (server/main.ts, embedded PGlite, on loopback) on a catalog whose records carry ~1 MB of raw page data each;
 * a victim's lookup by id timed one after another, idle, then while an attacker's key (the default limit, 600 units a
 * minute) fetches searches with raw data as large as ANSWER_MAX_BYTES allows, as fast as its limit lets it: each
 * answer's cost is read from the `RateLimit` header and the next is sent when the limit has earned it (a burst would
 * only spend the minute's units sooner and then be refused at the gate). Goal: loaded p99 ≤ 10× idle p99.
 *
 * Second figure: lookups with a valid key the server does not hold yet, while a flood of made-up keys runs, 16 at a
 * time (issue 47's first finding: they were answered 503 once 100 unknown keys a second had been read). Both phases
 * time lookups every EVERY_MS from when each was due, so a stall counts for every lookup it held up.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { eq } from "drizzle-orm";
import { Agent, get } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { products } from "../../server/db/schema.js";
import { createKeyService } from "../../server/auth/service.js";
import { generateKey } from "../../server/auth/keys.js";
import { openPglite } from "../../server/db/open.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { createLocalEmbedder } from "../../server/search/embedders/local.js";
import { CACHE, startServer } from "../http-server.js";
import type { HostileFigure, HostilePart } from "./part.js";

/** Records with large raw data; the search for them answers up to ANSWER_MAX_BYTES of it. */
const LARGE_RECORDS = 40;
const ANSWER_MAX_BYTES = 33_554_432;
const IDLE_MS = 4_000;
const LOADED_MS = 20_000;
const FLOOD_MS = 4_000;
/** The attacker's limit: the server's default. */
const ATTACKER_PER_MINUTE = 600;

/** Random words, so a page does not compress to nothing (a real page's text does not repeat one sentence). */
function words(count: number): string {
  return randomBytes(count * 6)
    .toString("base64")
    .replace(/(.{8})/g, "$1 ");
}

/** ~0.8 MB of raw data: stripped HTML (a string) and the page's JSON (many small objects, the costlier kind to parse and write). */
function largeRecord(i: number) {
  const props = Array.from({ length: 3_000 }, (_, j) => ({ sku: `HT-${i}-${j}`, colour: words(1), size: j % 7, stock: j * 3, note: words(2) }));
  return {
    url: `https://hostile.example/p/tent-${i}`,
    name: `Hostile Tent ${i}`,
    desc: "A tent whose page is very large.",
    brands: ["Hostile"],
    price_label: "$199.00",
    raw_data: {
      strippedHtml: `<main>${Array.from({ length: 5_000 }, () => `<p>${words(12)}</p>`).join("")}</main>`,
      jsons: { ld_json: { "@type": "Product", name: `Hostile Tent ${i}` }, props_data: { variants: props } },
    },
  };
}

const SMALL = { url: "https://small.example/p/mug", name: "Enamel Camp Mug", desc: "A small mug.", brands: ["Small"], price_label: "$12.00" };

/** A data dir with the catalog and the two keys, built before the server takes it. */
async function prepare(dataDir: string) {
  const embedder = await createLocalEmbedder();
  const { handle } = await openPglite(dataDir);
  try {
    await handle.migrate();
    const records = [SMALL, ...Array.from({ length: LARGE_RECORDS }, (_, i) => largeRecord(i))];
    const lines = records.map((record, index) => parseLine("bench", index + 1, JSON.stringify(record)));
    await importRecords({ db: handle.db, embedder }, lines);
    const keys = createKeyService({ db: handle.db, clock: () => new Date(), cacheTtlMs: 0 });
    const victim = await keys.issue({ name: "victim", environment: "dev" });
    const attacker = await keys.issue({ name: "attacker", environment: "dev", rateLimitPerMinute: ATTACKER_PER_MINUTE });
    // First used during the flood, so the server does not hold it yet (as every key right after a restart).
    const fresh = await keys.issue({ name: "fresh", environment: "dev" });
    const [small] = await handle.db.select({ id: products.id }).from(products).limit(1).where(eq(products.name, SMALL.name));
    return { victim: victim.key, attacker: attacker.key, fresh: fresh.key, smallId: small!.id };
  } finally {
    await handle.close();
    await embedder.close();
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** Lookups sent by the victim: one every 5 ms, whether or not the earlier ones were answered. */
const EVERY_MS = 5;

/**
 * The victim: a lookup every EVERY_MS for `ms`, each timed from when it was due (so a stall counts for every lookup it
 * held up, not only the one in flight); their times, and how many were not 200.
 */
async function lookups(url: string, key: string, ms: number): Promise<{ p99: number; p50: number; n: number; failed: number }> {
  const times: number[] = [];
  let failed = 0;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i * EVERY_MS < ms; i++) {
    const due = started + i * EVERY_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    pending.push(
      fetch(url, { headers: { authorization: key } }).then(async (response) => {
        await response.arrayBuffer();
        times.push(performance.now() - due);
        if (response.status !== 200) failed++;
      }),
    );
  }
  await Promise.all(pending);
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), n: times.length, failed };
}

const remaining = (header: string | string[] | undefined) => Number(/r=(\d+)/.exec(String(header ?? ""))?.[1]);

/**
 * One GET whose body is drained, not decoded: the attacker's 25 MB answers go through node:http, which leaves them
 * compressed, so this process's own decompressing does not show in the victim's times (fetch would decode them here).
 */
function drained(url: string, key: string): Promise<{ status: number; ratelimit: string | string[] | undefined; bytes: number }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { authorization: key, "accept-encoding": "br" }, agent: ATTACKER_AGENT }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => (bytes += chunk.length));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, ratelimit: response.headers.ratelimit, bytes }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

const ATTACKER_AGENT = new Agent({ keepAlive: true, maxSockets: 1 });

/** The attacker: the largest allowed answers for `ms`, each sent once its limit has earned it; what they held and cost. */
async function largeAnswers(url: string, key: string, ms: number): Promise<{ answers: number; bytes: number; unitsEach: number; refused: number }> {
  let answers = 0;
  let bytes = 0;
  let unitsEach = 0;
  let refused = 0;
  let left = ATTACKER_PER_MINUTE;
  const stopAt = performance.now() + ms;
  while (performance.now() < stopAt) {
    const started = performance.now();
    const response = await drained(url, key);
    if (response.status === 200) {
      answers++;
      bytes = Math.max(bytes, response.bytes);
      unitsEach = Math.max(unitsEach, left - remaining(response.ratelimit));
    } else refused++;
    left = remaining(response.ratelimit);
    // Its full rate: the limit's units a minute, spread evenly over what each answer costs.
    const spacing = (60_000 / ATTACKER_PER_MINUTE) * Math.max(unitsEach, 1);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + spacing - performance.now())));
  }
  return { answers, bytes, unitsEach, refused };
}

/** Made-up keys, as fast as they are answered, 16 at a time, for `ms`; how many were answered 503. */
async function flood(url: string, ms: number): Promise<{ sent: number; unavailable: number }> {
  let sent = 0;
  let unavailable = 0;
  const stopAt = performance.now() + ms;
  const one = async () => {
    while (performance.now() < stopAt) {
      const response = await fetch(url, { headers: { authorization: generateKey("dev").key } });
      await response.arrayBuffer();
      sent++;
      if (response.status === 503) unavailable++;
    }
  };
  await Promise.all(Array.from({ length: 16 }, one));
  return { sent, unavailable };
}

async function measure(): Promise<HostileFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-hostile-answers-"));
  mkdirSync(CACHE, { recursive: true }); // the server's log goes there
  try {
    const dataDir = join(dir, "pg");
    const { victim, attacker, fresh, smallId } = await prepare(dataDir);
    const server = await startServer({ name: "hostile answers", dataDir, products: LARGE_RECORDS + 1, synthetic: true }, "pglite", "hostile-answers");
    try {
      const lookup = `${server.base}/api/v1/products/${smallId}`;
      // As many ~1 MB records as fit under the cap, with room for the envelope.
      const limit = Math.min(LARGE_RECORDS, Math.floor((ANSWER_MAX_BYTES * 0.9) / 1_000_000));
      const search = `${server.base}/api/v1/products/search?q=hostile%20tent&include_raw_data=true&limit=${limit}`;
      // Warm-up: the product cache, connections, the server's own warm-up (encoder, search), and one large answer
      // (the first costs the database's first growth to hold it, once per process).
      await (await fetch(search, { headers: { authorization: victim } })).arrayBuffer();
      await lookups(lookup, victim, 3_000);
      const idle = await lookups(lookup, victim, IDLE_MS);
      const [loaded, attack] = await Promise.all([lookups(lookup, victim, LOADED_MS), largeAnswers(search, attacker, LOADED_MS)]);
      const flooded = await Promise.all([lookups(lookup, fresh, FLOOD_MS), flood(lookup, FLOOD_MS)]);
      process.stderr.write(
        `answers (load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores): idle ${idle.n} lookups p50 ${idle.p50.toFixed(2)} ms; loaded ${loaded.n} p50 ${loaded.p50.toFixed(2)} ms; ` +
          `attacker ${attack.answers} answers of up to ${(attack.bytes / 1e6).toFixed(1)} MB with brotli, ${attack.unitsEach} units each, ${attack.refused} refused; ` +
          `flood ${flooded[1].sent} made-up keys, ${flooded[1].unavailable} answered 503\n`,
      );
      return [
        {
          name: `lookup p99 while another key fetches ${limit}-record raw-data searches at its full rate (${attack.answers} in ${LOADED_MS / 1000} s)`,
          value: loaded.p99,
          unit: "ms",
          baseline: { name: "idle p99", value: idle.p99 },
          goal: "≤ 10× idle p99",
          met: loaded.p99 <= 10 * idle.p99 && loaded.failed === 0,
        },
        {
          name: `lookups with a valid key the server did not hold yet answered other than 200, during a flood of made-up keys (${flooded[1].sent} sent, ${flooded[1].unavailable} answered 503)`,
          value: flooded[0].failed,
          unit: "answers",
          goal: "0",
          met: flooded[0].failed === 0 && flooded[1].unavailable === 0,
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const part: HostilePart = {
  title: "Answers: one key's largest answers, and made-up keys, beside another client's lookups (issue 47)",
  run: measure,
};
