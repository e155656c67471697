/**
 * npm run bench:fit — fits the local reranker's linear weights and its relevance cut-off to graded judgments: the
 * CrowdFlower dev queries (never the held-out half) and the sample-catalog set (bench/sample-queries.json), and
 * writes them to server/search/rerankers/fitted.json with the date, the data and the figures (docs/search/cut-off.md).
 *
 * Retrieval and the candidates' signals are computed once and cached in bench/.cache (keyed by the code and data
 * that make them); the fit itself is coordinate ascent of the weights on nDCG@10 with the cut-off off, then a grid
 * search of the cut-off.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { openPglite } from "../server/db/open.js";
import { products as productsTable } from "../server/db/schema.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { noneReranker } from "../server/search/reranker.js";
import { type CutOff, FITTED_PATH, type Fitted, FittedSchema, loadFitted } from "../server/search/rerankers/fitted.js";
import { createLocalReranker } from "../server/search/rerankers/local.js";
import { DEFAULT_WEIGHTS, type LocalWeights, rankScored, type Scored } from "../server/search/rerankers/ranking.js";
import { loadSynonyms } from "../server/search/synonyms.js";
import { understand } from "../server/search/understand.js";
import { readVocabulary } from "../server/search/vocabulary.js";
import { sampleCatalog } from "./http-catalog.js";
import { DATA, loadDevQueries, ndcgAt10, openCatalog, relevanceDataPresent } from "./relevance-data.js";
import { loadSampleQueries } from "./sample-set.js";
import { typoCopy } from "./typos.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const config = loadConfig({ ...process.env, SAMPLE_CATALOG: "false", LOG_LEVEL: "silent" });

/** One query's candidates in retrieval order, their signals, and the grades of its products (none: nothing matches). */
interface Judged {
  q: string;
  grades: Record<string, number>;
  ids: string[];
  features: Scored[];
}
interface Signals {
  dev: Judged[];
  /** The dev queries with one typo each (bench/typos.ts), as bench:relevance measures them. */
  typo: Judged[];
  sample: Judged[];
}

/** The code and data the signals come from (not the fitted file, which they do not depend on). */
function signalsKey(): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path !== FITTED_PATH) hash.update(path).update(readFileSync(path));
    }
  };
  walk(join(ROOT, "server", "search"));
  for (const file of ["products.ndjson", "queries-dev.tsv", "qrels-dev.tsv"]) hash.update(readFileSync(join(DATA, file)));
  hash.update(readFileSync(join(ROOT, "bench", "sample-queries.json")));
  hash.update(`${config.RERANK_CANDIDATES} ${config.SEARCH_MIN_SIMILARITY}`);
  return hash.digest("hex").slice(0, 16);
}

type Database = Awaited<ReturnType<typeof openCatalog>>;

/** Retrieval order, unreranked (the weights are fitted on what the reranker is given), and each candidate's signals. */
async function judge(database: Database, queries: { q: string; grades: Record<string, number> }[], embed: (q: string) => Promise<number[]>) {
  const root = createRoot(config, { role: "cli", database, embedder: await embedderOnce(), reranker: () => noneReranker });
  const services = await root.services();
  const reranker = createLocalReranker({ db: database.db });
  const vocabulary = await readVocabulary(database.db);
  const synonyms = loadSynonyms({ builtin: config.SYNONYMS_BUILTIN, file: config.SYNONYMS_FILE });
  const judged: Judged[] = [];
  for (const { q, grades } of queries) {
    const params = { q, limit: config.RERANK_CANDIDATES, include_raw_data: false, parse_query: true, typos: true, synonyms: true, explain: false };
    const { hits } = await services.search.search(params);
    const products = hits.map((hit) => hit.product);
    // As tune-local did before it: the plan the service reads, and the sentence it embeds.
    const plan = understand(q, { vocabulary, synonyms });
    const features = await reranker.scoreCandidates(q, products, { queryVector: await embed(plan.embedText), plan });
    judged.push({ q, grades, ids: products.map((p) => p.id), features });
  }
  await root.close();
  return judged;
}

let embedderMade: ReturnType<typeof createLocalEmbedder> | undefined;
const embedderOnce = () => {
  embedderMade ??= createLocalEmbedder();
  return embedderMade;
};

async function computeSignals(): Promise<Signals> {
  const embedder = await embedderOnce();
  const embed = async (q: string) => (await embedder.embed([q]))[0]!;
  const { queries, qrels } = loadDevQueries();
  const devDb = await openCatalog(embedder);
  const graded = (id: string, q: string) => ({ q, grades: Object.fromEntries(qrels.get(id) ?? []) });
  const dev = await judge(
    devDb,
    queries.map(([id, q]) => graded(id, q)),
    embed,
  );
  const typo = await judge(
    devDb,
    typoCopy(queries).map((t) => graded(t.id, t.query)),
    embed,
  );
  await devDb.close();
  const sample = await openPglite((await sampleCatalog()).dataDir);
  const rows = await sample.handle.db.select({ id: productsTable.id, url: productsTable.url }).from(productsTable);
  const idByUrl = new Map(rows.map((row) => [row.url, row.id]));
  const sampleGraded = loadSampleQueries().map((query) => ({
    q: query.q,
    grades: Object.fromEntries(Object.entries(query.grades).map(([url, grade]) => [idByUrl.get(url) ?? url, grade])),
  }));
  const sampleJudged = await judge(sample.handle, sampleGraded, embed);
  await sample.handle.close();
  await embedder.close();
  return { dev, typo, sample: sampleJudged };
}

/** The signals, from the cache when the code and data that make them are unchanged. */
async function signals(): Promise<Signals> {
  const file = join(ROOT, "bench", ".cache", `fit-signals-${signalsKey()}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as Signals;
  const started = performance.now();
  const computed = await computeSignals();
  writeFileSync(file, JSON.stringify(computed));
  process.stderr.write(`signals computed in ${((performance.now() - started) / 1000).toFixed(0)} s, cached in ${file}\n`);
  return computed;
}

/** A query's answer: its candidates in the weights' order, those the cut-off finds unrelated left out. */
function answer(query: Judged, weights: LocalWeights): string[] {
  return rankScored(query.features, query.ids, weights)
    .filter((o) => !o.unrelated)
    .map((o) => o.id);
}

interface Figures {
  dev: number;
  typo: number;
  sample: number;
  /** Share of the sample's nothing-matches queries answered nothing. */
  empty: number;
  /** Share of the sample's queries with a product not graded for them in their first five. */
  unrelatedTop5: number;
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
const ndcg = (query: Judged, ids: string[]) => ndcgAt10(ids, new Map(Object.entries(query.grades)));

function figures(data: Signals, weights: LocalWeights): Figures {
  const graded = (set: Judged[]) => set.filter((query) => Object.keys(query.grades).length > 0);
  const sampleAnswers = data.sample.map((query) => ({ query, ids: answer(query, weights) }));
  return {
    dev: mean(graded(data.dev).map((query) => ndcg(query, answer(query, weights)))),
    typo: mean(graded(data.typo).map((query) => ndcg(query, answer(query, weights)))),
    sample: mean(sampleAnswers.filter(({ query }) => Object.keys(query.grades).length > 0).map(({ query, ids }) => ndcg(query, ids))),
    empty: mean(sampleAnswers.filter(({ query }) => Object.keys(query.grades).length === 0).map(({ ids }) => (ids.length === 0 ? 1 : 0))),
    unrelatedTop5: mean(sampleAnswers.map(({ query, ids }) => (ids.slice(0, 5).some((id) => !(id in query.grades)) ? 1 : 0))),
  };
}

/**
 * The figures bench:relevance printed before issue 48 (docs/search.md), which a fit may not lower: dev nDCG@10 and
 * its typo copy. The fit measures them as bench:relevance does, on the same candidates.
 */
const KEEP = { dev: 0.8081, typo: 0.798 };

/**
 * What the cut-off is fitted to, among the settings that keep the dev queries and their typo copy at KEEP: sample
 * nDCG@10, then each of the sample's nothing-matches queries answered nothing (0.1 each), less each query with a
 * product not graded for it in its first five (0.001 each: its graders listed the products wanted, so ungraded is
 * not unrelated; and a blind test found related products cut far more costly than unrelated ones kept). At 0.005
 * the fit cut the sunscreens for "sun protection for face" and everything for "tv sound system".
 */
function objective(f: Figures, data: Signals): number {
  if (f.dev < KEEP.dev || f.typo < KEEP.typo) return Number.NEGATIVE_INFINITY;
  const nothing = data.sample.filter((query) => Object.keys(query.grades).length === 0).length;
  return f.sample + 0.1 * nothing * f.empty - 0.001 * data.sample.length * f.unrelatedTop5;
}
const show = (f: Figures) =>
  `dev nDCG@10 ${f.dev.toFixed(4)}, typo copy ${f.typo.toFixed(4)}, sample nDCG@10 ${f.sample.toFixed(4)}, nothing-matches empty ${(100 * f.empty).toFixed(0)}%, unrelated in top 5 ${(100 * f.unrelatedTop5).toFixed(0)}%`;

const LINEAR = ["bm25", "coverageAll", "phrase", "sequence", "cosine", "type", "headNamed", "accessory"] as const;
const VALUES = [0, 0.25, 0.5, 1, 1.5, 2, 3, 4];
/** The cut-off off: nothing is cut but another animal's product and what the product asked for goes with. */
const NO_CUT: CutOff = { relevance: Number.NEGATIVE_INFINITY, gap: Number.POSITIVE_INFINITY, encoder: 0, margin: 0, words: 0 };

/** Coordinate ascent of the linear weights on dev, typo-copy and sample nDCG@10, with the cut-off off (it is fitted after). */
function climbWeights(data: Signals, start: LocalWeights): LocalWeights {
  // A move that costs the dev queries or their typo copy anything is not taken, whatever the sample gains.
  const floor = figures(data, { ...start, cutOff: NO_CUT });
  const score = (weights: LocalWeights) => {
    const f = figures(data, { ...weights, cutOff: NO_CUT });
    return f.dev < floor.dev || f.typo < floor.typo ? Number.NEGATIVE_INFINITY : f.dev + f.typo + f.sample;
  };
  let best = { score: score(start), weights: start };
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
  return best.weights;
}

/**
 * Grid search of the cut-off. Ties go to the most lenient setting (the lowest encoder, margin and word levels, the
 * lowest threshold, the widest gap): the first found.
 */
function fitCutOff(data: Signals, weights: LocalWeights): { cutOff: CutOff; figures: Figures } {
  const uncut = figures(data, { ...weights, cutOff: NO_CUT });
  let best: { cutOff: CutOff; figures: Figures; score: number } = { cutOff: NO_CUT, figures: uncut, score: objective(uncut, data) };
  // The ties are the design (docs/search/cut-off.md): the grid holds no setting without them.
  for (const encoder of [0.3, 0.35, 0.4, 0.45, 0.5])
    for (const margin of [0, 0.05, 0.1, 0.15])
      for (const words of [0.3, 0.4, 0.5, 0.6])
        for (const relevance of [1, 1.5, 2, 2.5, 3])
          for (const gap of [100, 3, 2.5, 2.25, 2, 1.75]) {
            const cutOff = { relevance, gap, encoder, margin, words };
            const f = figures(data, { ...weights, cutOff });
            const score = objective(f, data);
            if (score > best.score + 1e-6) best = { cutOff, figures: f, score };
          }
  if (!Number.isFinite(best.score)) throw new Error(`no cut-off keeps dev nDCG@10 at ${KEEP.dev} and the typo copy at ${KEEP.typo}`);
  return best;
}

async function main(): Promise<void> {
  if (!relevanceDataPresent()) {
    console.log(`skipped: ${DATA} is absent (the relevance data lives beside the repository in ../shared)`);
    return;
  }
  const data = await signals();
  const before = loadFitted();
  console.log(`before (${FITTED_PATH}): ${show(figures(data, DEFAULT_WEIGHTS))}`);
  const weights = climbWeights(data, DEFAULT_WEIGHTS);
  const fit = fitCutOff(data, weights);
  console.log(`no cut-off: ${show(figures(data, { ...weights, cutOff: NO_CUT }))}`);
  console.log(`fitted: ${show(fit.figures)}`);
  console.log(`weights ${JSON.stringify(Object.fromEntries(LINEAR.map((name) => [name, weights[name]])))}`);
  console.log(`cut-off ${JSON.stringify(fit.cutOff)}`);
  const fitted: Fitted = FittedSchema.parse({
    made: {
      date: new Date().toISOString().slice(0, 10),
      command: "npm run bench:fit",
      data: `CrowdFlower dev queries (${data.dev.length}, ../shared/data/relevance/crowdflower/queries-dev.tsv) and the sample set (${data.sample.length}, bench/sample-queries.json), ${config.RERANK_CANDIDATES} candidates each, SEARCH_MIN_SIMILARITY ${config.SEARCH_MIN_SIMILARITY}`,
      figures: { ...fit.figures },
    },
    weights: Object.fromEntries(LINEAR.map((name) => [name, weights[name]])),
    cutOff: fit.cutOff,
  });
  writeFileSync(FITTED_PATH, `${JSON.stringify(fitted, null, 2)}\n`);
  console.log(`written: ${FITTED_PATH} (was made ${before.made.date})`);
}

await main();
