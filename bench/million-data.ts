/**
 * bench:million's catalog: N generated products (http-catalog.ts's generator, widened: `syntheticProduct` with
 * options) with vectors supplied in the records, as an operator with precomputed vectors would import them.
 *
 * The vectors: the real sentence encoder embeds a pool of distinct base names ("Waterproof wool jacket") once, cached
 * under bench/.cache; each product takes its base name's vector (its full name adds a colour or a size, which the
 * vector does not see), moved by a little noise of its own (cosine ~0.95 to the name's): identical vectors would
 * share HNSW entries (pgvector keeps one element for equal vectors), and the index would measure a tenth of its
 * size. So the load measures the database, not the encoder, and similar products have similar vectors, as real
 * ones do.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { ParsedLine } from "../server/ingest/ndjson.js";
import { parseLine } from "../server/ingest/ndjson.js";
import { createThreadedEmbedder } from "../server/search/embedders/threads.js";
import { type BaseName, baseNames, rng, syntheticProduct } from "./http-catalog.js";
import { CACHE } from "./http-server.js";

export interface NamePool {
  names: BaseName[];
  vectors: Map<string, number[]>;
  model: string;
}

/** `howMany` base names and their vectors, embedded once with the local encoder (cached by the names and model). */
export async function namePool(howMany: number, threads: number): Promise<NamePool> {
  const names = baseNames(howMany);
  const key = createHash("sha256")
    .update(names.map((n) => n.name).join("\n"))
    .digest("hex")
    .slice(0, 16);
  const file = join(CACHE, `million-names-${key}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, "utf8")) as { model: string; vectors: [string, number[]][] };
    return { names, vectors: new Map(cached.vectors), model: cached.model };
  }
  process.stderr.write(`embedding ${names.length} distinct base names once (cached in ${file})…\n`);
  const encoder = await createThreadedEmbedder({ threads });
  const vectors = new Map<string, number[]>();
  for (let at = 0; at < names.length; at += 64) {
    const batch = names.slice(at, at + 64).map((n) => n.name);
    const made = await encoder.embed(batch);
    for (const [i, name] of batch.entries()) vectors.set(name, made[i]!);
  }
  const model = encoder.model;
  await encoder.close();
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, JSON.stringify({ model, vectors: [...vectors] }));
  return { names, vectors, model };
}

/** Spread of the noise per dimension: |noise|² ≈ 512 × 0.0145² ≈ 0.108, so cosine to the base ≈ 1 / √1.108 ≈ 0.95. */
const NOISE = 0.0145;

/** `vector` plus a little Gaussian noise, as a new array (the encoder normalises; ingest/vectors.ts does here). */
function jittered(vector: readonly number[], random: () => number): number[] {
  return vector.map((x) => x + NOISE * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
}

/** The brands of a catalog of `count` products: one per 250 products, at least the 100,000 catalog's 400. */
export const brandsFor = (count: number) => Math.max(400, Math.round(count / 250));

/** Products `from` to `to` (exclusive) as the text of NDJSON lines, each with its vector in the `embedding` field. */
export function* productTexts(pool: NamePool, count: number, from: number, to: number, seed = 1): Generator<string> {
  const options = { names: pool.names, brands: brandsFor(count) };
  for (let i = from; i < to; i++) {
    // A generator per product: product i is the same whichever range it is read in (a resumed load, the floor's).
    const random = rng(seed * 1_000_003 + i);
    const record = syntheticProduct(i, random, options);
    const base = record.name.slice(0, record.name.lastIndexOf(","));
    const embedding = { model: pool.model, vector: jittered(pool.vectors.get(base)!, random) };
    yield JSON.stringify({ ...record, embedding });
  }
}

/**
 * Products `from` to `to` (exclusive) as NDJSON lines read by `catalog import` (parseLine: JSON, schema, caps). The
 * same `seed` makes the same catalog.
 */
export function* productLines(pool: NamePool, count: number, from: number, to: number, seed = 1): Generator<ParsedLine> {
  let line = from;
  for (const text of productTexts(pool, count, from, to, seed)) yield parseLine("generated", ++line, text);
}

/** Lines a request of the generator thread's. */
const CHUNK = 1000;

/**
 * `productLines`, with the lines' text made on a thread of its own, as a file's lines come from the disk: this thread
 * only reads them (parseLine) and imports them, so a load measures the import, not the generator. Two chunks ahead.
 */
export async function* productLinesThreaded(pool: NamePool, count: number, from: number, to: number): AsyncGenerator<ParsedLine> {
  const tsx = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./million-lines-thread.ts", import.meta.url);
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  const worker = new Worker(boot, { eval: true, workerData: { pool, count } });
  const waiting: ((texts: string[]) => void)[] = [];
  worker.on("message", (texts: string[]) => waiting.shift()?.(texts));
  const ask = (at: number) =>
    new Promise<string[]>((resolve) => {
      waiting.push(resolve);
      worker.postMessage({ from: at, to: Math.min(to, at + CHUNK) });
    });
  try {
    const ahead: Promise<string[]>[] = [];
    for (let at = from; at < to || ahead.length > 0; ) {
      while (ahead.length < 2 && at < to) {
        ahead.push(ask(at));
        at += CHUNK;
      }
      const texts = await ahead.shift()!;
      const first = at - (ahead.length + 1) * CHUNK;
      for (const [index, text] of texts.entries()) yield parseLine("generated", first + index + 1, text);
    }
  } finally {
    await worker.terminate();
  }
}
