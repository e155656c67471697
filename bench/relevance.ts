/**
 * npm run bench:relevance — search quality on real shopper queries.
 *
 * Builds (once, cached in bench/.cache) a catalog from the CrowdFlower products
 * in ../shared/data/relevance, then runs the 130 dev queries through the real
 * HTTP API for each stage and prints nDCG@10 as that data's README defines it,
 * with p50/p95 latency over HTTP.
 */
import { Worker } from "node:worker_threads";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import type { Embedder } from "../server/search/embedder.js";
import { benchStages, type Stage } from "./relevance-stages.js";
import { DATA, loadDevQueries, ndcgAt10, openCatalog, percentile, relevanceDataPresent } from "./relevance-data.js";

interface Answer {
  id: string;
  ids: string[];
  ms: number;
  rerank: string | null;
}

const CLIENT = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { base, key, queries } = workerData;
  const call = (q) => fetch(base + "/api/v1/products/search?limit=10&q=" + encodeURIComponent(q), { headers: { authorization: key } });
  await (await call("warm up")).arrayBuffer();
  const answers = [];
  for (const [id, q] of queries) {
    const started = performance.now();
    const response = await call(q);
    const body = await response.json();
    answers.push({ id, ids: body.products.map((p) => p.pdp.id), ms: performance.now() - started, rerank: response.headers.get("x-rerank") });
  }
  parentPort.postMessage(answers);
})();
`;

function askFromWorker(base: string, key: string, queries: [string, string][]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { base, key, queries } });
    worker.once("message", (answers: Answer[]) => void worker.terminate().then(() => resolve(answers)));
    worker.once("error", reject);
  });
}

interface StageResult {
  name: string;
  ndcg: number;
  p50: number;
  p95: number;
  fallbacks: number;
}

async function runStage(
  stage: Stage,
  database: Awaited<ReturnType<typeof openCatalog>>,
  embedder: Embedder,
  queries: [string, string][],
  qrels: Map<string, Map<string, number>>,
): Promise<StageResult> {
  const config = { ...loadConfig(process.env), API_PREFIXES: ["/api/v1"], LOG_LEVEL: "silent" as const };
  const root = createRoot(config, { role: "server", database, embedder, reranker: () => stage.reranker, retrieval: stage.retrieval });
  const services = await root.services();
  // As the server does at start.
  await stage.reranker.warm?.();
  const app = await root.app();
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  // 130 searches at 5 units each outrun the default 600 a minute once a stage takes under a minute.
  const { key } = await services.keys.issue({ name: `bench ${stage.name}`, environment: "dev", rateLimitPerMinute: 1_000_000 });
  // The client runs on its own thread, so its work does not queue behind the server's on one event loop.
  const answers = await askFromWorker(base, key, queries);
  const scores = answers.map((answer) => ndcgAt10(answer.ids, qrels.get(answer.id) ?? new Map()));
  const latencies = answers.map((answer) => answer.ms);
  const fallbacks = answers.filter((answer) => answer.rerank === "fallback").length;
  await root.close();
  return {
    name: stage.name,
    ndcg: scores.reduce((a, b) => a + b, 0) / scores.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    fallbacks,
  };
}

async function main(): Promise<void> {
  if (!relevanceDataPresent()) {
    console.log(`skipped: ${DATA} is absent (the relevance data lives beside the repository in ../shared)`);
    return;
  }
  const { queries, qrels } = loadDevQueries();
  const embedder = await createLocalEmbedder();
  const database = await openCatalog(embedder);
  const results: StageResult[] = [];
  for (const stage of benchStages(database)) {
    results.push(await runStage(stage, database, embedder, queries, qrels));
  }
  await database.close();
  await embedder.close();

  const baseline = results.find((r) => r.name === "hybrid")?.ndcg ?? Number.NaN;
  console.log(`\nnDCG@10 on ${queries.length} dev queries, ${new Date().toISOString().slice(0, 10)}, node ${process.version}\n`);
  console.log("| stage | nDCG@10 | vs hybrid | p50 ms | p95 ms |");
  console.log("|---|---|---|---|---|");
  for (const r of results) {
    const note = r.fallbacks > 0 ? ` (${r.fallbacks} fallbacks)` : "";
    console.log(`| ${r.name}${note} | ${r.ndcg.toFixed(4)} | ${(r.ndcg / baseline).toFixed(3)}× | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |`);
  }
  console.log(
    "\nreference (../shared/data/relevance/README.md): BM25 0.7125, USE vectors 0.490, their fusion 0.72; goal for the default ≥ 0.76, p95 ≤ 50 ms",
  );
}

await main();
