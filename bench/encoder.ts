/**
 * npm run bench:encoder [-- --texts N] — the local sentence encoder (server/search/embedders/local.ts) alone, on one
 * thread: CPU milliseconds and texts a second by batch size and by text length, over the first N CrowdFlower products
 * (default 512). The text an import embeds (embedding-text.ts: name and brands) is the baseline row; longer texts
 * (the description's first 200 and 1,000 characters added) show what length costs. Also prints which WASM build
 * TF.js chose (SIMD, threads): issue 49 asks whether SIMD and batch shapes could lower the encoder's CPU per product.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as core from "@energetic-ai/core";
import { embeddingText } from "../server/search/embedding-text.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { DATA, relevanceDataPresent } from "./relevance-data.js";

const { values } = parseArgs({ options: { texts: { type: "string", default: "512" } } });
const N = Number(values.texts);
/** What one of two encoder threads is sent from an import's batch of 64 (threads.ts deals a batch out by length). */
const CALL = 32;
/** The local encoder's default batch (embedders/local.ts). */
const DEFAULT_BATCH = 8;

// The published .d.ts re-export @tensorflow/* types that are bundled, not installed (see embedders/local.ts): the
// little read here, named.
const tf = core as unknown as { env(): { getAsync(flag: string): Promise<boolean> }; getBackend(): string };

interface Row {
  name: string;
  brands?: string[];
  desc?: string;
}

function products(): Row[] {
  const lines = readFileSync(join(DATA, "products.ndjson"), "utf8").split("\n").filter(Boolean).slice(0, N);
  return lines.map((line) => JSON.parse(line) as Row);
}

/**
 * CPU ms a text (this process, every thread) and texts a second, embedding `texts` in batches of `batch`: the better
 * of two runs, so a neighbour's burst on the shared machine counts less.
 */
async function measure(texts: readonly string[], batch: number, call: number): Promise<{ cpu: number; rate: number }> {
  const embedder = await createLocalEmbedder({ batchSize: batch });
  await embedder.embed(texts.slice(0, batch)); // this batch shape's kernels, compiled once
  let best = { cpu: Number.POSITIVE_INFINITY, rate: 0 };
  for (let run = 0; run < 2; run++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let at = 0; at < texts.length; at += call) await embedder.embed(texts.slice(at, at + call));
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const measured = { cpu: (used.user + used.system) / 1000 / texts.length, rate: texts.length / seconds };
    if (measured.cpu < best.cpu) best = measured;
  }
  await embedder.close();
  return best;
}

if (!relevanceDataPresent()) {
  console.log("skipped: ../shared/data/relevance is absent");
} else {
  const rows = products();
  const shapes: [string, string[]][] = [
    ["name and brands (what an import embeds)", rows.map((row) => embeddingText({ name: row.name, brands: row.brands ?? [] }))],
    ["+ the description's first 200 characters", rows.map((row) => `${row.name} ${(row.desc ?? "").slice(0, 200)}`)],
    ["+ the description's first 1,000 characters", rows.map((row) => `${row.name} ${(row.desc ?? "").slice(0, 1000)}`)],
  ];
  await core.ready();
  const flags = tf.env();
  const simd = await flags.getAsync("WASM_HAS_SIMD_SUPPORT");
  const threads = await flags.getAsync("WASM_HAS_MULTITHREAD_SUPPORT");
  console.log(`\nbench:encoder, ${N} CrowdFlower products, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC,`);
  console.log(`${cpus().length} cores (${cpus()[0]?.model ?? "?"}), node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}`);
  console.log(`TF.js ${tf.getBackend()} backend: SIMD ${simd}, multithreaded WASM ${threads}\n`);
  console.log("| text | mean characters | texts a call | batch | CPU ms a text | texts/s |");
  console.log("|---|---|---|---|---|---|");
  for (const [i, [label, texts]] of shapes.entries()) {
    const chars = texts.reduce((sum, text) => sum + text.length, 0) / texts.length;
    // Batch shapes on what an import embeds, in one call (sorted by length as a whole) and in the calls of 32 that
    // each of two encoder threads is sent from an import's batch of 64; the longer texts at the default batch.
    for (const call of i === 0 ? [texts.length, CALL] : [texts.length]) {
      for (const batch of i === 0 ? [1, 4, 8, 16, 32, 64] : [DEFAULT_BATCH]) {
        const { cpu, rate } = await measure(texts, batch, call);
        console.log(`| ${label} | ${chars.toFixed(0)} | ${call} | ${batch} | ${cpu.toFixed(1)} | ${rate.toFixed(1)} |`);
      }
    }
  }
}
