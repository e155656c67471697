/**
 * npm run bench:blind [--misses] [SET.json...] — the blind query sets (bench/blind/, or the files named) through the real HTTP
 * API with the default search (hybrid retrieval, local reranker): per set and per kind, the pass rate, nDCG@5 and the
 * wrong empty answers. bench:relevance prints the same tables after its stages.
 */
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { measureBlindSets } from "./blind-measure.js";
import { loadBlindSets } from "./blind-set.js";
import { benchStages } from "./relevance-stages.js";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sets = loadBlindSets(args.filter((arg) => arg !== "--misses"));
  const stage = benchStages().find((s) => s.name === "hybrid + local rerank")!;
  const embedder = await createLocalEmbedder();
  const lines = await measureBlindSets(stage, embedder, sets, args.includes("--misses"));
  await embedder.close();
  console.log(`\n${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, stage: ${stage.name}\n`);
  console.log(lines.join("\n"));
}

await main();
