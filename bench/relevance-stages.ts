/** The stages bench/relevance.ts measures, in order. */
import type { DatabaseHandle } from "../server/db/open.js";
import type { Embedder } from "../server/search/embedder.js";
import { noneReranker, type Reranker } from "../server/search/reranker.js";
import type { RetrievalMode } from "../server/search/service.js";
import { createLocalReranker } from "../server/search/rerankers/local.js";

export interface Stage {
  name: string;
  retrieval: RetrievalMode;
  reranker: Reranker;
}

export async function benchStages(database: DatabaseHandle, _embedder: Embedder): Promise<Stage[]> {
  return [
    { name: "full-text only", retrieval: "fulltext", reranker: noneReranker },
    { name: "vectors only", retrieval: "vector", reranker: noneReranker },
    { name: "hybrid", retrieval: "hybrid", reranker: noneReranker },
    { name: "hybrid + local rerank", retrieval: "hybrid", reranker: createLocalReranker({ db: database.db }) },
  ];
}
