/**
 * The seam for reordering fused candidates (a language model, a local
 * scorer). A reranker returns candidate ids in its preferred order; the
 * search service repairs whatever it returns, so a reranker can never add
 * or duplicate products, nor leave the brand scope; it drops only those it
 * names unrelated.
 */
import type { Product } from "../../shared/schemas/index.js";
import type { QueryPlan } from "./understand.js";

export interface RerankResult {
  /** Candidate ids, best first. Unknown, duplicate or missing ids are repaired by the caller. */
  ids: string[];
  /**
   * `reranked`: the reranker's own order; `cached`: the same, from its cache;
   * `fallback`: it failed or ran out of time, so this is retrieval order;
   * `none`: reranking is switched off.
   */
  outcome: "reranked" | "cached" | "fallback" | "none";
  /** Why a fallback happened, for the log (never sent to clients). */
  reason?: string;
  /** The reranker's own score per id, when it has one (for `explain`). */
  scores?: ReadonlyMap<string, number>;
  /**
   * Candidates the reranker judges unrelated to the query (the relevance floor): the service leaves them, and
   * what retrieval ranked below every candidate, out of the answer and its facets.
   */
  unrelated?: ReadonlySet<string>;
  /** Every candidate kept is under the fitted relevance threshold, kept only as the encoder or the words tie it to the query. */
  weak?: boolean;
}

/** What retrieval already knows, for rerankers that can use it. */
export interface RerankContext {
  /** The query's sentence embedding (absent when retrieval ran on full text alone). */
  queryVector?: readonly number[];
  /** Cosine similarities retrieval already computed: vector retrieval's top, and full text's when it answered first. */
  similarities?: ReadonlyMap<string, number>;
  /** The query's words with their corrections and synonyms (understand.ts); absent: the query's words alone. */
  plan?: QueryPlan;
  /**
   * Products the search's constraints on the offer (a price, stock) left out that its words find: a reranker with a
   * relevance floor judges the candidates beside them, as if the constraint were not there, and never answers them.
   */
  beside?: readonly Product[];
}

export interface Reranker {
  readonly name: string;
  rerank(query: string, candidates: readonly Product[], context?: RerankContext): Promise<RerankResult>;
  /** Optional start-up work (caches, statistics) so the first searches are as fast as later ones. */
  warm?(): Promise<void>;
  /** Optional: waits for work it runs behind searches (reading statistics), so that the database can close under it. */
  close?(): Promise<void>;
}

/** Retrieval order, unchanged. */
export const noneReranker: Reranker = {
  name: "none",
  rerank: async (_query, candidates) => ({ ids: candidates.map((candidate) => candidate.id), outcome: "none" }),
};
