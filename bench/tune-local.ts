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
import { createLocalReranker } from "../server/search/rerankers/local.js";
import { DEFAULT_WEIGHTS, type LocalWeights, rankScored, type Scored } from "../server/search/rerankers/ranking.js";
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
  loadSampleQueries().map((query) => ({
    q: query.q,
    grades: new Map(Object.entries(query.grades).map(([url, grade]) => [idByUrl.get(url) ?? url, grade])),
  })),
);

type Prepared = { grades: Map<string, number>; ids: string[]; features: Scored[] }[];
async function prepare(database: Awaited<ReturnType<typeof openCatalog>>, retrieved: Retrieved[], weights: LocalWeights): Promise<Prepared> {
  const reranker = createLocalReranker({ db: database.db, weights });
  const prepared: Prepared = [];
  for (const { grades, q, plan, products, vector } of retrieved) {
    prepared.push({ grades, ids: products.map((p) => p.id), features: await reranker.scoreCandidates(q, products, { queryVector: vector, plan }) });
  }
  return prepared;
}

/** Candidates in the weights' order, those under the relevance floor left out. */
function ranked(features: readonly Scored[], ids: readonly string[], weights: LocalWeights): string[] {
  return rankScored(features, ids, weights)
    .filter((o) => !o.unrelated)
    .map((o) => o.id);
}

/** Mean nDCG@10 over the queries with graded products. */
function evaluate(prepared: Prepared, weights: LocalWeights): number {
  const graded = prepared.filter(({ grades }) => grades.size > 0);
  return graded.reduce((total, { grades, ids, features }) => total + ndcgAt10(ranked(features, ids, weights), grades), 0) / graded.length;
}

/** The sample set's goals: the best product in the top three, nothing unrelated in the top five (shares of queries). */
function goals(prepared: Prepared, weights: LocalWeights): string {
  let top3 = 0;
  let unrelated = 0;
  for (const { grades, ids, features } of prepared) {
    const order = ranked(features, ids, weights);
    const best = Math.max(0, ...grades.values());
    if (grades.size === 0 ? order.length === 0 : order.slice(0, 3).some((id) => grades.get(id) === best)) top3++;
    if (order.slice(0, 5).some((id) => !grades.has(id))) unrelated++;
  }
  return `best in top 3 ${((100 * top3) / prepared.length).toFixed(0)}%, unrelated in top 5 ${((100 * unrelated) / prepared.length).toFixed(0)}%`;
}

const NONE = { coverage: 0, cosine: 0 };
/** The weights are tuned with the relevance floor off: it can only lower nDCG, and is calibrated last. */
const NO_FLOORS = {
  floor: Number.POSITIVE_INFINITY,
  weak: NONE,
  faint: NONE,
  otherKind: Number.POSITIVE_INFINITY,
  otherDepartment: Number.POSITIVE_INFINITY,
  otherSort: false,
  headless: false,
  lacksUse: false,
  whatFor: false,
  misread: false,
  unsold: NONE,
  wordless: 0,
};
/** The floors as shipped. */
const DEFAULT_FLOORS = {
  floor: DEFAULT_WEIGHTS.floor,
  weak: DEFAULT_WEIGHTS.weak,
  faint: DEFAULT_WEIGHTS.faint,
  otherKind: DEFAULT_WEIGHTS.otherKind,
  otherDepartment: DEFAULT_WEIGHTS.otherDepartment,
  otherSort: DEFAULT_WEIGHTS.otherSort,
  headless: DEFAULT_WEIGHTS.headless,
  lacksUse: DEFAULT_WEIGHTS.lacksUse,
  whatFor: DEFAULT_WEIGHTS.whatFor,
  misread: DEFAULT_WEIGHTS.misread,
  unsold: DEFAULT_WEIGHTS.unsold,
  wordless: DEFAULT_WEIGHTS.wordless,
};
/** The order the floors are calibrated in below: each is measured beside those before it, as shipped, and none after it. */
const CALIBRATION = [
  "floor",
  "weak",
  "otherKind",
  "faint",
  "otherDepartment",
  "otherSort",
  "headless",
  "lacksUse",
  "whatFor",
  "misread",
  "unsold",
  "wordless",
] as const;
function floorsBefore(floor: (typeof CALIBRATION)[number]): typeof NO_FLOORS {
  const floors = { ...NO_FLOORS };
  for (const name of CALIBRATION.slice(0, CALIBRATION.indexOf(floor))) Object.assign(floors, { [name]: DEFAULT_FLOORS[name] });
  return floors;
}
/**
 * `ages`, `sex`, `avoided` and `use` are not climbed: no dev query names an age or a word not wanted, or describes what
 * a product is to do, and `sex` moves no dev top ten, so they would be tuned on a few sample queries.
 */
const LINEAR = ["bm25", "coverage", "coverageAll", "phrase", "sequence", "cosine", "head", "type", "headNamed", "accessory"] as const;
const VALUES = [0, 0.25, 0.5, 1, 1.5, 2, 3, 4];
const show = (weights: LocalWeights, a: Prepared, b: Prepared) => `dev ${evaluate(a, weights).toFixed(4)} sample ${evaluate(b, weights).toFixed(4)}`;

/** Coordinate ascent of the linear weights `names` from `base`, on `score`. */
function climb(score: (weights: LocalWeights) => number, base: LocalWeights, names: readonly (typeof LINEAR)[number][] = LINEAR) {
  let best = { score: score(base), weights: base };
  for (let pass = 0; pass < 3; pass++) {
    let improved = false;
    for (const name of names) {
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
  return best;
}

async function ascend(base: LocalWeights): Promise<{ score: number; weights: LocalWeights; dev: Prepared; sample: Prepared }> {
  const devPrepared = await prepare(dev, devRetrieved, base);
  const samplePrepared = await prepare(sample.handle, sampleRetrieved, base);
  const best = climb((weights) => (evaluate(devPrepared, weights) + evaluate(samplePrepared, weights)) / 2, base);
  return { ...best, dev: devPrepared, sample: samplePrepared };
}

/**
 * Whether the features added last generalise beyond the queries they were tuned on: two-fold cross-validation on
 * the dev queries, 8 random splits. On each half the linear weights are tuned (with the sample set, as above) with
 * and without those features, from the same start, and both are measured on the other half.
 */
const CHECKED = ["sequence", "headNamed"] as const;
function crossValidate(devPrepared: Prepared, samplePrepared: Prepared, base: LocalWeights): string {
  const start = { ...base, ...Object.fromEntries(CHECKED.map((name) => [name, 0])) };
  const others = LINEAR.filter((name) => !(CHECKED as readonly string[]).includes(name));
  let seed = 1;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const gains: number[] = [];
  for (let split = 0; split < 8; split++) {
    const shuffled = devPrepared
      .map((query) => ({ query, key: random() }))
      .sort((a, b) => a.key - b.key)
      .map(({ query }) => query);
    const halves = [shuffled.slice(0, shuffled.length / 2), shuffled.slice(shuffled.length / 2)] as const;
    for (const [train, test] of [halves, [halves[1], halves[0]]] as const) {
      const score = (weights: LocalWeights) => (evaluate(train, weights) + evaluate(samplePrepared, weights)) / 2;
      gains.push(evaluate(test, climb(score, start).weights) - evaluate(test, climb(score, start, others).weights));
    }
  }
  const mean = gains.reduce((sum, gain) => sum + gain, 0) / gains.length;
  return `${CHECKED.join(" + ")}, two-fold cross-validation on the dev queries (8 splits): held-out nDCG@10 ${mean >= 0 ? "+" : ""}${mean.toFixed(4)} on average (from ${Math.min(...gains).toFixed(4)} to ${Math.max(...gains).toFixed(4)}; better on ${gains.filter((gain) => gain > 0).length} of ${gains.length} halves)`;
}

{
  const devPrepared = await prepare(dev, devRetrieved, DEFAULT_WEIGHTS);
  const samplePrepared = await prepare(sample.handle, sampleRetrieved, DEFAULT_WEIGHTS);
  console.log(`${CANDIDATES} candidates; default weights: ${show(DEFAULT_WEIGHTS, devPrepared, samplePrepared)}`);
  console.log(crossValidate(devPrepared, samplePrepared, { ...DEFAULT_WEIGHTS, ...NO_FLOORS }));
}
let overall: Awaited<ReturnType<typeof ascend>> | undefined;
for (const desc of [0.5, 1])
  for (const descCredit of [0.3, 0.5, 0.8]) {
    const base = {
      ...(overall?.weights ?? DEFAULT_WEIGHTS),
      fields: { name: 5, brands: 2, desc },
      credit: { ...DEFAULT_WEIGHTS.credit, desc: descCredit },
      ...NO_FLOORS,
    };
    const found = await ascend(base);
    console.log(`desc ${desc} desc credit ${descCredit}: ${show(found.weights, found.dev, found.sample)}`);
    if (!overall || found.score > overall.score) overall = found;
  }
if (!overall) throw new Error("nothing tuned");
console.log(`best: ${overall.score.toFixed(4)}`, JSON.stringify(overall.weights));
// The relevance floor, last: it can only lower nDCG (a relevant product cut), and it is what keeps unrelated ones out.
for (const floor of [Number.POSITIVE_INFINITY, 4, 3, 2.5, 2.25, 2, 1.75, 1.5, 1.25, 1]) {
  const weights = { ...overall.weights, ...floorsBefore("floor"), floor };
  console.log(`floor ${floor}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// The floor for queries no candidate answers in kind: weak evidence on its own terms, beside the default relative floor.
for (const coverage of [0, 0.3, 0.4, 0.5, 0.6])
  for (const cosine of [0.35, 0.4, 0.45, 0.5]) {
    const weights = { ...overall.weights, ...floorsBefore("weak"), weak: { coverage, cosine } };
    console.log(
      `floor ${DEFAULT_WEIGHTS.floor}, weak below coverage ${coverage} and cosine ${cosine}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`,
    );
  }
// Candidates of another kind (by their category) when the best is of the kind asked, beside both floors above.
for (const otherKind of [Number.POSITIVE_INFINITY, 2, 1, 0.5, 0]) {
  const weights = { ...overall.weights, ...floorsBefore("otherKind"), otherKind };
  console.log(`other kind ${otherKind} below the best: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// Faint evidence, for every query, beside the three above.
for (const coverage of [0, 0.4, 0.5, 0.6])
  for (const cosine of [0.15, 0.2, 0.25, 0.3]) {
    const weights = { ...overall.weights, ...floorsBefore("faint"), faint: { coverage, cosine } };
    console.log(
      `faint below coverage ${coverage} and cosine ${cosine}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`,
    );
  }
// Candidates of a kind asked from another department than the best, beside all the floors above.
for (const otherDepartment of [Number.POSITIVE_INFINITY, 0.3, 0.2, 0.1, 0]) {
  const weights = { ...overall.weights, ...floorsBefore("otherDepartment"), otherDepartment };
  console.log(
    `other department, covering ${otherDepartment} less: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`,
  );
}
// Another sort of the kind asked than the best is named for, beside all the floors above.
for (const otherSort of [false, true]) {
  const weights = { ...overall.weights, ...floorsBefore("otherSort"), otherSort };
  console.log(`other sort ${otherSort ? "on" : "off"}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// Nothing kept of the kind asked nor holding the query's head word, beside all the floors above.
for (const headless of [false, true]) {
  const weights = { ...overall.weights, ...floorsBefore("headless"), headless };
  console.log(`headless ${headless ? "on" : "off"}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// A query saying what the product is to do: products without the word saying what, once one kept holds it.
for (const lacksUse of [false, true]) {
  const weights = { ...overall.weights, ...floorsBefore("lacksUse"), lacksUse };
  console.log(`lacks use ${lacksUse ? "on" : "off"}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// What the product asked for goes with (a kind named after the head word's preposition of purpose).
for (const whatFor of [false, true]) {
  const weights = { ...overall.weights, ...floorsBefore("whatFor"), whatFor };
  console.log(`what for ${whatFor ? "on" : "off"}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// A guessed head word no candidate confirms (an English word the catalog lacks, read as a catalog word).
for (const misread of [false, true]) {
  const weights = { ...overall.weights, ...floorsBefore("misread"), misread };
  console.log(`misread ${misread ? "on" : "off"}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// A head word English has and the catalog holds in no form: what shares only its qualifiers.
for (const unsold of [NONE, DEFAULT_WEIGHTS.unsold]) {
  const weights = { ...overall.weights, ...floorsBefore("unsold"), unsold };
  console.log(`unsold ${unsold === NONE ? "off" : "on"}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
// No word of the query held in any form: what the encoder alone finds under its bar.
for (const wordless of [0, DEFAULT_WEIGHTS.wordless]) {
  const weights = { ...overall.weights, ...floorsBefore("wordless"), wordless };
  console.log(`wordless ${wordless}: ${show(weights, overall.dev, overall.sample)}; sample ${goals(overall.sample, weights)}`);
}
await dev.close();
await sample.handle.close();
await embedder.close();
