/**
 * The retrieve stage: full text (every form of every word) and vectors, each with the filters inside the query (never
 * afterwards, so a small brand or a narrow filter still fills its page), the relevance floor on what only vectors
 * found, fused by reciprocal rank; the first `rerankCount` fused read as the reranker's candidates. Under a constraint
 * on the offer (a price, stock), the best few full text finds without it come beside them, to judge the floor by;
 * they are never answered.
 */
import { and, inArray, isNotNull, type SQL, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type { Product } from "../../../shared/schemas/index.js";
import { findProductsByIds } from "../../catalog/repository.js";
import type { Database, DbOrTx } from "../../db/client.js";
import { productFacets, products } from "../../db/schema.js";
import { VECTOR_SESSION_SETTINGS } from "../../db/vector-settings.js";
import { type Filters, filterSql, narrows, withoutOfferConstraints } from "../filters.js";
import { tsqueryIn } from "../languages/sql.js";
import { anyWordQuery, everyWordQuery, type QueryPlan } from "../understand.js";
import type { SearchContext } from "./context.js";

/** From this many products, outside a narrow filter, full text's scope is broad (see fullTextRanked). */
const LARGE_CATALOG_FROM = 50_000;
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
  const large = size >= LARGE_CATALOG_FROM;
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

/** The constant from Cormack et al.'s reciprocal rank fusion; damps the weight of the very top ranks. */
const RRF_K = 60;

/** Reciprocal rank fusion: ids ordered by the sum of 1/(k + rank) over the lists that hold them. */
export function reciprocalRankFusion(lists: readonly (readonly Ranked[])[], k = RRF_K): string[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    for (const [index, item] of list.entries()) scores.set(item.id, (scores.get(item.id) ?? 0) + 1 / (k + index + 1));
  }
  return [...scores].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([id]) => id);
}

/**
 * Filtered sets up to this size are ranked exactly (every product compared); larger ones, and the whole catalog, use
 * HNSW. Not lower: under a 3–7% filter the iterative scan found a third of the exact top 50 on the generated catalog.
 */
const EXACT_SCOPE_MAX = 20_000;

export interface Ranked {
  id: string;
  score: number;
}

/**
 * A query vector as SQL, parsed once per query: a bare `$1::vector` is re-parsed
 * for every row it is compared with (512 floats of text each time). As `vector`,
 * so that it compares with either column type (db/schema.ts): Postgres stores
 * `halfvec` and converts the query to it once, PGlite keeps `vector` (db/halfvec.ts).
 */
export function vectorLiteral(vector: readonly number[]): SQL {
  return sql`(select ${vectorText(vector)}::vector)`;
}

/** pgvector's text form of a vector, sent as one parameter. */
function vectorText(vector: readonly number[]): string {
  return `[${vector.join(",")}]`;
}

/**
 * Whether the filters narrow the catalog to at most EXACT_SCOPE_MAX products, and to at most half of it, so both
 * retrievals can afford every product in scope. A filter passing most of the catalog (an audience read from the query
 * passes every product stating none) is ranked as the whole catalog is: the index's iterative scan fills its page at
 * once, where comparing every product cost a 10,000-product catalog's search 50–80 ms. Counted in the narrow
 * `product_facets` rows (they mirror the filter columns), no further than the bound.
 */
export async function withinExactScope(db: Database, filters: Filters, catalogSize: number): Promise<boolean> {
  const hard = hardPart(filters);
  if (!narrows(hard)) return false;
  const bound = Math.min(EXACT_SCOPE_MAX, Math.floor(catalogSize / 2));
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(
    db
      .select({ one: sql`1` })
      .from(productFacets)
      .where(filterSql(hard, productFacets))
      .limit(bound + 1)
      .as("bounded"),
  );
  return (row?.n ?? 0) <= bound;
}

function hasSoftPart({ unstatedPass, audiences, colours }: Filters): boolean {
  return (unstatedPass?.audience === true && audiences !== undefined) || (unstatedPass?.colour === true && colours !== undefined);
}

/**
 * The filters without those read from the query's words that pass every product stating none (an audience, a colour):
 * such a filter orders results like any other, but alone never makes a scope small enough to compare product by
 * product, and is checked on the index's nearest rather than steering its walk (vectorRanked).
 */
function hardPart(filters: Filters): Filters {
  if (!hasSoftPart(filters)) return filters;
  const { unstatedPass } = filters;
  return {
    ...filters,
    ...(unstatedPass?.audience ? { audiences: undefined } : {}),
    ...(unstatedPass?.colour ? { colours: undefined, namedColours: undefined } : {}),
  };
}

/**
 * Postgres full-text search over name (A), brands (B) and description (C):
 * products with any form of any of the query's words (understand.ts), best
 * `ts_rank` first; the forms read in each of the plan's languages.
 *
 * `broad`: the scope is a large catalog outside a narrow filter (the search service decides). Then the products that
 * have every word (in some form) are tried first: when there are at least `k` of them, those are ranked and the rest
 * never scored (a product missing a word would rank below these anyway). And the matches are capped before the
 * filters apply (rankedMatches). On small catalogs, and inside a filter within the exact scope (withinExactScope),
 * the OR is cheap and the extra query is not: under bench:search's filters the products with every word were too few
 * 4 times in 5.
 */
export async function fullTextRanked(
  db: Database,
  plan: QueryPlan,
  filters: Filters,
  k: number,
  options: { broad: boolean } = { broad: false },
): Promise<Ranked[]> {
  const text = anyWordQuery(plan);
  if (text === null) return [];
  const everyWord = everyWordQuery(plan);
  const capFirst = options.broad && narrows(filters);
  if (options.broad && everyWord !== null && everyWord !== text) {
    const all = await rankedMatches(db, tsqueryIn(plan.languages, everyWord), filters, k, capFirst);
    if (all.length >= k) return all;
  }
  return rankedMatches(db, tsqueryIn(plan.languages, text), filters, k, capFirst);
}

/**
 * Whether some product within `filters` holds each full-text clause (understand.ts's wordClauses), in one round trip of
 * index lookups; a clause of stop words alone, which matches nothing, is held. Read in the plan's languages.
 */
export async function clausesHeld(db: Database, clauses: readonly string[], filters: Filters, languages: readonly string[]): Promise<boolean[]> {
  if (clauses.length === 0) return [];
  const where = filterSql(filters);
  const held = clauses.map((clause) => {
    const tsquery = tsqueryIn(languages, clause);
    return sql`numnode(${tsquery}) = 0 or exists (select 1 from ${products} where ${and(sql`${products.search} @@ ${tsquery}`, where)})`;
  });
  const [row] = await db.select({ held: sql<boolean[]>`array[${sql.join(held, sql`, `)}]` }).from(sql`(select 1) as one`);
  return row!.held;
}

/**
 * The most matches full text ranks: the first this many the index finds (in the table's order), the rest unread. Ranking
 * reads each match's row, ~7 µs apiece, so a common word's 30,000 matches in a million products cost 200 ms; only so
 * large a catalog has more, and there the vectors and the reranker order what this leg finds.
 */
const RANKED_MATCHES_MAX = 5_000;

/**
 * The matches within the filters, best `ts_rank` first. `capFirst` (a broad filter over a large catalog): the index's
 * first matches are capped before the filters apply, as a plain search's are; with the filters beside the match and a
 * LIMIT, Postgres scanned the table for them instead (226,000 rows for 5,000 matches of "vase" under a price and stock
 * filter at a million products: 458 against 58 ms). The capped matches take the table's name, so the filters' SQL
 * reads their columns.
 */
async function rankedMatches(db: Database, tsquery: SQL, filters: Filters, k: number, capFirst: boolean): Promise<Ranked[]> {
  const matched = sql`${products.search} @@ ${tsquery}`;
  const scope = capFirst ? matched : and(matched, filterSql(filters));
  // Every column, so whatever the filters read is there: Postgres reads only those the outer query names (the others
  // become nulls in the plan), so `*` costs no more than a list, and cannot fall behind filters.ts.
  const matches = sql`(select * from ${products} where ${scope} limit ${RANKED_MATCHES_MAX}) as ${products}`;
  const score = sql<number>`ts_rank(${products.search}, ${tsquery})`.mapWith(Number).as("score");
  // Ordered by the output column's name: the rank written out again is another expression (its own parameter),
  // which Postgres computes a second time for every match (~5% of a one-word query's time at 100,000 products).
  return db
    .select({ id: sql<string>`${products.id}`.as("id"), score })
    .from(matches)
    .where(capFirst ? filterSql(filters) : undefined)
    .orderBy(sql`"score" desc`, products.id)
    .limit(k);
}

/** How many of the index's nearest under the other filters a filter read from the query's words is checked on, per result. */
const SOFT_POOL = 4;

/**
 * Cosine similarity over stored vectors. With `exact` (the filtered set is
 * within EXACT_SCOPE_MAX, withinExactScope) every product in scope is
 * compared, so a narrow filter never misses what HNSW's graph walk would not
 * reach; the whole catalog and larger sets go through HNSW with the session's
 * iterative scan (see db/vector-settings.ts), whose relaxed order is re-sorted here.
 */
export async function vectorRanked(
  db: Database,
  vector: readonly number[],
  filters: Filters,
  k: number,
  options: { settingsInSession: boolean; exact: boolean; alsoScore?: readonly string[] },
): Promise<{ ranked: Ranked[]; similarities: Map<string, number> }> {
  const where = filterSql(filters);
  const { exact } = options;
  const alsoScore = options.alsoScore ?? [];
  // The query's 512 floats are sent and parsed once per statement (~1 ms on PGlite): every branch reads this row.
  const queryVector = db.$with("query_vector").as(db.select({ v: sql`${vectorText(vector)}::vector`.as("v") }).from(sql`(select) as one`));
  const toQuery = sql`${products.embedding} <=> (select "v" from "query_vector")`;
  // Aliased as SQL in every branch, so the branches of the union below have one shape.
  const idColumn = sql<string>`${products.id}`.as("id");
  const plainDistance = sql<number>`${toQuery}`.mapWith(Number).as("distance");
  // `+ 0` keeps the planner off the HNSW index for the exact path.
  const distance = exact ? sql<number>`(${toQuery}) + 0`.mapWith(Number).as("distance") : plainDistance;
  const query = (tx: DbOrTx) => {
    const closest = (scope: SQL | undefined, limit: number) =>
      tx
        .select({ id: idColumn, distance, ranked: sql<boolean>`true`.as("ranked") })
        .from(products)
        .where(and(isNotNull(products.embedding), scope))
        // By the output column's name, not the expression again (which would be a second copy of the vector).
        .orderBy(sql`"distance"`)
        .limit(limit);
    // A filter read from the query's words is checked on the index's nearest under the others: steering the walk, a
    // selective one ("gold dress") made the iterative scan visit most of the graph (130 ms on 10,000 products).
    const near = exact || !hasSoftPart(filters) ? undefined : closest(filterSql(hardPart(filters)), k * SOFT_POOL).as("near");
    const nearest = near
      ? tx
          // Named by hand: drizzle writes the subquery's columns unqualified, which the join makes ambiguous.
          .select({
            id: sql<string>`"near"."id"`.as("id"),
            distance: sql<number>`"near"."distance"`.mapWith(Number).as("distance"),
            ranked: sql<boolean>`true`.as("ranked"),
          })
          .from(near)
          .innerJoin(products, sql`"products"."id" = "near"."id"`)
          .where(where)
          .orderBy(sql`"distance"`)
          .limit(k)
      : closest(where, k);
    if (alsoScore.length === 0) return tx.with(queryVector).select().from(nearest.as("nearest"));
    const others = tx
      .select({ id: idColumn, distance: plainDistance, ranked: sql<boolean>`false`.as("ranked") })
      .from(products)
      .where(and(inArray(products.id, [...alsoScore]), isNotNull(products.embedding)));
    return tx.with(queryVector).select().from(unionAll(nearest, others).as("scored"));
  };
  const rows =
    exact || options.settingsInSession
      ? await query(db)
      : await db.transaction(async (tx) => {
          for (const [name, value] of Object.entries(VECTOR_SESSION_SETTINGS)) {
            await tx.execute(sql`select set_config(${name}, ${value}, true)`);
          }
          return query(tx);
        });
  const ranked = rows
    .filter((row) => row.ranked)
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1))
    .map((row) => ({ id: row.id, score: 1 - row.distance }));
  return { ranked, similarities: new Map(rows.map((row) => [row.id, 1 - row.distance])) };
}
