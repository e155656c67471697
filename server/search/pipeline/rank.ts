/**
 * The rank and cut stages: the reranker orders the candidates and may name some unrelated; the service repairs
 * whatever it returns (it can never add, drop or duplicate products, nor leave the brand scope), cuts those it named,
 * and, once it has named any, everything retrieval ranked below the candidates too.
 */
import type { Product } from "../../../shared/schemas/index.js";
import type { Reranker } from "../reranker.js";
import type { QueryPlan } from "../understand.js";
import type { SearchResult } from "./context.js";
import type { Retrieved } from "./retrieve.js";

export interface RankedMatches {
  /** The answer's order: every match, best first. */
  ranked: string[];
  /** What the search matched (for facets): the ranked ids, or every fused one when nothing was cut. */
  matched: string[];
  rerank: SearchResult["rerank"];
  scores?: ReadonlyMap<string, number>;
  /** The reranker kept only candidates under its relevance threshold (RerankResult's `weak`). */
  weak?: boolean;
}

export async function rankStage(reranker: Reranker, query: string, plan: QueryPlan, retrieved: Retrieved): Promise<RankedMatches> {
  const { candidates, beside, queryVector, similarities, fused } = retrieved;
  const reranked = await reranker.rerank(query, candidates, queryVector ? { queryVector, similarities, plan, beside } : { plan, beside });
  // The reranker's floor: once it finds candidates unrelated, what retrieval ranked below them all is too.
  const unrelated = reranked.unrelated ?? new Set<string>();
  const rerankedIds = repairOrder(reranked.ids, candidates).filter((id) => !unrelated.has(id));
  return {
    ranked: [...rerankedIds, ...(unrelated.size > 0 ? [] : fused.slice(candidates.length))],
    matched: unrelated.size > 0 ? rerankedIds : fused,
    rerank: { name: reranker.name, outcome: reranked.outcome, ...(reranked.reason ? { reason: reranked.reason } : {}) },
    ...(reranked.scores ? { scores: reranked.scores } : {}),
    ...(reranked.weak ? { weak: true } : {}),
  };
}

/** Keeps the reranker's order for ids it knows, once each; candidates it left out follow in retrieval order. */
function repairOrder(ids: readonly string[], candidates: readonly Product[]): string[] {
  const known = new Set(candidates.map((candidate) => candidate.id));
  const seen = new Set<string>();
  const ordered: string[] = [];
  for (const id of [...ids, ...candidates.map((c) => c.id)]) {
    if (known.has(id) && !seen.has(id)) {
      seen.add(id);
      ordered.push(id);
    }
  }
  return ordered;
}
