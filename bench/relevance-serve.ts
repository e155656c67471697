/** Serving a bench catalog over loopback HTTP with one stage, and asking it queries from a worker thread. */
import { Worker } from "node:worker_threads";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import type { DatabaseHandle } from "../server/db/open.js";
import type { Embedder } from "../server/search/embedder.js";
import type { Stage } from "./relevance-stages.js";

export interface Answer {
  id: string;
  ids: string[];
  urls: string[];
  /** The answer's message codes (`weak_matches`, `unmatched_words`, …). */
  messages: string[];
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
    if (!response.ok) throw new Error(q + ": " + response.status + " " + JSON.stringify(body));
    answers.push({
      id,
      ids: body.products.map((p) => p.pdp.id),
      urls: body.products.map((p) => p.pdp.url),
      ms: performance.now() - started,
      messages: (body.messages ?? []).map((m) => m.code),
      rerank: response.headers.get("x-rerank"),
    });
  }
  parentPort.postMessage(answers);
})();
`;

function askFromWorker(base: string, key: string, queries: readonly (readonly [string, string])[]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { eval: true, workerData: { base, key, queries } });
    worker.once("message", (answers: Answer[]) => void worker.terminate().then(() => resolve(answers)));
    worker.once("error", reject);
  });
}

/** Serves one catalog with one stage over loopback HTTP, and asks it queries from a worker thread. */
export async function serve(stage: Stage, database: DatabaseHandle, embedder: Embedder) {
  const config = { ...loadConfig(process.env), API_PREFIXES: ["/api/v1"], LOG_LEVEL: "silent" as const };
  const reranker = stage.reranker(database.db);
  const root = createRoot(config, { role: "server", database, embedder, reranker: () => reranker, retrieval: stage.retrieval });
  const services = await root.services();
  // As the server does at start.
  await reranker.warm?.();
  await services.search.warm?.();
  const app = await root.app();
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  // 130 searches at 5 units each outrun the default 600 a minute once a stage takes under a minute.
  const { key } = await services.keys.issue({ name: `bench ${stage.name}`, environment: "dev", rateLimitPerMinute: 1_000_000 });
  return {
    // The client runs on its own thread, so its work does not queue behind the server's on one event loop.
    ask: (queries: readonly (readonly [string, string])[]) => askFromWorker(base, key, queries),
    close: () => root.close(),
  };
}
