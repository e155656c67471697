/** The stages bench/relevance.ts measures, in order. */
import { loadConfig } from "../server/config.js";
import type { Database } from "../server/db/client.js";
import { noneReranker, type Reranker } from "../server/search/reranker.js";
import { createReranker } from "../server/search/providers.js";
import type { RetrievalMode } from "../server/search/service.js";

export interface Stage {
  name: string;
  retrieval: RetrievalMode;
  /** The stage's reranker over one catalog (the local one reads its document frequencies there). */
  reranker(db: Database): Reranker;
}

export function benchStages(): Stage[] {
  const config = loadConfig(process.env);
  const stages: Stage[] = [
    { name: "full-text only", retrieval: "fulltext", reranker: () => noneReranker },
    { name: "vectors only", retrieval: "vector", reranker: () => noneReranker },
    { name: "hybrid", retrieval: "hybrid", reranker: () => noneReranker },
    { name: "hybrid + local rerank", retrieval: "hybrid", reranker: (db) => createReranker({ ...config, RERANKER: "local" }, db) },
  ];
  // The language-model stage runs whenever a server is configured (docs/search.md, "Measuring the llm reranker").
  if (config.OPENAI_API_KEY || config.OPENAI_BASE_URL) {
    stages.push({
      name: `hybrid + llm rerank (${config.RERANK_MODEL})`,
      retrieval: "hybrid",
      reranker: (db) => createReranker({ ...config, RERANKER: "llm" }, db),
    });
  }
  return stages;
}
