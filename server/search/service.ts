/**
 * Search and browse.
 *
 * With words to search: read what the words stand for (typos corrected to the
 * catalog's words, synonyms; understand.ts), embed the query, retrieve by full
 * text (every form of every word) and by vector with the filters inside both
 * queries, keep only what matches (a query word in the text, or a similarity
 * above the relevance floor), fuse by reciprocal rank, rerank the top, and page
 * through the result by relevance (or by price or age). Without words (only
 * filters, or a query that was all constraints): browse what passes the
 * filters, by age or price. Constraints written in the query are read first
 * (interpret.ts); facets count the whole matched set.
 */
import { inArray } from "drizzle-orm";
import type { Explain, Facets, Interpretation, Message, Product, SearchParams, Sort } from "../../shared/schemas/index.js";
import { LruCache, refreshedEvery } from "../cache.js";
import { catalogSecret, findProductsByIds } from "../catalog/repository.js";
import type { Database } from "../db/client.js";
import { productFacets } from "../db/schema.js";
import { browseKeys, brandNames, comesAfter, fieldLexemes, type OrderSort, priceCurrencies, type SortKey, sortKeys, wordLexemes } from "./browse.js";
import { catalogSizeEvery } from "./catalog-size.js";
import { createCursorCodec, type CursorCodec, type CursorPosition, fingerprint, seenHash } from "./cursor.js";
import type { Embedder } from "./embedder.js";
import { type FacetScope, facetCounter } from "./facets.js";
import { describeFilters, type Filters, filterSql, filtersFrom, narrows, withoutOfferConstraints } from "./filters.js";
import { reciprocalRankFusion } from "./fuse.js";
import { brandIndex, interpret, loadPricePatterns, NEEDS_CURRENCY, type Reading, spelledOut } from "./interpret.js";
import { parseTsvector } from "./lexical.js";
import type { Reranker, RerankResult } from "./reranker.js";
import { isVague } from "./product-type.js";
import { clausesHeld, fullTextRanked, type Ranked, vectorRanked, withinExactScope } from "./retrieve.js";
import { convertedText, currencyOnlyText, type ExchangeRates } from "./exchange-rates.js";
import { NO_SYNONYMS, type SynonymSet } from "./synonyms.js";
import { loadWordLists, STOP_WORDS } from "./common-words.js";
import { type QueryPlan, understand, wordClauses } from "./understand.js";
import { vocabularyOf } from "./vocabulary.js";
import { catalogLanguage } from "./languages/catalog.js";
import { languageData } from "./languages/data.js";

export interface SearchHitResult {
  product: Product;
  explain?: Explain;
}

export interface SearchResult {
  hits: SearchHitResult[];
  nextCursor?: string;
  facets?: Facets;
  interpretation?: Interpretation;
  messages?: Message[];
  /** Which reranker ordered the answer and how it went (e.g. for an `X-Rerank` header); absent when browsing. */
  rerank: { name: string; outcome: RerankResult["outcome"]; reason?: string };
}

export interface SearchService {
  /** `rawDataMaxBytes`: with raw data, what the answer may still hold; raw data past it is refused before more is read. */
  search(params: SearchParams, options?: { rawDataMaxBytes?: number }): Promise<SearchResult>;
  /** The operator's exchange rates, which price filters convert with (FX_RATES_FILE); null: prices are never converted. */
  readonly exchangeRates: ExchangeRates | null;
  /** Reads what the first search would otherwise wait for (the catalog's vocabulary). */
  warm(): Promise<void>;
}

/** What one search reports to an observer (metrics): seconds per stage and how reranking went. */
export interface SearchReport {
  stages: Record<"embed" | "retrieve" | "rerank", number>;
  rerank: SearchResult["rerank"];
}

/** Which retrievals run; anything but `hybrid` exists for measuring each half (bench/relevance.ts). */
export type RetrievalMode = "hybrid" | "fulltext" | "vector";

export interface SearchDeps {
  db: Database;
  /** The database each search reads from (a read replica in turn, see DatabaseHandle); `db` when absent. */
  reader?: () => Database;
  embedder: Embedder;
  reranker: Reranker;
  retrieval?: RetrievalMode;
  /** False when each vector search must set pgvector's settings itself (see DatabaseHandle). */
  vectorSettingsInSession?: boolean;
  /** How many fused candidates the reranker sees (at least `limit`): RERANK_CANDIDATES. */
  rerankCandidates: number;
  /** The relevance floor: a product no query word matches is kept only at this cosine similarity or above (SEARCH_MIN_SIMILARITY). */
  minSimilarity: number;
  /** The most products a search matches, and so pages through (SEARCH_MAX_RESULTS). */
  maxResults: number;
  queryCacheSize?: number;
  /** Synonyms applied to every query (SYNONYMS_FILE and the built-in set); none when absent. */
  synonyms?: SynonymSet;
  /** The operator's exchange rates (FX_RATES_FILE): price filters apply to prices in the other currencies they know. */
  exchangeRates?: ExchangeRates | null;
  /** Milliseconds since the epoch, for cursor ages. */
  now?: () => number;
  /** The catalog's version as this process's caches know it (CatalogService.version): browse facets are kept per version. */
  catalogVersion?: () => string | null | undefined;
  /** Told about every search; the service stays free of any metrics library. */
  observe?: (report: SearchReport) => void;
}

/** The encoder's time grows with length; a shopper's intent is in the first words, and full text still sees all. */
const EMBEDDED_QUERY_CHARS = 200;
/** Each retrieval returns at least this many, so fusion has something to agree on even for small limits. */
const MIN_RETRIEVAL = 50;
/** From this many products, full text tries the products with every word first (see fullTextRanked). */
const EVERY_WORD_FIRST_FROM = 50_000;
/**
 * How many of the products full text finds without the search's price or stock constraint judge the floor beside its
 * candidates: the best few by the query's words are enough to show the catalog sells the kind asked.
 */
const BESIDE = 10;
/**
 * The most words an empty answer's query may have for each to be looked up in the catalog (`withoutUnheldWords`): a
 * longer one is a paste, not a shopper's words, and searching it again would double a costly search.
 */
const MAX_WORDS_LOOKED_UP = 12;
/** How long a count of the catalog, or its brand names, is trusted. */
const CATALOG_FACTS_TTL_MS = 60_000;
/** How often the vocabulary checks whether an import changed the catalog (it is read again only then). */
const VOCABULARY_CHECK_MS = 5_000;
const BROWSE = { name: "none", outcome: "none" } as const;

export function createSearchService(deps: SearchDeps): SearchService {
  const { db, embedder, reranker } = deps;
  const queryVectors = new LruCache<string, Promise<number[]>>(deps.queryCacheSize ?? 1000);
  const catalogSize = catalogSizeEvery(db, CATALOG_FACTS_TTL_MS);
  const brands = refreshedEvery(async () => brandIndex(await brandNames(db)), CATALOG_FACTS_TTL_MS);
  const currencies = refreshedEvery(() => priceCurrencies(db), CATALOG_FACTS_TTL_MS);
  const catalogLang = refreshedEvery(() => catalogLanguage(db), CATALOG_FACTS_TTL_MS);
  const vocabulary = vocabularyOf(db, VOCABULARY_CHECK_MS);
  const facetCounts = facetCounter(() => deps.reader?.() ?? db, deps.catalogVersion ?? (() => undefined));
  const synonyms = deps.synonyms ?? NO_SYNONYMS;
  let codec: Promise<CursorCodec> | undefined;
  const cursors = () => {
    codec ??= catalogSecret(db, "cursor_secret").then((secret) => createCursorCodec(secret, deps.now));
    codec.catch(() => {
      codec = undefined;
    });
    return codec;
  };

  function embedQuery(fullQuery: string): Promise<number[]> {
    const query = fullQuery.slice(0, EMBEDDED_QUERY_CHARS);
    const key = query.toLowerCase();
    let vector = queryVectors.get(key);
    if (!vector) {
      vector = embedder.embed([query]).then(([v]) => v ?? []);
      vector.catch(() => undefined);
      queryVectors.set(key, vector);
    }
    return vector;
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
    ]);
  }

  return {
    exchangeRates: deps.exchangeRates ?? null,
    async warm() {
      loadWordLists();
      loadPricePatterns();
      languageData();
      await vocabulary();
    },
    async search(params, options = {}) {
      // Postgres text cannot hold NUL; it carries no meaning in a query anyway.
      const q = (params.q && spelledOut(params.q.replaceAll("\u0000", " ")).trim()) || undefined;
      const reading: Reading | null = q && params.parse_query ? interpret({ ...params, q }, await brands(), await currencies()) : null;
      const query = reading ? reading.query || undefined : q;
      const avoid = reading?.avoid.map((avoided) => avoided.word);
      const planOf = async (words: string) =>
        understand(words, { vocabulary: params.typos ? await vocabulary() : null, synonyms, avoid, catalogLanguage: await catalogLang() });
      const plan = query ? await planOf(query) : null;
      const read: SearchParams = { ...params, ...reading?.adds };
      const effective: SearchParams = { ...read, ...(reading && query && plan ? await priceOrderOf(reading, query, plan, read) : {}) };
      const sort: Sort = effective.sort ?? (query ? "relevance" : "newest");
      const print = fingerprintOf(params, sort);
      const position = params.cursor === undefined ? undefined : (await cursors()).decode(params.cursor, print);
      const priced = sort === "price_asc" || sort === "price_desc";
      const filters = filtersFrom(effective, { priced, rates: deps.exchangeRates });
      const withRawData = params.include_raw_data || params.view === "full";

      const strict =
        query && plan
          ? await searchPage(query, plan, filters, effective, sort, position)
          : await browsePage(filters, sort as OrderSort, effective, position);
      // A price bound read from the query's words ("coffee under $20") that leaves nothing, where the words match no
      // product priced in that currency but some priced in currencies it cannot be compared with (no exchange rates
      // for them), shows those: a shopper who typed it would rather see the coffee in kronor than nothing. Where the
      // words match products in the currency, all dearer ("coffee under 100 kr" among coffees at 129 kr and up), the
      // answer stays empty. A bound given as a parameter stays a filter. It costs one more search, only then; each
      // later page finds the strict search empty again and continues here.
      const readBound = reading?.applied.filter((shown) => shown.filter === "price_min" || shown.filter === "price_max") ?? [];
      let page = strict;
      const currency = effective.currency;
      if (query && plan && currency && readBound.length > 0 && !priced && strict.ids.length === 0) {
        const looseFilters: Filters = { ...filters, priceMin: undefined, priceMax: undefined, priced: true, uncompared: true };
        const loose = await searchPage(query, plan, looseFilters, effective, sort, position);
        if (loose.ids.length > 0 && !(await matchedByCurrency(loose)).has(currency)) page = loose;
      }
      const uncompared = page !== strict;
      // The parameters the answer applied: a price bound its products were not compared with is left out.
      const answered: SearchParams = uncompared ? { ...effective, price_min: undefined, price_max: undefined } : effective;
      const hits = (await recordsOf(page, withRawData, options.rawDataMaxBytes)).map((product): SearchHitResult => ({ product }));
      if (uncompared && reading) {
        const shown = [...new Set(hits.map((hit) => hit.product.offers?.currency).filter((code) => code !== undefined))].sort();
        const reason = `nothing priced in ${currency} matched, so products priced in ${shown.join(", ")} are shown; their prices could not be compared with it${deps.exchangeRates ? " (no exchange rate for them)" : " (prices are never converted)"}`;
        reading.applied = reading.applied.filter((entry) => !readBound.includes(entry));
        reading.notApplied.push(...readBound.map((entry) => ({ ...entry, reason })));
      }

      const messages: Message[] = [];
      const { converted } = filters;
      const priceNote: Message | undefined =
        (answered.price_min !== undefined || answered.price_max !== undefined || priced) && answered.currency
          ? converted && deps.exchangeRates
            ? { code: "converted", text: convertedText(answered.currency, converted.length, deps.exchangeRates) }
            : { code: "currency_only", text: currencyOnlyText(answered.currency, deps.exchangeRates ?? null, { sort: priced, items: "products" }) }
          : undefined;
      if (priceNote) messages.push(priceNote);
      for (const skipped of reading?.notApplied ?? []) {
        messages.push({ code: "filter_not_applied", text: `"${skipped.text}" was not applied as ${skipped.filter}: ${skipped.reason}.` });
      }
      // An empty answer that only prices in one currency says where the search matches without its prices: outside
      // the bounds, or in other currencies, so that the caller (an agent, often) can widen the bounds or ask again in
      // that currency rather than conclude the catalog has nothing. It costs one more search, only then.
      if (priceNote && hits.length === 0 && position === undefined) {
        const considered = new Set([effective.currency, ...(converted ?? []).map((bounds) => bounds.currency)]);
        const unpriced = await matchedUnpriced(query, plan, effective);
        // A sort has no bounds to be outside of.
        const outside = priced ? [] : unpriced.filter(({ currency }) => considered.has(currency));
        const elsewhere = unpriced.filter(({ currency }) => !considered.has(currency));
        const counts = (list: typeof unpriced) =>
          list.map(({ currency, count }) => `${count} ${count === 1 ? "product" : "products"} priced in ${currency}`).join(", ");
        const step = priced ? "sort" : "filter";
        const parts = [
          ...(outside.length > 0 ? [`${counts(outside)}, none within the bounds`] : []),
          ...(elsewhere.length > 0 ? [counts(elsewhere)] : []),
        ];
        if (parts.length > 0) {
          const where = elsewhere.length === 1 ? "that currency" : "one of those currencies";
          const ask = elsewhere.length > 0 ? `; to ${step} by price, ask in ${where}.` : ".";
          priceNote.text += ` None matched. Without the price ${step} the search matches ${parts.join(", and ")}${ask}`;
        }
      }
      // So does an empty answer under an availability filter, by state: "none in stock" is not "none sold" (the one
      // sofa on back order). One more search, only then.
      if (answered.availability && hits.length === 0 && position === undefined) {
        const states = await matchedByAvailability(query, plan, answered);
        const total = states.reduce((sum, state) => sum + state.count, 0);
        if (total > 0) {
          const counts = states.map((state) => `${state.count} ${state.value}`).join(", ");
          messages.push({
            code: "none_available",
            text: `None matched. Without the availability filter the search matches ${total} ${total === 1 ? "product" : "products"}: ${counts}.`,
          });
        }
      }
      // So does an empty answer holding words that no product holds in any form (within the brand or category
      // searched) beside words that match: it names them and what the query without them matches. Typesense and
      // Meilisearch drop such words unasked; the answer stays what was asked, and says how to ask for what there is.
      // One lookup and one more search, only then; a query nothing matches at all still answers just `products: []`.
      if (query && plan && hits.length === 0 && position === undefined) {
        const without = await withoutUnheldWords(plan, planOf, filters, answered, sort);
        if (without) messages.push(without);
      }
      if (params.explain) await explainHits(hits, plan, answered, page.scores);
      if (page.endOfRelevance) {
        messages.push({
          code: "end_of_relevance",
          text: `Relevance results end at ${deps.maxResults} products; narrow the search with filters, or sort by price or newest to go further.`,
        });
      }

      let nextCursor: string | undefined;
      if (page.next) {
        const codecNow = await cursors();
        nextCursor = codecNow.encode(print, page.next);
      }
      const result: SearchResult = { hits, rerank: page.rerank };
      if (nextCursor) result.nextCursor = nextCursor;
      if (params.facets) result.facets = await facetCounts(page.facetScope(), params.facets);
      const otherLanguage = plan !== null && plan.language.query !== plan.language.catalog;
      if (reading || otherLanguage || (plan && (plan.corrections.length > 0 || plan.synonyms.length > 0 || plan.goesWith.length > 0 || plan.ages))) {
        result.interpretation = {
          query: reading ? reading.query : (query ?? ""),
          applied: reading?.applied ?? [],
          ...(reading && reading.notApplied.length > 0 ? { not_applied: reading.notApplied } : {}),
          ...(plan && plan.corrections.length > 0 ? { corrections: plan.corrections } : {}),
          ...(plan && plan.synonyms.length > 0 ? { synonyms: plan.synonyms } : {}),
          ...(plan && plan.goesWith.length > 0 ? { goes_with: plan.goesWith } : {}),
          ...(plan?.ages ? { ages: { text: plan.ages.text, from_months: plan.ages.from, to_months: plan.ages.to } } : {}),
          ...(reading && reading.avoid.length > 0 ? { avoided: reading.avoid } : {}),
          ...(otherLanguage ? { language: plan.language } : {}),
          ...(plan && plan.translations.length > 0 ? { translations: plan.translations } : {}),
          ...(plan && plan.unread.length > 0 ? { not_read: plan.unread } : {}),
        };
      }
      if (messages.length > 0) result.messages = messages;
      return result;
    },
  };

  interface Page {
    ids: string[];
    /** Records already read (the reranker's candidates, without raw data). */
    known?: ReadonlyMap<string, Product>;
    next?: CursorPosition;
    /** The products facets count: the filters' whole set when browsing, the matched set when searching. */
    facetScope: () => FacetScope;
    scores?: { lexical: Map<string, number>; semantic: Map<string, number>; rerank?: ReadonlyMap<string, number> };
    rerank: SearchResult["rerank"];
    endOfRelevance?: boolean;
  }

  /** The page's records in page order; those the reranker saw are not read again (unless raw data is asked for). */
  async function recordsOf(page: Page, withRawData: boolean, rawDataMaxBytes?: number): Promise<Product[]> {
    const known = withRawData ? new Map<string, Product>() : (page.known ?? new Map<string, Product>());
    const missing = page.ids.filter((id) => !known.has(id));
    const read = missing.length > 0 ? await findProductsByIds(deps.reader?.() ?? db, missing, withRawData, rawDataMaxBytes) : [];
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

  async function browsePage(filters: Filters, sort: OrderSort, params: SearchParams, position?: CursorPosition): Promise<Page> {
    const read = deps.reader?.() ?? db;
    const where = filterSql(filters, productFacets);
    const keys = await browseKeys(read, where, sort, params.limit + 1, keysetFrom(position));
    const shown = keys.slice(0, params.limit);
    const last = shown.at(-1);
    return {
      ids: shown.map((key) => key.id),
      ...(keys.length > params.limit && last ? { next: { kind: "keyset", value: last.value, id: last.id } } : {}),
      // The filters alone decide which products facets count: the key under which their counts are kept.
      facetScope: () => ({ where, key: JSON.stringify(filters) }),
      rerank: BROWSE,
    };
  }

  async function searchPage(
    query: string,
    plan: QueryPlan,
    filters: Filters,
    params: SearchParams,
    sort: Sort,
    position?: CursorPosition,
  ): Promise<Page> {
    const seen = position?.kind === "seen" ? position.seen : new Set<string>();
    const rerankCount = Math.max(params.limit, deps.rerankCandidates);
    const whole = sort !== "relevance" || params.facets !== undefined;
    const depth = Math.min(deps.maxResults, whole ? deps.maxResults : Math.max(MIN_RETRIEVAL, rerankCount, seen.size + params.limit));
    const mode = deps.retrieval ?? "hybrid";
    const read = deps.reader?.() ?? db;
    const started = performance.now();
    // The query's vector is computed (in the encoder's thread, or by an embeddings server) while the database
    // counts the scope and ranks full text: at 100,000 products that is ~9 ms of a single search's ~45 off its wait.
    const embedding = mode === "fulltext" ? undefined : embedQuery(plan.embedText);
    let embedded = started;
    // A narrow filter is ranked in full by both retrievals: exactly by vectors, by the plain OR in full text.
    const exact = await withinExactScope(read, filters);
    const everyWordFirst = mode !== "vector" && !exact && (await catalogSize()) >= EVERY_WORD_FIRST_FROM;
    // When full text has answered before the vector is ready (as it usually has), the vector query also scores its
    // candidates, so the reranker need not send the vector again for those vector retrieval did not rank.
    let lexicalFirst: Ranked[] = [];
    // Under a constraint on the offer (a price, stock), what full text finds without it judges the floor beside the
    // candidates (RerankContext.beside); never answered.
    const unconstrained = mode === "vector" ? undefined : withoutOfferConstraints(filters);
    const [lexical, [queryVector, semantic, similarities], outside] = await Promise.all([
      mode === "vector" ? [] : fullTextRanked(read, plan, filters, depth, { everyWordFirst }).then((ranked) => (lexicalFirst = ranked)),
      (async (): Promise<[number[] | undefined, Ranked[], Map<string, number>]> => {
        if (!embedding) return [undefined, [], new Map()];
        const vector = await embedding;
        embedded = performance.now();
        const alsoScore = lexicalFirst.slice(0, rerankCount).map((item) => item.id);
        const settingsInSession = deps.vectorSettingsInSession ?? false;
        const { ranked, similarities } = await vectorRanked(read, vector, filters, depth, { settingsInSession, exact, alsoScore });
        return [vector, ranked, similarities];
      })(),
      unconstrained ? fullTextRanked(read, plan, unconstrained, BESIDE) : [],
    ]);
    // The relevance floor: what no query word matches must be close in meaning to count as a match at all.
    const similar = semantic.filter((item) => item.score >= deps.minSimilarity);
    const fused = reciprocalRankFusion([lexical, similar]).slice(0, deps.maxResults);
    const retrievedIds = new Set(fused);
    const [candidates, beside] = await Promise.all([
      findProductsByIds(read, fused.slice(0, rerankCount), false),
      findProductsByIds(
        read,
        outside.map((item) => item.id).filter((id) => !retrievedIds.has(id)),
        false,
      ),
    ]);
    const retrieved = performance.now();
    const reranked = await reranker.rerank(query, candidates, queryVector ? { queryVector, similarities, plan, beside } : { plan, beside });
    // The reranker's floor: once it finds candidates unrelated, what retrieval ranked below them all is too.
    const unrelated = reranked.unrelated ?? new Set<string>();
    const rerankedIds = repairOrder(reranked.ids, candidates).filter((id) => !unrelated.has(id));
    const ranked = [...rerankedIds, ...(unrelated.size > 0 ? [] : fused.slice(candidates.length))];
    const matched = unrelated.size > 0 ? rerankedIds : fused;
    const rerank = { name: reranker.name, outcome: reranked.outcome, ...(reranked.reason ? { reason: reranked.reason } : {}) };
    const seconds = (from: number, to: number) => (to - from) / 1000;
    deps.observe?.({
      stages: { embed: seconds(started, embedded), retrieve: seconds(embedded, retrieved), rerank: seconds(retrieved, performance.now()) },
      rerank,
    });
    const scores = {
      lexical: new Map(lexical.map((item) => [item.id, item.score])),
      // Vector retrieval's own ranking only: what else it scored depends on which retrieval answered first.
      semantic: new Map(semantic.map((item) => [item.id, item.score])),
      ...(reranked.scores ? { rerank: reranked.scores } : {}),
    };
    const facetScope = () => ({ where: inArray(productFacets.id, matched.length > 0 ? matched : [""]) });
    const known = new Map(candidates.map((product) => [product.id, product]));

    if (sort === "relevance") {
      const rest = ranked.filter((id) => !seen.has(seenHash(id)));
      const ids = rest.slice(0, params.limit);
      const shown = seen.size + ids.length;
      const more = rest.length > ids.length;
      const next: CursorPosition | undefined =
        more && shown < deps.maxResults ? { kind: "seen", seen: new Set([...seen, ...ids.map(seenHash)]) } : undefined;
      return {
        ids,
        known,
        ...(next ? { next } : {}),
        facetScope,
        scores,
        rerank,
        endOfRelevance: more && shown >= deps.maxResults,
      };
    }
    const from = keysetFrom(position);
    const keys = (await sortKeys(read, ranked, sort)).filter((key) => !from || comesAfter(sort, key, from));
    const shown = keys.slice(0, params.limit);
    const last = shown.at(-1);
    return {
      ids: shown.map((key) => key.id),
      known,
      ...(keys.length > params.limit && last ? { next: { kind: "keyset", value: last.value, id: last.id } } : {}),
      facetScope,
      scores,
      rerank,
    };
  }

  /**
   * The same search with its price bounds and currency, or its availability filter, aside (for the message of an empty
   * answer): its page, to count by currency or by state.
   */
  async function searchedWithout(query: string | undefined, plan: QueryPlan | null, params: SearchParams, aside: "price" | "availability") {
    const loosened: SearchParams =
      aside === "price"
        ? { ...params, price_min: undefined, price_max: undefined, currency: undefined, sort: undefined, facets: ["price"] }
        : { ...params, availability: undefined, sort: undefined, facets: ["availability"] };
    const filters = filtersFrom(loosened, { rates: deps.exchangeRates });
    return query && plan ? searchPage(query, plan, filters, loosened, "relevance") : browsePage(filters, "newest", loosened);
  }

  /**
   * The `unmatched_words` message: the query's words no product within the search's scope (its filters but those on
   * the offer) holds in any form, and what the query without them matches. None when every word is held somewhere,
   * when no word is (nothing to suggest), or when the rest matches nothing either. Words naming no kind ("something",
   * "gear") are not looked up: a product seldom says them.
   */
  async function withoutUnheldWords(
    plan: QueryPlan,
    planOf: (words: string) => Promise<QueryPlan>,
    filters: Filters,
    params: SearchParams,
    sort: Sort,
  ): Promise<Message | undefined> {
    const clauses = wordClauses(plan).filter(({ index }) => !isVague(plan.words, index));
    if (clauses.length > MAX_WORDS_LOOKED_UP) return undefined;
    // Stop words match nothing, so no product holds them: they are not looked up, and only join the words kept.
    const content = clauses.filter(({ index }) => !STOP_WORDS.has(plan.words[index]!));
    const scope = withoutOfferConstraints(filters) ?? filters;
    const distinct = [...new Set(content.map(({ clause }) => clause))];
    const held = await clausesHeld(deps.reader?.() ?? db, distinct, scope, plan.languages);
    const heldClauses = new Set(distinct.filter((_, k) => held[k]));
    const unheld = new Set(content.filter(({ clause }) => !heldClauses.has(clause)).map(({ index }) => index));
    // The rest runs from the first word held to the last, the stop words between them kept ("case for iphone"): those
    // around it were what the words not held said ("i m a what moisturiser you" for "I'm a guy, what moisturiser …").
    const kept = content.filter(({ index }) => !unheld.has(index)).map(({ index }) => index);
    if (unheld.size === 0 || kept.length === 0) return undefined;
    const rest = plan.words.filter((_, index) => index >= kept[0]! && index <= kept.at(-1)! && !unheld.has(index)).join(" ");
    const page = await searchPage(rest, await planOf(rest), filters, params, sort);
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

  /** How many products the search matches, its prices and currency aside, per currency; most first. */
  async function matchedUnpriced(query: string | undefined, plan: QueryPlan | null, params: SearchParams) {
    const counts = await matchedByCurrency(await searchedWithout(query, plan, params, "price"));
    return [...counts].map(([currency, count]) => ({ currency, count })).sort((a, b) => b.count - a.count || (a.currency < b.currency ? -1 : 1));
  }

  /** How many products the search matches, its availability filter aside, per schema.org availability; most first. */
  async function matchedByAvailability(query: string | undefined, plan: QueryPlan | null, params: SearchParams) {
    const page = await searchedWithout(query, plan, params, "availability");
    return (await facetCounts(page.facetScope(), ["availability"])).availability ?? [];
  }

  /** How many of the products a page's search matched are priced in each currency. */
  async function matchedByCurrency(page: Page): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const bucket of (await facetCounts(page.facetScope(), ["price"])).price ?? []) {
      counts.set(bucket.currency, (counts.get(bucket.currency) ?? 0) + bucket.count);
    }
    return counts;
  }

  /**
   * A price order asked in words without a currency ("cheapest headphones", where the catalog prices in several) is in
   * the currency every product the words match is priced in, when there is one; else the reason names theirs, for the
   * caller to choose. One more search, only then.
   */
  async function priceOrderOf(
    reading: Reading,
    query: string,
    plan: QueryPlan,
    params: SearchParams,
  ): Promise<Pick<SearchParams, "sort" | "currency">> {
    const order = reading.notApplied.find((entry) => entry.reason === NEEDS_CURRENCY);
    if (!order) return {};
    const currencies = (await matchedUnpriced(query, plan, params)).map(({ currency }) => currency).sort();
    if (currencies.length !== 1) {
      if (currencies.length > 1) order.reason = `${NEEDS_CURRENCY}; the products matched are priced in ${currencies.join(", ")}`;
      return {};
    }
    reading.notApplied = reading.notApplied.filter((entry) => entry !== order);
    reading.applied.push({ filter: order.filter, value: order.value, text: order.text });
    return { sort: order.value === "price_asc" ? "price_asc" : "price_desc", currency: currencies[0] };
  }

  /** Fills in why each hit matched (`explain=true`). */
  async function explainHits(hits: SearchHitResult[], plan: QueryPlan | null, params: SearchParams, scores: Page["scores"]): Promise<void> {
    const read = deps.reader?.() ?? db;
    const words = plan ? [...new Set(plan.words)] : [];
    // Each word of every form, and the query words (as typed) it stands for.
    const standsFor = new Map<string, Set<string>>();
    for (const form of plan?.forms ?? []) {
      for (const word of form.words) {
        const typed = standsFor.get(word) ?? new Set<string>();
        for (const original of plan!.words.slice(form.start, form.end)) typed.add(original);
        standsFor.set(word, typed);
      }
    }
    const [byWord, fields] = await Promise.all([
      wordLexemes(read, [...standsFor.keys()], plan?.languages ?? []),
      fieldLexemes(
        read,
        hits.map((hit) => hit.product.id),
      ),
    ]);
    const fieldsById = new Map(fields.map((row) => [row.id, row]));
    const filters = describeFilters(params);
    for (const hit of hits) {
      const row = fieldsById.get(hit.product.id);
      const matchedFields: Explain["matched"]["fields"] = [];
      const matchedWords = new Set<string>();
      for (const field of ["name", "brands", "desc", "category"] as const) {
        const lexemes = new Set(parseTsvector(row?.[field] ?? "").map((term) => term.lexeme));
        let any = false;
        // A word with several stems matches where all are: "over-ear" in "Over-Ear", not in the "ear" of "On-Ear".
        for (const [word, readings] of byWord) {
          if (readings.some((stems) => stems.length > 0 && stems.every((lexeme) => lexemes.has(lexeme)))) {
            any = true;
            for (const typed of standsFor.get(word) ?? []) matchedWords.add(typed);
          }
        }
        if (any) matchedFields.push(field);
      }
      const id = hit.product.id;
      hit.explain = {
        matched: { fields: matchedFields, words: words.filter((word) => matchedWords.has(word)) },
        scores: {
          lexical: scores?.lexical.get(id) ?? null,
          semantic: scores?.semantic.get(id) ?? null,
          rerank: scores?.rerank?.get(id) ?? null,
        },
        filters,
      };
    }
  }
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
