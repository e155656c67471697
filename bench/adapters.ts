/**
 * npm run bench:adapters — what the HTTP adapter costs, with trpc-to-openapi's
 * OpenAPI document kept as the contract (the issue: "if the bridge itself is
 * the cost, measure the alternatives … and choose with numbers").
 *
 * One app (bench/adapters-server.ts, a child process so autocannon does not
 * share its event loop) answers get-by-id for the same product from the same
 * catalog service four ways: a bare route answering the envelope from memory
 * (the floor), trpc-to-openapi's Fastify adapter, a route calling the procedure
 * with tRPC's callTRPCProcedure, and the shipped REST plugin, as
 * api/http/rest.ts does (what we ship). The product cache makes every lookup a
 * memory hit, and auth is verified once at start for all, so what differs is
 * the adapter. Every adapter must answer 200 with the same bytes before any is
 * measured.
 *
 * Options: --duration S (default 10), --warmup S (default 2), --connections N (default 50).
 */
import { existsSync, mkdirSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual, parseArgs } from "node:util";
import { readNdjson } from "../server/ingest/ndjson.js";
import { prepareRecord } from "../server/ingest/record.js";
import { SAMPLE_CATALOG_PATH } from "../server/sample/index.js";
import { measure } from "./http-load.js";
import { CACHE, log, ROOT, startScript } from "./http-server.js";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "50" },
  },
});
const RUN = { seconds: Number(flags.duration), warmup: Number(flags.warmup), connections: Number(flags.connections) };

const ADAPTERS = [
  { name: "floor (bare route, envelope from memory)", path: (id: string) => `/floor/products/${id}` },
  { name: "trpc-to-openapi Fastify adapter", path: (id: string) => `/bridge/products/${id}` },
  { name: "callTRPCProcedure route", path: (id: string) => `/call/products/${id}` },
  { name: "shipped REST route (rest.ts)", path: (id: string) => `/rest/products/${id}` },
] as const;

const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

/** The first sample record's id: the server imports the first few records, this one among them. */
async function productId(): Promise<string> {
  for await (const line of readNdjson(SAMPLE_CATALOG_PATH)) {
    if ("error" in line) throw new Error(`sample line ${line.line}: ${line.error}`);
    return prepareRecord(line.record).id;
  }
  throw new Error("the sample catalog is empty");
}

/**
 * Every adapter must answer 200 with the same JSON, or a fast case could be a wrong one. Equal as JSON, not as bytes:
 * an adapter that validates output rebuilds objects in its schema's key order (identifiers' `sku, gtin, mpn`), while
 * the shipped route sends the stored record's (jsonb's), and JSON objects are unordered.
 */
async function checkSameAnswers(base: string, id: string): Promise<void> {
  const answers: { name: string; body: Buffer }[] = [];
  for (const adapter of ADAPTERS) {
    const response = await fetch(base + adapter.path(encodeURIComponent(id)));
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${adapter.name} answered ${response.status}: ${body.toString("utf8").slice(0, 500)}`);
    answers.push({ name: adapter.name, body });
  }
  const [first, ...rest] = answers;
  const parsed: unknown = JSON.parse(first!.body.toString("utf8"));
  if (typeof parsed !== "object" || parsed === null || !("pdp" in parsed)) throw new Error(`${first!.name} did not answer an envelope`);
  for (const other of rest) {
    if (other.body.equals(first!.body) || isDeepStrictEqual(JSON.parse(other.body.toString("utf8")), parsed)) continue;
    let at = 0;
    while (at < Math.min(first!.body.length, other.body.length) && first!.body[at] === other.body[at]) at++;
    const around = (body: Buffer) => body.subarray(Math.max(0, at - 40), at + 40).toString("utf8");
    throw new Error(
      `${other.name} answered different JSON from ${first!.name} (${other.body.length} vs ${first!.body.length} bytes, first difference at byte ${at}):\n` +
        `  ${first!.name}: …${around(first!.body)}…\n  ${other.name}: …${around(other.body)}…`,
    );
  }
  log(`all ${ADAPTERS.length} adapters answered 200 with the same JSON (${first!.body.length} bytes)`);
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, "node_modules", "autocannon"))) throw new Error("autocannon is missing: npm install");
  mkdirSync(CACHE, { recursive: true });
  const id = await productId();
  log("starting bench/adapters-server.ts (imports sample records with the local embedder)…");
  const server = await startScript("adapters-server", [id], "main");
  const loadAtStart = loadAverage();
  const results: { name: string; rps: number; p50: number; p99: number; bad: number }[] = [];
  try {
    await checkSameAnswers(server.base, id);
    for (const adapter of ADAPTERS) {
      const measured = await measure(server.base, [adapter.path(encodeURIComponent(id))], {}, RUN);
      log(`  ${adapter.name}: ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50.toFixed(1)} ms, p99 ${measured.p99.toFixed(1)} ms`);
      results.push({ name: adapter.name, ...measured });
    }
  } finally {
    await server.stop();
  }

  const started = new Date().toISOString().slice(0, 16).replace("T", " ");
  console.log(`\nnpm run bench:adapters — ${started} UTC, node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})`);
  console.log(
    `get-by-id for one product (a product-cache hit), ${RUN.connections} connections, ${RUN.seconds} s per adapter after ${RUN.warmup} s warm-up; ` +
      `autocannon in this process, the app in another. No logger, no auth or rate-limit hooks (the key is verified once at start). ` +
      `Load average at the start ${loadAtStart}, at the end ${loadAverage()}. ` +
      `The floor JSON.stringifies the envelope on every request, as does callTRPCProcedure's route (output validation gives a new object each time) ` +
      `and the trpc-to-openapi adapter; the shipped route sends the string caching.ts serialised once per cached product, so it can beat the floor.\n`,
  );
  console.log("| adapter | req/s | p50 ms | p99 ms | req/s vs floor |");
  console.log("|---|---|---|---|---|");
  const floor = results[0]!;
  for (const r of results) {
    console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${((100 * r.rps) / floor.rps).toFixed(1)}% |`);
  }
  const [, bridge, call, rest] = results;
  console.log(
    `\nConclusion: the shipped route serves ${((100 * rest!.rps) / floor.rps).toFixed(0)}% of the floor's req/s, ` +
      `${(rest!.rps / bridge!.rps).toFixed(2)}× trpc-to-openapi's adapter and ${(rest!.rps / call!.rps).toFixed(2)}× callTRPCProcedure.`,
  );
  const failed = results.filter((r) => r.bad > 0);
  for (const r of failed) console.log(`warning: ${r.name} had ${r.bad} failed requests (non-2xx, errors or timeouts) during its run`);
}

await main();
