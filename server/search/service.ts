/**
 * Search and browse: a pipeline over one reading of the query.
 *
 * analyse (pipeline/analyse.ts: constraints read as filters, the words' forms) → retrieve (pipeline/retrieve.ts: full
 * text and vectors, filters inside both, fused) → rank and cut (pipeline/rank.ts: the reranker orders and names the
 * unrelated) → page (pipeline/page.ts: by relevance, price or age; browse without words) → explain
 * (pipeline/explain.ts, pipeline/messages.ts: how the query was read, why each product matched, why an answer is
 * empty). Facets count the whole matched set.
 */
import type { Product, SearchParams, Sort } from "../../shared/schemas/index.js";
import { LruCache, refreshedEvery } from "../cache.js";
import { catalogSecret, countProducts } from "../catalog/repository.js";
import { brandNames, type OrderSort, priceCurrencies } from "./browse.js";
import { createCursorCodec, type CursorCodec, fingerprint } from "./cursor.js";
import { facetCounter } from "./facets.js";
import { heldAttributes } from "./attributes.js";
import { type Filters, filtersFrom } from "./filters.js";
import { brandIndex, loadPricePatterns, type Reading } from "./interpret.js";
import { loadWordLists } from "./common-words.js";
import { NO_SYNONYMS } from "./synonyms.js";
import { vocabularyOf } from "./vocabulary.js";
import { catalogLanguage, catalogLanguages } from "./languages/catalog.js";
import { languageData } from "./languages/data.js";
import { type Analysis, analyse, type CatalogFacts, priceOrderOf } from "./pipeline/analyse.js";
import { byCount, RetrievalBudget } from "./pipeline/budget.js";
import type { SearchContext, SearchDeps, SearchHitResult, SearchResult } from "./pipeline/context.js";
import { explainHits, interpretationOf } from "./pipeline/explain.js";
import { answerMessages } from "./pipeline/messages.js";
import { browsePage, matchedByCurrency, type Page, recordsOf, searchPage } from "./pipeline/page.js";
import type { ExchangeRates } from "./exchange-rates.js";

export type { RetrievalMode, SearchDeps, SearchHitResult, SearchReport, SearchResult } from "./pipeline/context.js";

export interface SearchService {
  /** `rawDataMaxBytes`: with raw data, what the answer may still hold; raw data past it is refused before more is read. */
  search(params: SearchParams, options?: { rawDataMaxBytes?: number }): Promise<SearchResult>;
  /** The operator's exchange rates, which price filters convert with (FX_RATES_FILE); null: prices are never converted. */
  readonly exchangeRates: ExchangeRates | null;
  /** Reads what the first search would otherwise wait for (the catalog's vocabulary). */
  warm(): Promise<void>;
}

/** The encoder's time grows with length; a shopper's intent is in the first words, and full text still sees all. */
const EMBEDDED_QUERY_CHARS = 200;
/** How long a count of the catalog, or its brand names, is trusted. */
const CATALOG_FACTS_TTL_MS = 60_000;
/** How often the vocabulary checks whether an import changed the catalog (it is read again only then). */
const VOCABULARY_CHECK_MS = 5_000;

/** What the analyser reads of the catalog, each kept a while (or, the vocabulary, until an import changes it). */
function catalogFactsOf(deps: SearchDeps): CatalogFacts {
  const { db } = deps;
  return {
    brands: refreshedEvery(async () => brandIndex(await brandNames(db)), CATALOG_FACTS_TTL_MS),
    currencies: refreshedEvery(() => priceCurrencies(db), CATALOG_FACTS_TTL_MS),
    vocabulary: vocabularyOf(db, VOCABULARY_CHECK_MS),
    held: refreshedEvery(() => heldAttributes(db), CATALOG_FACTS_TTL_MS),
    synonyms: deps.synonyms ?? NO_SYNONYMS,
    language: refreshedEvery(() => catalogLanguage(db), CATALOG_FACTS_TTL_MS),
    languages: refreshedEvery(() => catalogLanguages(db), CATALOG_FACTS_TTL_MS),
    ...(deps.queryModel ? { queryModel: deps.queryModel } : {}),
  };
}

/** What the stages share: the database to read, the catalog's size, facet counts, the query vectors and the cursors. */
function searchContextOf(deps: SearchDeps): SearchContext {
  const { db, embedder } = deps;
  const queryVectors = new LruCache<string, Promise<number[]>>(deps.queryCacheSize ?? 1000);
  let codec: Promise<CursorCodec> | undefined;
  return {
    deps,
    read: () => deps.reader?.() ?? db,
    catalogSize: refreshedEvery(() => countProducts(db), CATALOG_FACTS_TTL_MS),
    facetCounts: facetCounter(() => deps.reader?.() ?? db, deps.catalogVersion ?? (() => undefined)),
    embedQuery(fullQuery) {
      const query = fullQuery.slice(0, EMBEDDED_QUERY_CHARS);
      const key = query.toLowerCase();
      let vector = queryVectors.get(key);
      if (!vector) {
        vector = embedder.embed([query]).then(([v]) => v ?? []);
        vector.catch(() => undefined);
        queryVectors.set(key, vector);
      }
      return vector;
    },
    cursors() {
      codec ??= catalogSecret(db, "cursor_secret").then((secret) => createCursorCodec(secret, deps.now));
      codec.catch(() => {
        codec = undefined;
      });
      return codec;
    },
  };
}

export function createSearchService(deps: SearchDeps): SearchService {
  const facts = catalogFactsOf(deps);
  const ctx = searchContextOf(deps);

  return {
    exchangeRates: deps.exchangeRates ?? null,
    async warm() {
      loadWordLists();
      loadPricePatterns();
      languageData();
      await facts.vocabulary();
    },
    async search(params, options = {}) {
      const analysis = await analyse(params, facts);
      const { query, plan, reading } = analysis;
      const budget = new RetrievalBudget();
      const effective: SearchParams = { ...analysis.read, ...(await priceOrderOf(ctx, analysis, budget)) };
      const sort: Sort = effective.sort ?? (query ? "relevance" : "newest");
      const print = fingerprintOf(params, sort);
      const position = params.cursor === undefined ? undefined : (await ctx.cursors()).decode(params.cursor, print);
      const priced = sort === "price_asc" || sort === "price_desc";
      const filters = filtersOf(effective, reading, priced, deps.exchangeRates ?? null);
      const withRawData = params.include_raw_data || params.view === "full";
      budget.spend();
      const strict =
        query && plan
          ? await searchPage(ctx, query, plan, filters, effective, sort, position)
          : await browsePage(ctx, filters, sort as OrderSort, effective, position);
      const other = await otherCurrencies(ctx, analysis, strict, { filters, effective, sort, position, priced, budget });
      const lifted = other === strict ? await brandLifted(ctx, analysis, strict, { filters, effective, sort, position, budget }) : undefined;
      const page = lifted ?? other;
      const uncompared = other !== strict;
      // The parameters the answer applied: a price bound its products were not compared with is left out, and so is
      // a brand lifted.
      const unbounded = uncompared ? { ...effective, price_min: undefined, price_max: undefined } : effective;
      const answered: SearchParams = lifted ? { ...unbounded, brand: undefined } : unbounded;
      const records = await recordsOf(ctx, page, withRawData, options.rawDataMaxBytes);
      const hits = (params.collapse === "none" ? records : onePerGroup(records)).map((product): SearchHitResult => ({ product }));
      if (uncompared && reading) notComparedWith(reading, hits, effective.currency!, deps.exchangeRates ?? null);
      const messages = await answerMessages(ctx, {
        ...analysis,
        filters,
        answered,
        effective,
        sort,
        priced,
        page,
        empty: hits.length === 0,
        first: position === undefined,
        budget,
      });
      if (params.explain) await explainHits(ctx, hits, plan, answered, page.scores);
      const result: SearchResult = { hits, rerank: page.rerank };
      if (page.next) result.nextCursor = (await ctx.cursors()).encode(print, page.next);
      if (params.facets) result.facets = await ctx.facetCounts(page.facetScope(), params.facets);
      const interpretation = interpretationOf(analysis, params.explain === true, hits.length > 0);
      if (interpretation) result.interpretation = interpretation;
      if (messages.length > 0) result.messages = messages;
      return result;
    },
  };
}

/** One record per product group, the first (the best-matching): the same product at other merchants is its offers. */
function onePerGroup(products: readonly Product[]): Product[] {
  const seen = new Set<string>();
  return products.filter((product) => !seen.has(product.product_group.id) && seen.add(product.product_group.id));
}

/** What the strict search ran with, for a looser one after it (a price bound or a brand read from the words aside). */
interface StrictSearch {
  filters: Filters;
  effective: SearchParams;
  sort: Sort;
  position: Parameters<typeof searchPage>[6];
  budget: RetrievalBudget;
}

/**
 * A price bound read from the query's words ("coffee under $20") that leaves nothing, where the words match no product
 * priced in that currency but some priced in currencies it cannot be compared with (no exchange rates for them),
 * shows those: a shopper who typed it would rather see the coffee in kronor than nothing. Where the words match
 * products in the currency, all dearer ("coffee under 100 kr" among coffees at 129 kr and up), the answer stays empty.
 * A bound given as a parameter stays a filter. It costs one more search, only then; each later page finds the strict
 * search empty again and continues here.
 */
async function otherCurrencies(
  ctx: SearchContext,
  { query, plan, reading }: Analysis,
  strict: Page,
  search: StrictSearch & { priced: boolean },
): Promise<Page> {
  const currency = search.effective.currency;
  const readBound = reading?.applied.some((shown) => shown.filter === "price_min" || shown.filter === "price_max") ?? false;
  if (!query || !plan || !currency || !readBound || search.priced || strict.ids.length > 0 || !search.budget.spend()) return strict;
  const looseFilters: Filters = { ...search.filters, priceMin: undefined, priceMax: undefined, priced: true, uncompared: true };
  const loose = await searchPage(ctx, query, plan, looseFilters, search.effective, search.sort, search.position);
  const counts = await matchedByCurrency(ctx, loose);
  // Without converted bounds (no exchange rates for them), its matched set is the words' priced products with the
  // bounds aside: what the empty answer's price note counts.
  if (!search.filters.converted?.length) search.budget.unpriced = byCount(counts);
  return loose.ids.length > 0 && !counts.has(currency) ? loose : strict;
}

/**
 * A brand read from the query's words that leaves nothing ("4 chanel relay modul arduino": "chanel" is also a typo
 * of channel) is lifted: the words are searched whole, the brand's among them, and the brand moves to `not_applied`,
 * saying why. One more search, only then; a brand given as a parameter stays a filter.
 */
async function brandLifted(ctx: SearchContext, { query, reading, planOf }: Analysis, strict: Page, search: StrictSearch): Promise<Page | undefined> {
  const read = reading?.applied.filter((shown) => shown.filter === "brand") ?? [];
  if (!reading || read.length === 0 || strict.ids.length > 0 || !search.budget.spend()) return undefined;
  const words = [query ?? "", ...read.map((shown) => shown.text)].join(" ").trim();
  const filters: Filters = { ...search.filters, brands: undefined, brandsNamed: undefined };
  const loose = await searchPage(ctx, words, await planOf(words), filters, { ...search.effective, brand: undefined }, search.sort, search.position);
  if (loose.ids.length === 0) return undefined;
  const reason = "nothing of this brand matched the other words: searched as a word";
  reading.applied = reading.applied.filter((shown) => !read.includes(shown));
  reading.notApplied.push(...read.map((shown) => ({ ...shown, reason })));
  return loose;
}

/** The read price bounds an answer in other currencies did not apply move to `not_applied`, saying why. */
function notComparedWith(reading: Reading, hits: readonly SearchHitResult[], currency: string, rates: ExchangeRates | null): void {
  const readBound = reading.applied.filter((shown) => shown.filter === "price_min" || shown.filter === "price_max");
  const shown = [...new Set(hits.map((hit) => hit.product.offers?.currency).filter((code) => code !== undefined))].sort();
  const reason = `nothing priced in ${currency} matched, so products priced in ${shown.join(", ")} are shown; their prices could not be compared with it${rates ? " (no exchange rate for them)" : " (prices are never converted)"}`;
  reading.applied = reading.applied.filter((entry) => !readBound.includes(entry));
  reading.notApplied.push(...readBound.map((entry) => ({ ...entry, reason })));
}

/**
 * The search's filters. Read from the query, an audience or colour leaves out only products stating another
 * (attributes.ts), and a product whose name holds the colour word passes too.
 */
function filtersOf(effective: SearchParams, reading: Reading | null, priced: boolean, rates: ExchangeRates | null): Filters {
  const unstatedPass = {
    audience: reading?.adds.audience !== undefined,
    colour: reading?.adds.colour !== undefined,
    availability: reading?.adds.availability !== undefined,
  };
  const namedColours = reading?.applied.filter((shown) => shown.filter === "colour").map((shown) => shown.text);
  const brandsNamed = reading?.adds.brand !== undefined;
  return {
    ...filtersFrom(effective, { priced, rates, unstatedPass }),
    ...(namedColours?.length ? { namedColours } : {}),
    ...(brandsNamed ? { brandsNamed } : {}),
  };
}

/** What a page depends on: a cursor continues only the query, filters and sort it came from. */
function fingerprintOf(params: SearchParams, sort: Sort): string {
  const { q, brand_url, price_min, price_max, currency, availability, category, brand, parse_query, typos, updated_since, exclude } = params;
  return fingerprint([
    q ?? "",
    brand_url,
    price_min,
    price_max,
    currency,
    availability,
    category,
    brand,
    sort,
    parse_query,
    typos,
    // Only when given, so cursors made before the parameter existed stay valid.
    ...(updated_since ? [updated_since.toISOString()] : []),
    ...(exclude ? [["exclude", ...exclude]] : []),
    ...(params.synonyms ? [] : [["synonyms", false]]),
    ...(["audience", "colour", "material"] as const).flatMap((name) => (params[name] ? [[name, ...params[name]]] : [])),
  ]);
}
