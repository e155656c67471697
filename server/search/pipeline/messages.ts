/**
 * What the caller should know about an answer (`messages`): which currencies its prices were compared in, constraints
 * read but not applied, and why an empty answer is empty (outside the price bounds, none in stock, words no product
 * holds), so that an agent can widen the search rather than conclude the catalog has nothing.
 */
import type { Message, SearchParams, Sort } from "../../../shared/schemas/index.js";
import { STOP_WORDS } from "../common-words.js";
import { convertedText, currencyOnlyText } from "../exchange-rates.js";
import { type Filters, narrows, withoutOfferConstraints } from "../filters.js";
import type { Reading } from "../interpret.js";
import { isVague } from "../product-type.js";
import { type QueryPlan, wordClauses } from "../understand.js";
import type { RetrievalBudget } from "./budget.js";
import type { SearchContext } from "./context.js";
import { matchedUnpriced, type Page, searchedWithout, searchPage } from "./page.js";
import { clausesHeld } from "./retrieve.js";

/**
 * The most words an empty answer's query may have for each to be looked up in the catalog (`withoutUnheldWords`): a
 * longer one is a paste, not a shopper's words, and searching it again would double a costly search.
 */
const MAX_WORDS_LOOKED_UP = 12;

export interface AnswerFacts {
  query: string | undefined;
  plan: QueryPlan | null;
  planOf: (words: string) => Promise<QueryPlan>;
  reading: Reading | null;
  filters: Filters;
  /** The parameters the answer applied. */
  answered: SearchParams;
  effective: SearchParams;
  sort: Sort;
  priced: boolean;
  page: Page;
  empty: boolean;
  /** The first page (no cursor): only it explains an empty answer. */
  first: boolean;
  budget: RetrievalBudget;
}

export async function answerMessages(ctx: SearchContext, facts: AnswerFacts): Promise<Message[]> {
  const { answered, reading, empty, first } = facts;
  const messages: Message[] = [];
  const priceNote = priceNoteOf(ctx, facts);
  if (priceNote) messages.push(priceNote);
  for (const skipped of reading?.notApplied ?? []) {
    messages.push({ code: "filter_not_applied", text: `"${skipped.text}" was not applied as ${skipped.filter}: ${skipped.reason}.` });
  }
  // Each costs one more search (unless its counts are known), only for an empty first page, while the budget lasts.
  const { budget } = facts;
  if (priceNote && empty && first && (budget.unpriced || budget.spend())) priceNote.text += await emptyWithinPrices(ctx, facts);
  else if (answered.availability && empty && first && budget.spend()) {
    const none = await noneAvailable(ctx, facts);
    if (none) messages.push(none);
  }
  if (facts.query && facts.plan && empty && first && messages.every((m) => m.code !== "none_available") && budget.spend()) {
    const without = await withoutUnheldWords(ctx, facts.plan, facts);
    if (without) messages.push(without);
  }
  // The best matches are weak: they are answered, and the caller told so, rather than nothing.
  if (facts.page.weak && !empty && first) {
    messages.push({
      code: "weak_matches",
      text: "Nothing matches the query closely; these are the nearest products, which may not be what was asked.",
    });
  }
  if (facts.page.endOfRelevance) {
    messages.push({
      code: "end_of_relevance",
      text: `Relevance results end at ${ctx.deps.maxResults} products; narrow the search with filters, or sort by price or newest to go further.`,
    });
  }
  return messages;
}

function priceNoteOf(ctx: SearchContext, { answered, priced, filters }: AnswerFacts): Message | undefined {
  if (!((answered.price_min !== undefined || answered.price_max !== undefined || priced) && answered.currency)) return undefined;
  const rates = ctx.deps.exchangeRates;
  return filters.converted && rates
    ? { code: "converted", text: convertedText(answered.currency, filters.converted.length, rates) }
    : { code: "currency_only", text: currencyOnlyText(answered.currency, rates ?? null, { sort: priced, items: "products" }) };
}

/**
 * An empty answer that only prices in one currency says where the search matches without its prices: outside the
 * bounds, or in other currencies, so that the caller can widen the bounds or ask again in that currency.
 */
async function emptyWithinPrices(ctx: SearchContext, { effective, filters, query, plan, priced, budget }: AnswerFacts): Promise<string> {
  const considered = new Set([effective.currency, ...(filters.converted ?? []).map((bounds) => bounds.currency)]);
  const unpriced = budget.unpriced ?? (await matchedUnpriced(ctx, query, plan, effective));
  // A sort has no bounds to be outside of.
  const outside = priced ? [] : unpriced.filter(({ currency }) => considered.has(currency));
  const elsewhere = unpriced.filter(({ currency }) => !considered.has(currency));
  const counts = (list: typeof unpriced) =>
    list.map(({ currency, count }) => `${count} ${count === 1 ? "product" : "products"} priced in ${currency}`).join(", ");
  const step = priced ? "sort" : "filter";
  const parts = [...(outside.length > 0 ? [`${counts(outside)}, none within the bounds`] : []), ...(elsewhere.length > 0 ? [counts(elsewhere)] : [])];
  if (parts.length === 0) return "";
  const where = elsewhere.length === 1 ? "that currency" : "one of those currencies";
  const ask = elsewhere.length > 0 ? `; to ${step} by price, ask in ${where}.` : ".";
  return ` None matched. Without the price ${step} the search matches ${parts.join(", and ")}${ask}`;
}

/** An empty answer under an availability filter, by state: "none in stock" is not "none sold" (the one sofa on back order). */
async function noneAvailable(ctx: SearchContext, { query, plan, answered }: AnswerFacts): Promise<Message | undefined> {
  const page = await searchedWithout(ctx, query, plan, answered, "availability");
  const states = (await ctx.facetCounts(page.facetScope(), ["availability"])).availability ?? [];
  const total = states.reduce((sum, state) => sum + state.count, 0);
  if (total === 0) return undefined;
  const counts = states.map((state) => `${state.count} ${state.value}`).join(", ");
  return {
    code: "none_available",
    text: `None matched. Without the availability filter the search matches ${total} ${total === 1 ? "product" : "products"}: ${counts}.`,
  };
}

/**
 * The `unmatched_words` message: the query's words no product within the search's scope (its filters but those on
 * the offer) holds in any form, and what the query without them matches. None when every word is held somewhere,
 * when no word is (nothing to suggest), or when the rest matches nothing either. Words naming no kind ("something",
 * "gear") are not looked up: a product seldom says them. Typesense and Meilisearch drop such words unasked; the answer
 * stays what was asked, and says how to ask for what there is.
 */
async function withoutUnheldWords(
  ctx: SearchContext,
  plan: QueryPlan,
  { planOf, filters, answered, sort }: AnswerFacts,
): Promise<Message | undefined> {
  const clauses = wordClauses(plan).filter(({ index }) => !isVague(plan.words, index));
  if (clauses.length > MAX_WORDS_LOOKED_UP) return undefined;
  // Stop words match nothing, so no product holds them: they are not looked up, and only join the words kept.
  const content = clauses.filter(({ index }) => !STOP_WORDS.has(plan.words[index]!));
  const scope = withoutOfferConstraints(filters) ?? filters;
  const distinct = [...new Set(content.map(({ clause }) => clause))];
  const held = await clausesHeld(ctx.read(), distinct, scope, plan.languages);
  const heldClauses = new Set(distinct.filter((_, k) => held[k]));
  const unheld = new Set(content.filter(({ clause }) => !heldClauses.has(clause)).map(({ index }) => index));
  // The rest runs from the first word held to the last, the stop words between them kept ("case for iphone"): those
  // around it were what the words not held said ("i m a what moisturiser you" for "I'm a guy, what moisturiser …").
  const kept = content.filter(({ index }) => !unheld.has(index)).map(({ index }) => index);
  if (unheld.size === 0 || kept.length === 0) return undefined;
  const rest = plan.words.filter((_, index) => index >= kept[0]! && index <= kept.at(-1)! && !unheld.has(index)).join(" ");
  const page = await searchPage(ctx, rest, await planOf(rest), filters, answered, sort);
  if (page.ids.length === 0) return undefined;
  const quoted = [...new Set([...unheld].map((index) => `"${plan.words[index]}"`))];
  const named = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
  const count = `${page.next ? "at least " : ""}${page.ids.length} ${page.ids.length === 1 ? "product" : "products"}`;
  return {
    code: "unmatched_words",
    text: `None matched: no product ${narrows(scope) ? "within the filters " : ""}holds ${named}. Without ${quoted.length === 1 ? "it" : "them"}, "${rest}" matches ${count}.`,
    query: rest,
  };
}
