/**
 * npm run bench:tune-local — searches the local reranker's weights on the dev
 * queries (never on held-out ones). Retrieval runs once; the features of each
 * query's candidates are computed once; then weight combinations are scored.
 */
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { combine, createLocalReranker, DEFAULT_WEIGHTS, type Features, type LocalWeights } from "../server/search/rerankers/local.js";
import { noneReranker } from "../server/search/reranker.js";
import type { Product } from "../shared/schemas/index.js";
import { loadDevQueries, ndcgAt10, openCatalog, relevanceDataPresent } from "./relevance-data.js";

const config = loadConfig(process.env);
const CANDIDATES = config.RERANK_CANDIDATES;

if (!relevanceDataPresent()) {
  console.log("skipped: ../shared/data/relevance is absent");
  process.exit(0);
}
const { queries, qrels } = loadDevQueries();
const embedder = await createLocalEmbedder();
const database = await openCatalog(embedder);
// Retrieval order, unreranked: the weights are tuned on what the reranker is given.
const services = await createRoot(config, { role: "cli", database, embedder, reranker: () => noneReranker }).services();

const retrieved: { grades: Map<string, number>; q: string; products: Product[]; vector: number[] }[] = [];
let hybrid = 0;
for (const [id, q] of queries) {
  const { hits } = await services.search.search({ q, limit: CANDIDATES, include_raw_data: false, parse_query: true, explain: false });
  const products = hits.map((hit) => hit.product);
  const grades = qrels.get(id) ?? new Map<string, number>();
  hybrid +=
    ndcgAt10(
      products.map((p) => p.id),
      grades,
    ) / queries.length;
  retrieved.push({ grades, q, products, vector: (await embedder.embed([q]))[0]! });
}

let prepared: { grades: Map<string, number>; ids: string[]; features: Features[] }[] = [];
async function prepare(weights: LocalWeights): Promise<void> {
  const reranker = createLocalReranker({ db: database.db, weights });
  prepared = [];
  for (const { grades, q, products, vector } of retrieved) {
    prepared.push({ grades, ids: products.map((p) => p.id), features: await reranker.scoreCandidates(q, products, { queryVector: vector }) });
  }
}

function evaluate(weights: LocalWeights): number {
  let total = 0;
  for (const { grades, ids, features } of prepared) {
    const max = Math.max(0, ...features.map((f) => f.bm25));
    const order = ids
      .map((id, i) => ({ id, i, s: combine(features[i]!, max, weights) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .map((o) => o.id);
    total += ndcgAt10(order, grades);
  }
  return total / prepared.length;
}

console.log(`hybrid (no rerank), ${CANDIDATES} candidates: ${hybrid.toFixed(4)}`);
await prepare(DEFAULT_WEIGHTS);
console.log(`default weights: ${evaluate(DEFAULT_WEIGHTS).toFixed(4)}`);
let best = { score: 0, weights: DEFAULT_WEIGHTS };
for (const name of [3, 5])
  for (const desc of [1])
    for (const b of [0.5]) {
      const base = { ...DEFAULT_WEIGHTS, fields: { name, brands: 2, desc }, b };
      await prepare(base);
      for (const bm25 of [0.5, 1, 2])
        for (const coverage of [0.5, 1, 2, 3])
          for (const phrase of [0, 0.25, 0.5])
            for (const cosine of [1, 2, 3, 4])
              for (const head of [0, 0.5, 1, 1.5, 2])
                for (const accessory of [0, 0.5, 1, 2]) {
                  const weights = { ...base, bm25, coverage, phrase, cosine, head, accessory };
                  const score = evaluate(weights);
                  if (score > best.score) best = { score, weights };
                }
      console.log(`fields name ${name} desc ${desc} b ${b}: best so far ${best.score.toFixed(4)}`);
    }
console.log(`best: ${best.score.toFixed(4)}`, JSON.stringify(best.weights));
await database.close();
await embedder.close();
