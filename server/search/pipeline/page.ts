/**
 * One page of an answer: a search's (retrieve → rank → cut, then paged by relevance or by a sort key) or a browse's
 * (the filters' products by age or price, with a keyset), and the records it shows.
 */
import { inArray } from "drizzle-orm";
import type { Product, SearchParams, Sort } from "../../../shared/schemas/index.js";
import { findProductsByIds } from "../../catalog/repository.js";
import { productFacets } from "../../db/schema.js";
import { browseKeys, comesAfter, type OrderSort, type SortKey, sortKeys } from "../browse.js";
import { type CursorPosition, seenHash } from "../cursor.js";
import type { FacetScope } from "../facets.js";
import { type Filters, filterSql, filtersFrom } from "../filters.js";
import type { QueryPlan } from "../understand.js";
import { byCount } from "./budget.js";
import type { SearchContext, SearchResult } from "./context.js";
import { rankStage } from "./rank.js";
import { retrieveStage } from "./retrieve.js";

/** Each retrieval returns at least this many, so fusion has something to agree on even for small limits. */
const MIN_RETRIEVAL = 50;
const BROWSE = { name: "none", outcome: "none" } as const;

export interface Page {
  ids: string[];
  /** Records already read (the reranker's candidates, without raw data). */
  known?: ReadonlyMap<string, Product>;
  next?: CursorPosition;
  /** The products facets count: the filters' whole set when browsing, the matched set when searching. */
  facetScope: () => FacetScope;
  scores?: { lexical: Map<string, number>; semantic: Map<string, number>; rerank?: ReadonlyMap<string, number> };
  rerank: SearchResult["rerank"];
  endOfRelevance?: boolean;
  /** Only weak matches were kept (the reranker's `weak`): the answer says so. */
  weak?: boolean;
}

/** The page's records in page order; those the reranker saw are not read again (unless raw data is asked for). */
export async function recordsOf(ctx: SearchContext, page: Page, withRawData: boolean, rawDataMaxBytes?: number): Promise<Product[]> {
  const known = withRawData ? new Map<string, Product>() : (page.known ?? new Map<string, Product>());
  const missing = page.ids.filter((id) => !known.has(id));
  const read = missing.length > 0 ? await findProductsByIds(ctx.read(), missing, withRawData, rawDataMaxBytes) : [];
  const byId = new Map([...known, ...read.map((product): [string, Product] => [product.id, product])]);
  return page.ids.flatMap((id) => {
    const product = byId.get(id);
    return product ? [product] : [];
  });
}

function keysetFrom(position: CursorPosition | undefined): SortKey | undefined {
  if (!position) return undefined;
  if (position.kind !== "keyset") throw new Error("a relevance cursor on a sorted page: the fingerprint binds the sort");
  return { id: position.id, value: position.value };
}

export async function browsePage(
  ctx: SearchContext,
  filters: Filters,
  sort: OrderSort,
  params: SearchParams,
  position?: CursorPosition,
): Promise<Page> {
  const where = filterSql(filters, productFacets);
  const keys = await browseKeys(ctx.read(), where, sort, params.limit + 1, keysetFrom(position));
  return {
    ...keysetPage(keys, params.limit),
    // The filters alone decide which products facets count: the key under which their counts are kept.
    facetScope: () => ({ where, key: JSON.stringify(filters) }),
    rerank: BROWSE,
  };
}

export async function searchPage(
  ctx: SearchContext,
  query: string,
  plan: QueryPlan,
  filters: Filters,
  params: SearchParams,
  sort: Sort,
  position?: CursorPosition,
): Promise<Page> {
  const { deps } = ctx;
  const seen = position?.kind === "seen" ? position.seen : new Set<string>();
  const rerankCount = Math.max(params.limit, deps.rerankCandidates);
  const whole = sort !== "relevance" || params.facets !== undefined;
  const depth = Math.min(deps.maxResults, whole ? deps.maxResults : Math.max(MIN_RETRIEVAL, rerankCount, seen.size + params.limit));
  const started = performance.now();
  const retrieved = await retrieveStage(ctx, plan, filters, depth, rerankCount, started);
  const {
    ranked,
    matched,
    rerank,
    scores: rerankScores,
    weak,
  } = await rankStage(deps.reranker, query, plan, retrieved, filters.brandsNamed === true);
  const seconds = (from: number, to: number) => (to - from) / 1000;
  const { embeddedAt, retrievedAt } = retrieved;
  deps.observe?.({
    stages: { embed: seconds(started, embeddedAt), retrieve: seconds(embeddedAt, retrievedAt), rerank: seconds(retrievedAt, performance.now()) },
    rerank,
  });
  const scores = {
    lexical: new Map(retrieved.lexical.map((item) => [item.id, item.score])),
    // Vector retrieval's own ranking only: what else it scored depends on which retrieval answered first.
    semantic: new Map(retrieved.semantic.map((item) => [item.id, item.score])),
    ...(rerankScores ? { rerank: rerankScores } : {}),
  };
  const facetScope = () => ({ where: inArray(productFacets.id, matched.length > 0 ? matched : [""]) });
  const common = {
    known: new Map(retrieved.candidates.map((product) => [product.id, product])),
    facetScope,
    scores,
    rerank,
    ...(weak ? { weak } : {}),
  };
  if (sort === "relevance") {
    const rest = ranked.filter((id) => !seen.has(seenHash(id)));
    const ids = rest.slice(0, params.limit);
    const shown = seen.size + ids.length;
    const more = rest.length > ids.length;
    const next: CursorPosition | undefined =
      more && shown < deps.maxResults ? { kind: "seen", seen: new Set([...seen, ...ids.map(seenHash)]) } : undefined;
    return { ids, ...common, ...(next ? { next } : {}), endOfRelevance: more && shown >= deps.maxResults };
  }
  const from = keysetFrom(position);
  const keys = (await sortKeys(ctx.read(), ranked, sort)).filter((key) => !from || comesAfter(sort, key, from));
  return { ...common, ...keysetPage(keys, params.limit) };
}

/** The first `limit` keys' ids, with a keyset cursor after the last when more follow. */
function keysetPage(keys: readonly SortKey[], limit: number): { ids: string[]; next?: CursorPosition } {
  const shown = keys.slice(0, limit);
  const last = shown.at(-1);
  return { ids: shown.map((key) => key.id), ...(keys.length > limit && last ? { next: { kind: "keyset", value: last.value, id: last.id } } : {}) };
}

/**
 * The same search with its price bounds and currency, or its availability filter, aside (for the message of an empty
 * answer): its page, to count by currency or by state.
 */
export async function searchedWithout(
  ctx: SearchContext,
  query: string | undefined,
  plan: QueryPlan | null,
  params: SearchParams,
  aside: "price" | "availability",
): Promise<Page> {
  const loosened: SearchParams =
    aside === "price"
      ? { ...params, price_min: undefined, price_max: undefined, currency: undefined, sort: undefined, facets: ["price"] }
      : { ...params, availability: undefined, sort: undefined, facets: ["availability"] };
  const filters = filtersFrom(loosened, { rates: ctx.deps.exchangeRates });
  if (!query || !plan) return browsePage(ctx, filters, "newest", loosened);
  const page = await searchPage(ctx, query, plan, filters, loosened, "relevance");
  // Weak matches are what the search found nearest, not what it matches: an empty answer's note counts none of them.
  return page.weak ? { ...page, ids: [], facetScope: () => ({ where: inArray(productFacets.id, [""]) }) } : page;
}

/** How many of the products a page's search matched are priced in each currency. */
export async function matchedByCurrency(ctx: SearchContext, page: Page): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const bucket of (await ctx.facetCounts(page.facetScope(), ["price"])).price ?? []) {
    counts.set(bucket.currency, (counts.get(bucket.currency) ?? 0) + bucket.count);
  }
  return counts;
}

/** How many products the search matches, its prices and currency aside, per currency; most first. */
export async function matchedUnpriced(ctx: SearchContext, query: string | undefined, plan: QueryPlan | null, params: SearchParams) {
  return byCount(await matchedByCurrency(ctx, await searchedWithout(ctx, query, plan, params, "price")));
}
