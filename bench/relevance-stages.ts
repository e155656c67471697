/** The stages bench/relevance.ts measures, in order. */
import { loadConfig } from "../server/config.js";
import type { DatabaseHandle } from "../server/db/open.js";
import { noneReranker, type Reranker } from "../server/search/reranker.js";
import { createReranker } from "../server/search/providers.js";
import type { RetrievalMode } from "../server/search/service.js";

export interface Stage {
  name: string;
  retrieval: RetrievalMode;
  reranker: Reranker;
}

export function benchStages(database: DatabaseHandle): Stage[] {
  const config = loadConfig(process.env);
  const stages: Stage[] = [
    { name: "full-text only", retrieval: "fulltext", reranker: noneReranker },
    { name: "vectors only", retrieval: "vector", reranker: noneReranker },
    { name: "hybrid", retrieval: "hybrid", reranker: noneReranker },
    { name: "hybrid + local rerank", retrieval: "hybrid", reranker: createReranker({ ...config, RERANKER: "local" }, database.db) },
  ];
  if (config.OPENAI_API_KEY || config.OPENAI_BASE_URL) {
    stages.push({
      name: `hybrid + llm rerank (${config.RERANK_MODEL})`,
      retrieval: "hybrid",
      reranker: createReranker({ ...config, RERANKER: "llm" }, database.db),
    });
  }
  return stages;
}
