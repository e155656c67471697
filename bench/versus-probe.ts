/**
 * One latency sample for bench:versus: the 130 CrowdFlower dev queries through the HTTP API with the default search
 * (hybrid retrieval, the configured reranker), printed as one JSON line of per-query milliseconds. bench/versus.ts runs
 * it in this tree and in an older commit's, so it uses only what both have.
 */
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { createReranker } from "../server/search/providers.js";
import { loadDevQueries, openCatalog } from "./relevance-data.js";

const passes = Number(process.argv[2] ?? "3");
const config = { ...loadConfig(process.env), API_PREFIXES: ["/api/v1"], LOG_LEVEL: "silent" as const };
const embedder = await createLocalEmbedder();
const database = await openCatalog(embedder);
const reranker = createReranker(config, database.db);
const root = createRoot(config, { role: "server", database, embedder, reranker: () => reranker, retrieval: "hybrid" });
const services = await root.services();
await reranker.warm?.();
await services.search.warm?.();
const app = await root.app();
const base = await app.listen({ host: "127.0.0.1", port: 0 });
const { key } = await services.keys.issue({ name: "versus", environment: "dev", rateLimitPerMinute: 1_000_000 });
const ask = async (q: string) => {
  const response = await fetch(`${base}/api/v1/products/search?limit=10&q=${encodeURIComponent(q)}`, { headers: { authorization: key } });
  await response.arrayBuffer();
};
const { queries } = loadDevQueries();
for (const [, q] of queries.slice(0, 10)) await ask(q);
const ms: number[] = [];
for (let pass = 0; pass < passes; pass++) {
  for (const [, q] of queries) {
    const started = performance.now();
    await ask(q);
    ms.push(performance.now() - started);
  }
}
console.log(JSON.stringify({ ms }));
await root.close();
await database.close();
await embedder.close();
