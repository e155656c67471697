/**
 * The sample-catalog shopper queries (bench/sample-queries.json, rules in
 * sample-queries.md) and how an answer to each is scored.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ndcgAt10 } from "./relevance-data.js";

const SampleQueriesSchema = z.array(
  z.object({ q: z.string().min(1), grades: z.record(z.string(), z.number().int().min(1).max(3)), note: z.string().optional() }),
);
export type SampleQuery = z.infer<typeof SampleQueriesSchema>[number];

export function loadSampleQueries(): SampleQuery[] {
  return SampleQueriesSchema.parse(JSON.parse(readFileSync(new URL("sample-queries.json", import.meta.url), "utf8")));
}

export interface SampleScore {
  /** The best product (any of the highest-graded) is first; for a query nothing matches, the answer is empty. */
  bestFirst: boolean;
  /** The same, within the first three. */
  bestInTop3: boolean;
  /** One of the first five is not graded for the query. */
  unrelatedInTop5: boolean;
  /** nDCG@10 over the graded products; null for a query nothing matches. */
  ndcg: number | null;
}

/** Scores one answer, given as the products' URLs in answer order. */
export function scoreSample(query: SampleQuery, urls: readonly string[]): SampleScore {
  const grades = new Map(Object.entries(query.grades));
  const unrelatedInTop5 = urls.slice(0, 5).some((url) => !grades.has(url));
  if (grades.size === 0) {
    return { bestFirst: urls.length === 0, bestInTop3: urls.length === 0, unrelatedInTop5, ndcg: null };
  }
  const top = Math.max(...grades.values());
  const best = (url: string | undefined) => url !== undefined && grades.get(url) === top;
  return {
    bestFirst: best(urls[0]),
    bestInTop3: urls.slice(0, 3).some(best),
    unrelatedInTop5,
    ndcg: ndcgAt10(urls, grades),
  };
}

export interface SampleSummary {
  queries: number;
  bestFirst: number;
  bestInTop3: number;
  unrelatedInTop5: number;
  /** Mean nDCG@10 over the queries with graded products. */
  ndcg: number;
  /** The queries that miss a goal (best not in the top three, or something unrelated in the top five). */
  misses: { q: string; urls: string[]; score: SampleScore }[];
}

export function summarise(answers: readonly { query: SampleQuery; urls: string[] }[]): SampleSummary {
  const scored = answers.map(({ query, urls }) => ({ q: query.q, urls, score: scoreSample(query, urls) }));
  const graded = scored.flatMap((s) => (s.score.ndcg === null ? [] : [s.score.ndcg]));
  const share = (pick: (s: SampleScore) => boolean) => scored.filter((s) => pick(s.score)).length / scored.length;
  return {
    queries: scored.length,
    bestFirst: share((s) => s.bestFirst),
    bestInTop3: share((s) => s.bestInTop3),
    unrelatedInTop5: share((s) => s.unrelatedInTop5),
    ndcg: graded.reduce((sum, s) => sum + s, 0) / graded.length,
    misses: scored.filter((s) => !s.score.bestInTop3 || s.score.unrelatedInTop5),
  };
}
