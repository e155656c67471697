/**
 * npm run bench:relevance — search quality on real shopper queries.
 *
 * Builds (once, cached in bench/.cache) a catalog from the CrowdFlower products
 * in ../shared/data/relevance, then runs through the real HTTP API, for each
 * stage: the 130 dev queries (nDCG@10 as that data's README defines it, p50/p95
 * latency), a typo copy of them (bench/typos.ts: one edit in one word of each),
 * and the sample-catalog shopper set (bench/sample-queries.json) over the
 * sample catalog.
 */
import { openPglite } from "../server/db/open.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { sampleCatalog } from "./http-catalog.js";
import { DATA, loadDevQueries, ndcgAt10, openCatalog, percentile, relevanceDataPresent } from "./relevance-data.js";
import { measureBlindSets } from "./blind-measure.js";
import { loadBlindSets } from "./blind-set.js";
import { type Answer, serve } from "./relevance-serve.js";
import { benchStages } from "./relevance-stages.js";
import { loadSampleQueries, type SampleSummary, summarise } from "./sample-set.js";
import { TYPO_KINDS, typoCopy } from "./typos.js";

interface StageResult {
  name: string;
  ndcg: number;
  p50: number;
  p95: number;
  fallbacks: number;
  typoNdcg: number;
  sample: SampleSummary;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function main(): Promise<void> {
  if (!relevanceDataPresent()) {
    console.log(`skipped: ${DATA} is absent (the relevance data lives beside the repository in ../shared)`);
    return;
  }
  const { queries, qrels } = loadDevQueries();
  const typos = typoCopy(queries);
  const typoQueries = typos.map((typo) => [typo.id, typo.query] as const);
  const sampleQueries = loadSampleQueries();
  const embedder = await createLocalEmbedder();
  const database = await openCatalog(embedder);
  const sample = await openPglite((await sampleCatalog()).dataDir);
  const score = (answers: readonly Answer[]) => mean(answers.map((answer) => ndcgAt10(answer.ids, qrels.get(answer.id) ?? new Map())));

  const results: StageResult[] = [];
  for (const stage of benchStages()) {
    const dev = await serve(stage, database, embedder);
    const clean = await dev.ask(queries);
    const typed = await dev.ask(typoQueries);
    await dev.close();
    const onSample = await serve(stage, sample.handle, embedder);
    const sampleAnswers = await onSample.ask(sampleQueries.map((query, i) => [String(i), query.q] as const));
    await onSample.close();
    const latencies = clean.map((answer) => answer.ms);
    results.push({
      name: stage.name,
      ndcg: score(clean),
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      fallbacks: [...clean, ...typed].filter((answer) => answer.rerank === "fallback").length,
      typoNdcg: score(typed),
      sample: summarise(sampleAnswers.map((answer) => ({ query: sampleQueries[Number(answer.id)]!, urls: answer.urls }))),
    });
    process.stderr.write(`${stage.name}: done\n`);
  }
  await sample.handle.close();
  await database.close();
  const lastStage = benchStages().at(-1)!;
  const blind = process.argv.includes("--no-blind") ? ["not measured (--no-blind)"] : await measureBlindSets(lastStage, embedder, loadBlindSets());
  await embedder.close();

  const baseline = results.find((r) => r.name === "hybrid")?.ndcg ?? Number.NaN;
  console.log(`\n${new Date().toISOString().slice(0, 10)}, node ${process.version}`);
  const kinds = TYPO_KINDS.map((kind) => `${typos.filter((t) => t.edit?.kind === kind).length} ${kind}`).join(", ");
  console.log(
    `typo copy: one edit (${kinds}) in one word of five letters or more of each query, chosen by a PRNG seeded with the query id; ` +
      `${typos.filter((t) => !t.edit).length} queries without such a word kept as they are; e.g. ${typos
        .filter((t) => t.edit)
        .slice(0, 4)
        .map((t) => `"${t.edit!.word}" → "${t.edit!.typed}"`)
        .join(", ")}`,
  );
  console.log(`sample set: ${sampleQueries.length} shopper queries over the sample catalog (bench/sample-queries.json)\n`);
  console.log(
    "| stage | dev nDCG@10 | vs hybrid | p50 ms | p95 ms | typo copy nDCG@10 | typo / clean | sample: best first | best in top 3 | unrelated in top 5 | sample nDCG@10 |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  const pct = (share: number) => `${(100 * share).toFixed(0)}%`;
  for (const r of results) {
    const note = r.fallbacks > 0 ? ` (${r.fallbacks} fallbacks)` : "";
    console.log(
      `| ${r.name}${note} | ${r.ndcg.toFixed(4)} | ${(r.ndcg / baseline).toFixed(3)}× | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ` +
        `${r.typoNdcg.toFixed(4)} | ${(r.typoNdcg / r.ndcg).toFixed(3)} | ${pct(r.sample.bestFirst)} | ${pct(r.sample.bestInTop3)} | ` +
        `${pct(r.sample.unrelatedInTop5)} | ${r.sample.ndcg.toFixed(4)} |`,
    );
  }
  const last = results.at(-1);
  if (last && last.sample.misses.length > 0) {
    console.log(`\nsample queries missing a goal with ${last.name} (best not in the top three, or an unrelated product in the top five):`);
    for (const miss of last.sample.misses) {
      const flags = [miss.score.bestInTop3 ? null : "best not in top 3", miss.score.unrelatedInTop5 ? "unrelated in top 5" : null].filter(Boolean);
      const top = miss.urls.slice(0, 5).map((url) => url.replace(/^https?:\/\/[^/]+\/|\?.*$/gu, ""));
      console.log(`- "${miss.q}": ${flags.join(", ")}; top five: ${top.join(" | ")}`);
    }
  }
  console.log(`\nblind sets (bench/blind/), with ${lastStage.name}:\n`);
  console.log(blind.join("\n"));
  console.log(
    "\nreference (../shared/data/relevance/README.md): BM25 0.7125, USE vectors 0.490, their fusion 0.72; " +
      "goals (issue 15): dev ≥ 0.80 at p95 ≤ 60 ms, typo copy ≥ 0.95 × clean, every sample query's best product in the top three, nothing unrelated in the top five",
  );
}

await main();
