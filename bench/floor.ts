/**
 * npm run bench:floor — calibrates the relevance floor (SEARCH_MIN_SIMILARITY)
 * on the dev queries only. A product no word of the query matches is kept only
 * if its embedding is at least this similar to the query's.
 *
 * For each threshold it prints, side by side: nDCG@10 of the default search
 * (hybrid + local rerank, through the search service), how many results a query
 * gets, and, over the judged products, the floor's recall (relevant products,
 * grade ≥ 2, it keeps) and how many irrelevant ones (grade 0) it cuts; and the
 * sample-catalog set's figures (bench/sample-queries.json), whose short, clean
 * names are nearer the catalogs the service serves than CrowdFlower's are.
 */
import { and, inArray, sql } from "drizzle-orm";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { products } from "../server/db/schema.js";
import { openPglite } from "../server/db/open.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { vectorLiteral } from "../server/search/pipeline/retrieve.js";
import { sampleCatalog } from "./http-catalog.js";
import { loadDevQueries, ndcgAt10, openCatalog, relevanceDataPresent } from "./relevance-data.js";
import { loadSampleQueries, summarise } from "./sample-set.js";

const THRESHOLDS = [-1, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6];

if (!relevanceDataPresent()) {
  console.log("skipped: ../shared/data/relevance is absent");
  process.exit(0);
}
const { queries, qrels } = loadDevQueries();
const embedder = await createLocalEmbedder();
const database = await openCatalog(embedder);
await database.migrate();
const sampleQueries = loadSampleQueries();
const sample = await openPglite((await sampleCatalog()).dataDir);

// Judged products: whether a word matches, and their similarity, once per query.
const judged: { grade: number; lexical: boolean; similarity: number }[] = [];
for (const [id, q] of queries) {
  const grades = qrels.get(id) ?? new Map<string, number>();
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const vector = (await embedder.embed([q]))[0]!;
  const tsquery = sql`to_tsquery(search_config('en'), ${words.join(" | ")})`;
  const rows = await database.db
    .select({
      id: products.id,
      lexical: sql<boolean>`${products.search} @@ ${tsquery}`,
      similarity: sql<number>`1 - (${products.embedding} <=> ${vectorLiteral(vector)})`.mapWith(Number),
    })
    .from(products)
    .where(and(inArray(products.id, [...grades.keys()])));
  for (const row of rows) judged.push({ grade: grades.get(row.id) ?? 0, lexical: row.lexical, similarity: row.similarity });
}

console.log(
  `\nThe relevance floor on ${queries.length} dev queries (${judged.length} judged products), ${new Date().toISOString().slice(0, 10)}, node ${process.version}\n`,
);
console.log(
  "| SEARCH_MIN_SIMILARITY | nDCG@10 | results per query (mean) | queries with < 10 | relevant kept (grade ≥ 2) | irrelevant cut (grade 0) | sample: best in top 3 | unrelated in top 5 | sample nDCG@10 |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const threshold of THRESHOLDS) {
  const config = { ...loadConfig({ SAMPLE_CATALOG: "false", LOG_LEVEL: "silent" }), SEARCH_MIN_SIMILARITY: threshold };
  const root = createRoot(config, { role: "cli", database, embedder });
  const { search } = await root.services();
  let ndcg = 0;
  let results = 0;
  let short = 0;
  for (const [id, q] of queries) {
    const { hits } = await search.search({ q, limit: 10, include_raw_data: false, parse_query: true, typos: true, synonyms: true, explain: false });
    ndcg += ndcgAt10(
      hits.map((hit) => hit.product.id),
      qrels.get(id) ?? new Map(),
    );
    results += hits.length;
    if (hits.length < 10) short++;
  }
  const passes = (item: (typeof judged)[number]) => item.lexical || item.similarity >= threshold;
  const relevant = judged.filter((item) => item.grade >= 2);
  const irrelevant = judged.filter((item) => item.grade === 0);
  const kept = relevant.filter(passes).length / relevant.length;
  const cut = irrelevant.filter((item) => !passes(item)).length / irrelevant.length;
  await root.close();
  // The sample set through the same search, with the same threshold.
  const sampleRoot = createRoot(config, { role: "cli", database: sample.handle, embedder });
  const onSample = await sampleRoot.services();
  const answers = [];
  for (const query of sampleQueries) {
    const { hits } = await onSample.search.search({
      q: query.q,
      limit: 10,
      include_raw_data: false,
      parse_query: true,
      typos: true,
      synonyms: true,
      explain: false,
    });
    answers.push({ query, urls: hits.map((hit) => hit.product.url) });
  }
  await sampleRoot.close();
  const onSet = summarise(answers);
  const label = threshold < 0 ? "none (−1)" : threshold.toFixed(2);
  const pct = (share: number) => `${(share * 100).toFixed(1)}%`;
  console.log(
    `| ${label} | ${(ndcg / queries.length).toFixed(4)} | ${(results / queries.length).toFixed(1)} | ${short} | ${pct(kept)} | ${pct(cut)} | ` +
      `${pct(onSet.bestInTop3)} | ${pct(onSet.unrelatedInTop5)} | ${onSet.ndcg.toFixed(4)} |`,
  );
}
await sample.handle.close();
await database.close();
await embedder.close();
