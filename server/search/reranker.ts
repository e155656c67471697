/**
 * The seam for reordering fused candidates (a language model, a local
 * scorer). A reranker returns candidate ids in its preferred order; the
 * search service repairs whatever it returns, so a reranker can never add,
 * drop or duplicate products.
 */
import type { Product } from "../../shared/schemas/index.js";

export interface Reranker {
  readonly name: string;
  rerank(query: string, candidates: readonly Product[]): Promise<string[]>;
}

/** Retrieval order, unchanged. */
export const noneReranker: Reranker = {
  name: "none",
  rerank: async (_query, candidates) => candidates.map((candidate) => candidate.id),
};
