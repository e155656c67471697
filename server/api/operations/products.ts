/** The product operations: search (and browse), a product by id, by page URL or GTIN, many lookups at once, the change feed. */
import {
  BatchLookupParamsSchema,
  BatchLookupResponseSchema,
  ChangesParamsSchema,
  ChangesResponseSchema,
  GetProductParamsSchema,
  LookupByUrlParamsSchema,
  OffersParamsSchema,
  OffersResponseSchema,
  SimilarParamsSchema,
  PricesParamsSchema,
  PricesResponseSchema,
  SimilarResponseSchema,
  GTIN_OFFERS_MAX,
  ProductEnvelopeSchema,
  ProductLookupEnvelopeSchema,
  SearchParamsSchema,
  SearchResponseSchema,
} from "../../../shared/schemas/index.js";
import { parseGtin } from "../../../shared/gtin.js";
import { RequestError } from "../../errors.js";
import { needsRawData, present, viewOf } from "../views.js";
import { answerRoom } from "../answer-cap.js";
import { mutation, query } from "./operation.js";

function found<T>(value: T | null, what: string): T {
  if (value === null) throw new RequestError("not_found", `No product ${what}.`);
  return value;
}

/**
 * What a lookup that fetches the merchant's page costs beyond the lookup's 1 unit (10 in all): a round trip to the
 * merchant, extraction, an embedding and a write, where a lookup is a read; and a search, seconds of database time, is 5.
 */
const LIVE_FETCH_SURCHARGE = 9;

/** MCP answers compact records unless asked otherwise: agents pay per token. */
const COMPACT_FOR_AGENTS = { view: "compact" } as const;
const VIEW_NOTE =
  "Records are compact (id, name, brand, price, availability, url, one image) unless you pass view=standard (the whole record) or view=full (with the page's raw data).";

export const search = query({
  title: "Search products",
  description:
    'Searches the catalog (hybrid full text and vector retrieval, fused by reciprocal rank, reranked) or, without `q`, browses the products that pass the filters. Only products that match are answered, so a page may hold fewer than `limit`, or none. Filters (price in a currency, availability, category, brand, brand site) apply inside retrieval; constraints written in `q` ("under $200", "in stock", a brand) are applied as filters and echoed in `interpretation`. Pages continue with `cursor`; `facets` count the whole matched set.',
  tag: "products",
  input: SearchParamsSchema,
  output: SearchResponseSchema,
  rest: {
    method: "GET",
    path: "/products/search",
    errors: {
      400: "Invalid parameter, or `invalid_cursor`",
      503: "Database unavailable, or too busy with other searches (`overloaded`, with `Retry-After`)",
    },
    headers: {
      "X-Rerank": "How the answer was ordered: the reranker's name (`local`, `llm`, `none`), or `fallback` when it did not answer in time.",
    },
  },
  mcp: {
    tool: "search_products",
    description:
      "Search the product catalog for what a shopper wants, in plain words (kind of product, features, use, brand), or browse with filters alone. " +
      'Constraints in the words ("under $200", "in stock", a brand name) are applied as filters and echoed back in `interpretation`; filters can also be given: ' +
      '`price_min`/`price_max` with `currency` (ISO 4217; prices in other currencies are compared only with exchange rates the operator set), `availability` (in_stock, out_of_stock, preorder, backorder), `category` (a path prefix such as "Outdoor > Tents"), `brand` (names), `brand_url` (one merchant\'s site). ' +
      "`sort`: relevance, price_asc, price_desc (with currency), newest. Only matching products are returned ({products: [{pdp}]}, possibly none); pass `next_cursor` as `cursor` for more. " +
      `${VIEW_NOTE} Use get_product_by_id for one product by id, get_product_by_url for a page URL or GTIN, lookup_products for many at once.`,
    defaults: COMPACT_FOR_AGENTS,
  },
  cost: 5,
  admission: "search",
  auth: "key",
  async call(ctx, input) {
    const view = viewOf(input);
    // Raw data past what the answer may hold is refused as it is read, before the rest is read or anything built.
    const result = await ctx.services.search.search({ ...input, include_raw_data: needsRawData(view) }, { rawDataMaxBytes: answerRoom(ctx.answer) });
    const { rerank } = result;
    ctx.responseHeaders.set("x-rerank", rerank.outcome === "fallback" ? "fallback" : rerank.name);
    if (rerank.outcome === "fallback") ctx.log.warn({ reranker: rerank.name, reason: rerank.reason }, "rerank fell back to retrieval order");
    return {
      products: result.hits.map((hit) => ({ pdp: present(hit.product, view), ...(hit.explain ? { explain: hit.explain } : {}) })),
      ...(result.nextCursor ? { next_cursor: result.nextCursor } : {}),
      ...(result.facets ? { facets: result.facets } : {}),
      ...(result.interpretation ? { interpretation: result.interpretation } : {}),
      ...(result.messages ? { messages: result.messages } : {}),
    };
  },
});

export const byId = query({
  title: "Get a product by id",
  tag: "products",
  input: GetProductParamsSchema,
  output: ProductEnvelopeSchema,
  rest: {
    method: "GET",
    path: "/products/{id}",
    errors: { 404: "No product with that id", 410: "`gone`: the product's page was withdrawn (`gone_at` says when)" },
  },
  mcp: {
    // The name get_product is UCP's tool (operations/ucp.ts); this one kept its behaviour under a new name.
    tool: "get_product_by_id",
    description:
      "Get one product's record by its catalog id (the `pdp.id` of a search result), as {pdp: {…}}. " +
      `${VIEW_NOTE} An id the catalog does not have is a \`not_found\` error; a product whose page was withdrawn is a \`gone\` error saying when.`,
    defaults: COMPACT_FOR_AGENTS,
  },
  cost: 1,
  auth: "key",
  async call(ctx, input) {
    const view = viewOf(input);
    const product = found(await ctx.services.catalog.byId(input.id, needsRawData(view)), `with id ${input.id}`);
    return { pdp: present(product, view) };
  },
});

export const byUrl = query({
  title: "Find a product by its PDP URL or GTIN",
  description:
    "By `url`, normalised before lookup: scheme, `www.`, host case, default port, trailing slash, `#fragment` and tracking parameters do not matter; other query parameters do. Or by `gtin`, in any of its forms; a GTIN whose check digit is wrong is a 400. " +
    "By `gtin` the answer also holds `offers`: every merchant's offer of the product the GTIN names (its product group), in stock first, then cheapest. " +
    "With `fetch=true` (live lookup, where the operator allows the page's host), a page the catalog does not hold is fetched from the merchant, stored and answered.",
  tag: "products",
  input: LookupByUrlParamsSchema,
  output: ProductLookupEnvelopeSchema,
  rest: {
    method: "GET",
    path: "/products",
    errors: {
      400: "Invalid parameter (`invalid_parameter`: with `fetch=true`, also when live lookup is off or the page's host is not one this server fetches from), or an answer larger than one may be (`answer_too_large`)",
      404: "No product at that URL or with that GTIN; with `fetch=true`, why the page gave none (it answered 404, is not HTML, robots.txt disallows it…)",
      410: "`gone`: the product's page was withdrawn (`gone_at` says when)",
      502: "`upstream_error`, with `fetch=true`: the merchant's site failed (5xx after retries, a reset, a redirect loop)",
      504: "`upstream_timeout`, with `fetch=true`: the page was not fetched and stored within the server's deadline",
    },
  },
  mcp: {
    tool: "get_product_by_url",
    description:
      "Find the catalog's product for a product detail page URL (for example a link the user pasted), or for a barcode (`gtin`: UPC, EAN, ISBN), as {pdp: {…}}; " +
      "by `gtin` also {offers: [{id, merchant, url, price, currency, availability, checked_at}]}, every merchant's offer of that product, in stock first, then cheapest. " +
      "Scheme, `www.`, trailing slash, `#fragment` and tracking parameters such as utm_* do not matter; other query parameters (variants) do. " +
      `${VIEW_NOTE} A page or GTIN the catalog does not have is a \`not_found\` error; a product whose page was withdrawn is a \`gone\` error saying when. ` +
      "If the server allows live lookup for the page's site, `fetch: true` fetches a page the catalog does not have from the merchant and answers it (slower, and it costs more).",
    defaults: COMPACT_FOR_AGENTS,
    openWorld: true,
  },
  cost: 1,
  surcharge: { units: LIVE_FETCH_SURCHARGE, when: "when `fetch=true` fetches the page (the catalog did not hold it)" },
  auth: "key",
  async call(ctx, input) {
    const view = viewOf(input);
    const withRawData = needsRawData(view);
    if (input.gtin !== undefined) {
      const gtin14 = parseGtin(input.gtin);
      const [product, offers] = await Promise.all([
        ctx.services.catalog.byGtin(input.gtin, withRawData),
        gtin14.ok ? ctx.services.groups.offersByGtin([gtin14.gtin14], GTIN_OFFERS_MAX) : new Map(),
      ]);
      return { pdp: present(found(product, "with that GTIN"), view), offers: (gtin14.ok && offers.get(gtin14.gtin14)) || [] };
    }
    const url = input.url ?? "";
    const product = input.fetch
      ? await ctx.services.live.lookup(url, { withRawData, beforeFetch: () => ctx.charge(LIVE_FETCH_SURCHARGE) })
      : found(await ctx.services.catalog.byUrl(url, withRawData), "at that URL");
    return { pdp: present(product, view) };
  },
});

export const lookup = mutation({
  title: "Look up many products at once",
  description:
    "Up to 50 lookups in one call, each by id, page URL, GTIN or SKU (with `brand_url` when SKUs of several merchants may collide), answered one each, in order: the product or null with a reason, and how it matched. A POST with a JSON body: 50 URLs do not fit a query string.",
  tag: "products",
  input: BatchLookupParamsSchema,
  output: BatchLookupResponseSchema,
  rest: { method: "POST", path: "/products/lookup" },
  mcp: {
    tool: "lookup_products",
    description:
      "Look up to 50 products at once, each by {id}, {url} (a product page), {gtin} (a barcode: UPC, EAN, ISBN) or {sku, brand_url?}. " +
      "Answers {results: [{input, pdp, match, reason}]}, one per input in order: `pdp` null with `reason` not_found or ambiguous when nothing or several matched; " +
      "a {gtin} input's result also has `offers`, every merchant's offer of that product, in stock first, then cheapest. " +
      VIEW_NOTE,
    defaults: COMPACT_FOR_AGENTS,
  },
  cost: 5,
  auth: "key",
  async call(ctx, input) {
    const view = viewOf(input);
    // A GTIN's offers for every GTIN input, in one query beside the lookups.
    const gtin14s = input.inputs
      .map((entry) => ("gtin" in entry ? parseGtin(entry.gtin) : undefined))
      .map((parsed) => (parsed?.ok ? parsed.gtin14 : undefined));
    const [outcomes, offers] = await Promise.all([
      ctx.services.catalog.lookup(input.inputs, needsRawData(view), answerRoom(ctx.answer)),
      ctx.services.groups.offersByGtin(
        gtin14s.filter((gtin14) => gtin14 !== undefined),
        GTIN_OFFERS_MAX,
      ),
    ]);
    return {
      results: outcomes.map((outcome, index) => {
        const entry = input.inputs[index] ?? {};
        const gtin14 = gtin14s[index];
        return {
          input: Object.fromEntries(Object.entries(entry).map(([name, value]) => [name, String(value)])),
          pdp: outcome.product ? present(outcome.product, view) : null,
          ...(outcome.match ? { match: outcome.match } : {}),
          ...(outcome.reason ? { reason: outcome.reason } : {}),
          ...(outcome.goneAt ? { gone_at: outcome.goneAt.toISOString() } : {}),
          ...("gtin" in entry ? { offers: (gtin14 && offers.get(gtin14)) || [] } : {}),
        };
      }),
    };
  },
});

export const changes = query({
  title: "Follow the catalog's changes",
  description:
    "The products upserted (new, changed, or back) and those gone (their page answered 404 or 410), in commit order, after the position `since`. Each product appears once, at its latest change, so a client that starts without `since` and follows `next_cursor` holds exactly the catalog's current set of products; then it polls with its last `next_cursor`. Read the records themselves with the lookups.",
  tag: "products",
  input: ChangesParamsSchema,
  output: ChangesResponseSchema,
  rest: { method: "GET", path: "/products/changes" },
  mcp: {
    tool: "list_product_changes",
    description:
      "List what changed in the catalog since a position: {changes: [{id, change: 'upserted', updated_at} | {id, change: 'gone', gone_at}], next_cursor}, in commit order. " +
      "Without `since` it starts from the beginning (every product); pass `next_cursor` as `since` to continue or to poll later. Use get_product_by_id to read a changed product.",
  },
  cost: 1,
  auth: "key",
  call: (ctx, input) => ctx.services.catalog.changes(input.since === undefined ? 0 : Number(input.since), input.limit),
});

export const offers = query({
  title: "A product's offers at every merchant",
  description:
    "Every merchant's record of the product the id is one record of (its product group), as offers: merchant, page URL, price, currency, availability and when they were last checked. In stock first, then the cheapest (within a currency), then by merchant. `currency` and `availability` filter as in search.",
  tag: "products",
  input: OffersParamsSchema,
  output: OffersResponseSchema,
  rest: {
    method: "GET",
    path: "/products/{id}/offers",
    errors: { 404: "No product with that id", 410: "`gone`: the product's page was withdrawn (`gone_at` says when)" },
  },
  mcp: {
    tool: "get_product_offers",
    description:
      "Who sells this product, and where it is cheapest in stock: every merchant's offer of the product whose catalog id you give (any of its records), as {product_group: {id, offers}, offers: [{id, merchant, url, price, currency, availability, checked_at}]}, in stock first, then cheapest. " +
      "Filter with `currency` (ISO 4217) and `availability` (in_stock, out_of_stock, preorder, backorder). An id the catalog does not have is a `not_found` error.",
  },
  cost: 1,
  auth: "key",
  async call(ctx, input) {
    return found(await ctx.services.groups.offers(input), `with id ${input.id}`);
  },
});

export const similar = query({
  title: "Products like this one",
  description:
    "Other products like the one given (nearest by the sentence encoder's vectors), none of them an offer of the same product (its product group): what to suggest when it is sold out. `brand_url` scopes to one brand's site; `currency` and `availability` filter as in search.",
  tag: "products",
  input: SimilarParamsSchema,
  output: SimilarResponseSchema,
  rest: {
    method: "GET",
    path: "/products/{id}/similar",
    errors: { 404: "No product with that id", 410: "`gone`: the product's page was withdrawn (`gone_at` says when)" },
  },
  mcp: {
    tool: "find_similar_products",
    description:
      "Products like the one whose catalog id you give, other than the same product at other merchants: alternatives for one that is sold out or too dear. Answers {products: [{pdp}]}, nearest first. " +
      `Filter with \`brand_url\` (one merchant's site), \`currency\` and \`availability\` (in_stock, …). ${VIEW_NOTE}`,
    defaults: COMPACT_FOR_AGENTS,
  },
  cost: 2,
  auth: "key",
  async call(ctx, input) {
    const view = viewOf(input);
    const neighbours = found(await ctx.services.groups.similar({ ...input, withRawData: needsRawData(view) }), `with id ${input.id}`);
    return { products: neighbours.map((product) => ({ pdp: present(product, view) })) };
  },
});

/** What `/prices` answers without `since`. */
const PRICE_HISTORY_DEFAULT_DAYS = 90;

export const prices = query({
  title: "A product's price history",
  description:
    "The record's price and availability over time, as runs of one state (from `since`, by default the last 90 days), with the lowest price of the last 30 and 90 days: to tell a deal from a list price. Kept from every import and refresh that changed them.",
  tag: "products",
  input: PricesParamsSchema,
  output: PricesResponseSchema,
  rest: {
    method: "GET",
    path: "/products/{id}/prices",
    errors: { 404: "No product with that id", 410: "`gone`: the product's page was withdrawn (`gone_at` says when)" },
  },
  mcp: {
    tool: "get_price_history",
    description:
      "A product's price history, to judge whether its price now is a deal: {price_low_30d, price_low_90d, series: [{since, until, price, currency, availability}]}, oldest first, for the catalog id you give. " +
      "`since` (an ISO 8601 date) sets how far back; the default is 90 days.",
  },
  cost: 1,
  auth: "key",
  async call(ctx, input) {
    const since = input.since ?? new Date(Date.now() - PRICE_HISTORY_DEFAULT_DAYS * 86_400_000);
    return found(await ctx.services.groups.prices(input.id, since), `with id ${input.id}`);
  },
});
