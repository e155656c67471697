/**
 * npm run bench:tune-local — searches the local reranker's weights on the dev
 * queries and the sample-catalog set (never on held-out queries). Retrieval runs
 * once per query; the features of each query's candidates are computed once per
 * setting of the parameters inside them (field weights, what a correction or a
 * synonym counts, the description's credit); then the linear weights are found
 * by coordinate ascent on the mean of the two nDCG@10 figures, printed apart.
 */
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { openPglite } from "../server/db/open.js";
import { products as productsTable } from "../server/db/schema.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { noneReranker } from "../server/search/reranker.js";
import { combine, createLocalReranker, DEFAULT_WEIGHTS, type Features, type LocalWeights } from "../server/search/rerankers/local.js";
import { loadSynonyms } from "../server/search/synonyms.js";
import { type QueryPlan, understand } from "../server/search/understand.js";
import { readVocabulary } from "../server/search/vocabulary.js";
import type { Product } from "../shared/schemas/index.js";
import { sampleCatalog } from "./http-catalog.js";
import { loadDevQueries, ndcgAt10, openCatalog, relevanceDataPresent } from "./relevance-data.js";
import { loadSampleQueries } from "./sample-set.js";

const config = loadConfig({ ...process.env, SAMPLE_CATALOG: "false", LOG_LEVEL: "silent" });
const CANDIDATES = config.RERANK_CANDIDATES;

if (!relevanceDataPresent()) {
  console.log("skipped: ../shared/data/relevance is absent");
  process.exit(0);
}

interface Retrieved {
  grades: Map<string, number>;
  q: string;
  plan: QueryPlan;
  products: Product[];
  vector: number[];
}

const embedder = await createLocalEmbedder();
const synonyms = loadSynonyms({ builtin: config.SYNONYMS_BUILTIN, file: config.SYNONYMS_FILE });

/** Retrieval order, unreranked: the weights are tuned on what the reranker is given. */
async function retrieve(database: Awaited<ReturnType<typeof openCatalog>>, queries: { q: string; grades: Map<string, number> }[]) {
  const root = createRoot(config, { role: "cli", database, embedder, reranker: () => noneReranker });
  const services = await root.services();
  const vocabulary = await readVocabulary(database.db);
  const retrieved: Retrieved[] = [];
  for (const { q, grades } of queries) {
    const { hits } = await services.search.search({ q, limit: CANDIDATES, include_raw_data: false, parse_query: true, typos: true, explain: false });
    const plan = understand(q, { vocabulary, synonyms });
    retrieved.push({ grades, q, plan, products: hits.map((hit) => hit.product), vector: (await embedder.embed([plan.embedText]))[0]! });
  }
  await root.close();
  return retrieved;
}

const { queries, qrels } = loadDevQueries();
const dev = await openCatalog(embedder);
const devRetrieved = await retrieve(
  dev,
  queries.map(([id, q]) => ({ q, grades: qrels.get(id) ?? new Map<string, number>() })),
);
const sample = await openPglite((await sampleCatalog()).dataDir);
const idByUrl = new Map(
  (await sample.handle.db.select({ id: productsTable.id, url: productsTable.url }).from(productsTable)).map((r) => [r.url, r.id]),
);
const sampleRetrieved = await retrieve(
  sample.handle,
  loadSampleQueries()
    .filter((query) => Object.keys(query.grades).length > 0)
    .map((query) => ({ q: query.q, grades: new Map(Object.entries(query.grades).map(([url, grade]) => [idByUrl.get(url) ?? url, grade])) })),
);

type Prepared = { grades: Map<string, number>; ids: string[]; features: Features[] }[];
async function prepare(database: Awaited<ReturnType<typeof openCatalog>>, retrieved: Retrieved[], weights: LocalWeights): Promise<Prepared> {
  const reranker = createLocalReranker({ db: database.db, weights });
  const prepared: Prepared = [];
  for (const { grades, q, plan, products, vector } of retrieved) {
    prepared.push({ grades, ids: products.map((p) => p.id), features: await reranker.scoreCandidates(q, products, { queryVector: vector, plan }) });
  }
  return prepared;
}

function evaluate(prepared: Prepared, weights: LocalWeights): number {
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

const LINEAR = ["bm25", "coverage", "coverageAll", "phrase", "cosine", "head", "type", "accessory"] as const;
const VALUES = [0, 0.25, 0.5, 1, 1.5, 2, 3, 4];
const show = (weights: LocalWeights, a: Prepared, b: Prepared) => `dev ${evaluate(a, weights).toFixed(4)} sample ${evaluate(b, weights).toFixed(4)}`;

async function ascend(base: LocalWeights): Promise<{ score: number; weights: LocalWeights; dev: Prepared; sample: Prepared }> {
  const devPrepared = await prepare(dev, devRetrieved, base);
  const samplePrepared = await prepare(sample.handle, sampleRetrieved, base);
  const score = (weights: LocalWeights) => (evaluate(devPrepared, weights) + evaluate(samplePrepared, weights)) / 2;
  let best = { score: score(base), weights: base };
  for (let pass = 0; pass < 3; pass++) {
    let improved = false;
    for (const name of LINEAR) {
      for (const value of VALUES) {
        const weights = { ...best.weights, [name]: value };
        const candidate = score(weights);
        if (candidate > best.score + 1e-6) {
          best = { score: candidate, weights };
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return { ...best, dev: devPrepared, sample: samplePrepared };
}

{
  const devPrepared = await prepare(dev, devRetrieved, DEFAULT_WEIGHTS);
  const samplePrepared = await prepare(sample.handle, sampleRetrieved, DEFAULT_WEIGHTS);
  console.log(`${CANDIDATES} candidates; default weights: ${show(DEFAULT_WEIGHTS, devPrepared, samplePrepared)}`);
}
let overall = { score: 0, weights: DEFAULT_WEIGHTS };
for (const name of [3, 5])
  for (const desc of [0.5, 1])
    for (const synonym of [0.6, 0.8])
      for (const descCredit of [0.3, 0.5]) {
        const base = {
          ...overall.weights,
          fields: { name, brands: 2, desc },
          forms: { correction: 0.8, synonym },
          credit: { category: 0.7, desc: descCredit },
        };
        const found = await ascend(base);
        console.log(`name ${name} desc ${desc} synonym ${synonym} desc credit ${descCredit}: ${show(found.weights, found.dev, found.sample)}`);
        if (found.score > overall.score) overall = found;
      }
console.log(`best: ${overall.score.toFixed(4)}`, JSON.stringify(overall.weights));
await dev.close();
await sample.handle.close();
await embedder.close();
