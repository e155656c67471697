/**
 * The retrieve stage: full text (every form of every word) and vectors, each with the filters inside the query, the
 * relevance floor on what only vectors found, fused by reciprocal rank; the first `rerankCount` fused read as the
 * reranker's candidates. Under a constraint on the offer (a price, stock), the best few full text finds without it
 * come beside them, to judge the floor by; they are never answered.
 */
import type { Product } from "../../../shared/schemas/index.js";
import { findProductsByIds } from "../../catalog/repository.js";
import { type Filters, withoutOfferConstraints } from "../filters.js";
import { reciprocalRankFusion } from "../fuse.js";
import { fullTextRanked, type Ranked, vectorRanked, withinExactScope } from "../retrieve.js";
import type { QueryPlan } from "../understand.js";
import type { SearchContext } from "./context.js";

/** From this many products, outside a narrow filter, full text's scope is broad (see fullTextRanked). */
const EVERY_WORD_FIRST_FROM = 50_000;
/**
 * How many of the products full text finds without the search's price or stock constraint judge the floor beside its
 * candidates: the best few by the query's words are enough to show the catalog sells the kind asked.
 */
const BESIDE = 10;

export interface Retrieved {
  lexical: Ranked[];
  semantic: Ranked[];
  /** Every match, best first: the fused lists. */
  fused: string[];
  candidates: Product[];
  beside: Product[];
  /**
   * What vector retrieval ranked under the relevance floor, best first (at most as many as the candidates): loaded
   * only when the reranker keeps nothing above the floor, as the answer's weak matches (rank.ts).
   */
  belowFloor: () => Promise<Product[]>;
  queryVector?: number[];
  similarities: Map<string, number>;
  /** performance.now() when the query's vector was ready, and when retrieval ended. */
  embeddedAt: number;
  retrievedAt: number;
}

export async function retrieveStage(
  ctx: SearchContext,
  plan: QueryPlan,
  filters: Filters,
  depth: number,
  rerankCount: number,
  started: number,
): Promise<Retrieved> {
  const { deps } = ctx;
  const mode = deps.retrieval ?? "hybrid";
  const read = ctx.read();
  // The query's vector is computed (in the encoder's thread, or by an embeddings server) while the database
  // counts the scope and ranks full text: at 100,000 products that is ~9 ms of a single search's ~45 off its wait.
  const embedding = mode === "fulltext" ? undefined : ctx.embedQuery(plan.embedText);
  let embeddedAt = started;
  // A narrow filter is ranked in full by both retrievals: exactly by vectors, by the plain OR in full text.
  const size = await ctx.catalogSize();
  const exact = await withinExactScope(read, filters, size);
  const large = size >= EVERY_WORD_FIRST_FROM;
  // When full text has answered before the vector is ready (as it usually has), the vector query also scores its
  // candidates, so the reranker need not send the vector again for those vector retrieval did not rank.
  let lexicalFirst: Ranked[] = [];
  const unconstrained = mode === "vector" ? undefined : withoutOfferConstraints(filters);
  const [lexical, [queryVector, semantic, similarities], outside] = await Promise.all([
    mode === "vector" ? [] : fullTextRanked(read, plan, filters, depth, { broad: large && !exact }).then((ranked) => (lexicalFirst = ranked)),
    (async (): Promise<[number[] | undefined, Ranked[], Map<string, number>]> => {
      if (!embedding) return [undefined, [], new Map()];
      const vector = await embedding;
      embeddedAt = performance.now();
      const alsoScore = lexicalFirst.slice(0, rerankCount).map((item) => item.id);
      const settingsInSession = deps.vectorSettingsInSession ?? false;
      const { ranked, similarities } = await vectorRanked(read, vector, filters, depth, { settingsInSession, exact, alsoScore });
      return [vector, ranked, similarities];
    })(),
    unconstrained ? fullTextRanked(read, plan, unconstrained, BESIDE, { broad: large }) : [],
  ]);
  // The relevance floor: what no query word matches must be close in meaning to count as a match at all.
  const similar = semantic.filter((item) => item.score >= deps.minSimilarity);
  const fused = reciprocalRankFusion([lexical, similar]).slice(0, deps.maxResults);
  const retrievedIds = new Set(fused);
  const under = semantic.filter((item) => !retrievedIds.has(item.id)).slice(0, rerankCount);
  const [candidates, beside] = await Promise.all([
    findProductsByIds(read, fused.slice(0, rerankCount), false),
    findProductsByIds(
      read,
      outside.map((item) => item.id).filter((id) => !retrievedIds.has(id)),
      false,
    ),
  ]);
  return {
    lexical,
    semantic,
    fused,
    candidates,
    beside,
    belowFloor: () =>
      findProductsByIds(
        read,
        under.map((item) => item.id),
        false,
      ),
    ...(queryVector ? { queryVector } : {}),
    similarities,
    embeddedAt,
    retrievedAt: performance.now(),
  };
}
