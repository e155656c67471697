/**
 * The rank and cut stages: the reranker orders the candidates and may name some unrelated; the service repairs
 * whatever it returns (it can never add, drop or duplicate products, nor leave the brand scope), cuts those it named,
 * and, once it has named any, everything retrieval ranked below the candidates too.
 */
import type { Product } from "../../../shared/schemas/index.js";
import type { Reranker } from "../reranker.js";
import { nothingRead, type QueryPlan } from "../understand.js";
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

export async function rankStage(
  reranker: Reranker,
  query: string,
  plan: QueryPlan,
  retrieved: Retrieved,
  brandsNamed: boolean,
): Promise<RankedMatches> {
  const { candidates, fused } = retrieved;
  const reranked = await rerankOf(reranker, query, plan, retrieved, candidates);
  // The reranker's floor: once it finds candidates unrelated, what retrieval ranked below them all is too.
  const unrelated = reranked.unrelated ?? new Set<string>();
  const rerankedIds = repairOrder(reranked.ids, candidates).filter((id) => !unrelated.has(id));
  const rerank = { name: reranker.name, outcome: reranked.outcome, ...(reranked.reason ? { reason: reranked.reason } : {}) };
  const ranked = [...rerankedIds, ...(unrelated.size > 0 ? [] : fused.slice(candidates.length))];
  if (ranked.length === 0) {
    const weak = (await weakMatches(reranker, query, plan, retrieved, brandsNamed)) ?? ofBrandNamed(retrieved, brandsNamed);
    if (weak) return { ...weak, rerank };
  }
  return {
    ranked,
    matched: unrelated.size > 0 ? rerankedIds : fused,
    rerank,
    ...(reranked.scores ? { scores: reranked.scores } : {}),
    ...(reranked.weak ? { weak: true } : {}),
  };
}

function rerankOf(reranker: Reranker, query: string, plan: QueryPlan, retrieved: Retrieved, candidates: readonly Product[]) {
  const { beside, queryVector, similarities } = retrieved;
  return reranker.rerank(query, candidates, queryVector ? { queryVector, similarities, plan, beside } : { plan, beside });
}

/**
 * When nothing above the relevance floor is kept, what vector retrieval ranked under it, judged by the reranker's own
 * cut-off: those it ties to the query are answered as weak matches rather than nothing ("valentine's flowers" and the
 * roses). Only a reranker that judges relevance (names some unrelated) may keep them, and only for a query some of
 * whose words are read (a brand named counts): the encoder's similarity to words in no known language ("asdfgh") is
 * no evidence.
 */
async function weakMatches(reranker: Reranker, query: string, plan: QueryPlan, retrieved: Retrieved, brandsNamed: boolean) {
  if (plan.language.query === null || (nothingRead(plan) && !brandsNamed)) return undefined;
  const under = await retrieved.belowFloor();
  if (under.length === 0) return undefined;
  const reranked = await rerankOf(reranker, query, plan, retrieved, under);
  if (reranked.unrelated === undefined) return undefined;
  const unrelated = reranked.unrelated;
  const ids = repairOrder(reranked.ids, under).filter((id) => !unrelated.has(id));
  if (ids.length === 0) return undefined;
  return { ranked: ids, matched: ids, ...(reranked.scores ? { scores: reranked.scores } : {}), weak: true };
}

/**
 * When the reranker keeps nothing, not even under the floor, the products of the brand the query names that hold a
 * word of it: the shopper named the brand and a word ties them, so they are plausibly related, and answered as weak
 * matches rather than nothing (a Polish page of the brand, for an English request naming it, the words mostly its
 * page's language's).
 */
function ofBrandNamed({ lexical }: Retrieved, brandsNamed: boolean) {
  if (!brandsNamed || lexical.length === 0) return undefined;
  const ids = lexical.map((item) => item.id);
  return { ranked: ids, matched: ids, weak: true };
}

/** Keeps the reranker's order for ids it knows, once each; candidates it left out follow in retrieval order. */
function repairOrder(ids: readonly string[], candidates: readonly Product[]): string[] {
  const known = new Set(candidates.map((candidate) => candidate.id));
  return [...new Set([...ids, ...known])].filter((id) => known.has(id));
}
