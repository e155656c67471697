/**
 * The analyse stage: `q` read once. Constraints written in it become filters (interpret.ts: prices, stock, a brand,
 * words not wanted); the words left are read for what they stand for (understand.ts: typos corrected to the catalog's
 * words, synonyms, kinds, ages). Every later stage reads the plan, never the raw string.
 */
import type { SearchParams } from "../../../shared/schemas/index.js";
import { type BrandIndex, interpret, NEEDS_CURRENCY, type Reading, spelledOut } from "../interpret.js";
import type { SynonymSet } from "../synonyms.js";
import { type QueryPlan, understand } from "../understand.js";
import type { Vocabulary } from "../vocabulary.js";
import type { RetrievalBudget } from "./budget.js";
import type { SearchContext } from "./context.js";
import { matchedUnpriced } from "./page.js";

export interface CatalogFacts {
  brands(): Promise<BrandIndex>;
  currencies(): Promise<string[]>;
  vocabulary(): Promise<Vocabulary>;
  synonyms: SynonymSet;
}

export interface Analysis {
  /** The words searched, constraints taken out; undefined when nothing is left to search (browse). */
  query: string | undefined;
  reading: Reading | null;
  plan: QueryPlan | null;
  /** The same reading for other words (a query without some of its words). */
  planOf: (words: string) => Promise<QueryPlan>;
  /** The parameters with the constraints read from `q`. */
  read: SearchParams;
}

export async function analyse(params: SearchParams, facts: CatalogFacts): Promise<Analysis> {
  // Postgres text cannot hold NUL; it carries no meaning in a query anyway.
  const q = (params.q && spelledOut(params.q.replaceAll("\u0000", " ")).trim()) || undefined;
  const reading = q && params.parse_query ? interpret({ ...params, q }, await facts.brands(), await facts.currencies()) : null;
  const query = reading ? reading.query || undefined : q;
  const avoid = reading?.avoid.map((avoided) => avoided.word);
  const planOf = async (words: string) =>
    understand(words, { vocabulary: params.typos ? await facts.vocabulary() : null, synonyms: facts.synonyms, avoid });
  const plan = query ? await planOf(query) : null;
  return { query, reading, plan, planOf, read: { ...params, ...reading?.adds } };
}

/**
 * A price order asked in words without a currency ("cheapest headphones", where the catalog prices in several) is in
 * the currency every product the words match is priced in, when there is one; else the reason names theirs, for the
 * caller to choose. One more search, only then.
 */
export async function priceOrderOf(
  ctx: SearchContext,
  analysis: Analysis,
  budget: RetrievalBudget,
): Promise<Pick<SearchParams, "sort" | "currency">> {
  const { reading, query, plan, read } = analysis;
  const order = reading?.notApplied.find((entry) => entry.reason === NEEDS_CURRENCY);
  if (!reading || !query || !plan || !order || !budget.spend()) return {};
  budget.unpriced = await matchedUnpriced(ctx, query, plan, read);
  const currencies = budget.unpriced.map(({ currency }) => currency).sort();
  if (currencies.length !== 1) {
    if (currencies.length > 1) order.reason = `${NEEDS_CURRENCY}; the products matched are priced in ${currencies.join(", ")}`;
    return {};
  }
  reading.notApplied = reading.notApplied.filter((entry) => entry !== order);
  reading.applied.push({ filter: order.filter, value: order.value, text: order.text });
  return { sort: order.value === "price_asc" ? "price_asc" : "price_desc", currency: currencies[0] };
}
