/**
 * The relevance benchmark's data: the CrowdFlower catalog (built once into a
 * cached PGlite data dir under bench/.cache), the dev queries and their grades,
 * and nDCG@10 as ../shared/data/relevance/README.md defines it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openPglite } from "../server/db/open.js";
import { importRecords } from "../server/ingest/import.js";
import { readNdjson } from "../server/ingest/ndjson.js";
import { embeddingText } from "../server/search/embedding-text.js";
import type { Embedder } from "../server/search/embedder.js";
import { holdCache } from "./cache-lock.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const DATA = join(ROOT, "..", "shared", "data", "relevance", "crowdflower");

function readTsv(path: string): string[][] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split("\t"));
}

/** nDCG@10 exactly as ../shared/data/relevance/README.md defines it. */
export function ndcgAt10(ranked: readonly string[], grades: ReadonlyMap<string, number>): number {
  const gain = (grade: number) => 2 ** grade - 1;
  const dcg = ranked.slice(0, 10).reduce((sum, id, i) => sum + gain(grades.get(id) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...grades.values()].sort((a, b) => b - a).slice(0, 10);
  const idcg = ideal.reduce((sum, grade, i) => sum + gain(grade) / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * The cache key covers the data, the model and what is embedded, so any change rebuilds. The data by its content
 * (6 MB, hashed in milliseconds), not its modification time: ../shared is copied afresh on some machines, which
 * rebuilt this catalog (5 minutes) with nothing changed.
 */
function cacheDir(embedder: Embedder): string {
  const key = createHash("sha256")
    .update(readFileSync(join(DATA, "products.ndjson")))
    .update(`${embedder.model}:${embeddingText.toString()}`)
    .update(readFileSync(join(ROOT, "drizzle", "meta", "_journal.json")))
    .digest("hex")
    .slice(0, 16);
  return join(ROOT, "bench", ".cache", `relevance-${key}`);
}

/** The catalog's PGlite data dir, built (imported with `embedder`) the first time. */
export async function catalogDataDir(embedder: Embedder): Promise<string> {
  const dir = cacheDir(embedder);
  holdCache(dir);
  const done = join(dir, ".complete");
  if (!existsSync(done)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const { handle } = await openPglite(join(dir, "pg"));
    await handle.migrate();
    const started = performance.now();
    const summary = await importRecords({ db: handle.db, embedder }, readNdjson(join(DATA, "products.ndjson")), {
      batchSize: 256,
      onProgress: (s) => process.stderr.write(`\rbuilding the benchmark catalog: ${s.imported} products`),
    });
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(`\nbuilt in ${seconds.toFixed(0)} s (${(summary.imported / seconds).toFixed(0)} products/s), ${summary.failed} failed\n`);
    await handle.close();
    writeFileSync(done, new Date().toISOString());
  }
  return join(dir, "pg");
}

export async function openCatalog(embedder: Embedder) {
  const { handle } = await openPglite(await catalogDataDir(embedder));
  return handle;
}

export function relevanceDataPresent(): boolean {
  return existsSync(join(DATA, "products.ndjson"));
}

/** Dev queries as [id, text] and each query's graded products. */
export function loadDevQueries(): { queries: [string, string][]; qrels: Map<string, Map<string, number>> } {
  const queries = readTsv(join(DATA, "queries-dev.tsv")).map(([id, query]) => [id!, query!] as [string, string]);
  const qrels = new Map<string, Map<string, number>>();
  for (const [query, product, grade] of readTsv(join(DATA, "qrels-dev.tsv"))) {
    if (!qrels.has(query!)) qrels.set(query!, new Map());
    qrels.get(query!)!.set(product!, Number(grade));
  }
  return { queries, qrels };
}
