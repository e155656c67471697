/** The seed's three operations: search, a product by id, a product by its page URL. */
import { TRPCError } from "@trpc/server";
import {
  GetProductParamsSchema,
  LookupByUrlParamsSchema,
  ProductEnvelopeSchema,
  SearchParamsSchema,
  SearchResponseSchema,
} from "../../../shared/schemas/index.js";
import { query } from "./operation.js";

function found<T>(value: T | null, what: string): T {
  if (value === null) throw new TRPCError({ code: "NOT_FOUND", message: `No product ${what}.` });
  return value;
}

export const search = query({
  title: "Search products",
  description:
    "Ranks every product in scope by hybrid retrieval (full text and vector similarity, fused by reciprocal rank) and returns the best `limit`. With `brand_url`, only that brand's site is searched; an unknown brand gives an empty list.",
  tag: "products",
  input: SearchParamsSchema,
  output: SearchResponseSchema,
  rest: {
    method: "GET",
    path: "/products/search",
    headers: {
      "X-Rerank": "How the answer was ordered: the reranker's name (`local`, `llm`, `none`), or `fallback` when it did not answer in time.",
    },
  },
  mcp: {
    tool: "search_products",
    description:
      "Search the product catalog for what a shopper wants, in plain words (kind of product, features, use, brand). " +
      "Returns up to `limit` products, best match first, as {products: [{pdp: {id, url, name, desc, media, brands, price_label}}]}. " +
      "Give `brand_url` (a domain such as brand.com) to search one brand's site only; a brand the catalog does not have gives an empty list. " +
      "Use get_product for one product by the id a search returned, get_product_by_url for a product page URL you already have.",
  },
  cost: 5,
  auth: "key",
  async call(ctx, input) {
    const { products, rerank } = await ctx.services.search.search(input);
    ctx.responseHeaders.set("x-rerank", rerank.outcome === "fallback" ? "fallback" : rerank.name);
    if (rerank.outcome === "fallback") ctx.log.warn({ reranker: rerank.name, reason: rerank.reason }, "rerank fell back to retrieval order");
    return { products: products.map((pdp) => ({ pdp })) };
  },
});

export const byId = query({
  title: "Get a product by id",
  tag: "products",
  input: GetProductParamsSchema,
  output: ProductEnvelopeSchema,
  rest: { method: "GET", path: "/products/{id}", errors: { 404: "No product with that id" } },
  mcp: {
    tool: "get_product",
    description:
      "Get one product's record by its catalog id (the `pdp.id` of a search result), as {pdp: {…}}. " +
      "Set `include_raw_data` for the page's stripped HTML and structured data (large; only when the record's fields are not enough). " +
      "An id the catalog does not have is a `not_found` error.",
  },
  cost: 1,
  auth: "key",
  call: async (ctx, input) => ({ pdp: found(await ctx.services.catalog.byId(input.id, input.include_raw_data), `with id ${input.id}`) }),
});

export const byUrl = query({
  title: "Find a product by its PDP URL",
  description:
    "The URL is normalised before lookup: scheme, `www.`, host case, default port, trailing slash, `#fragment` and tracking parameters do not matter; other query parameters do.",
  tag: "products",
  input: LookupByUrlParamsSchema,
  output: ProductEnvelopeSchema,
  rest: { method: "GET", path: "/products", errors: { 404: "No product at that URL" } },
  mcp: {
    tool: "get_product_by_url",
    description:
      "Find the catalog's product for a product detail page URL (for example a link the user pasted), as {pdp: {…}}. " +
      "Scheme, `www.`, trailing slash, `#fragment` and tracking parameters such as utm_* do not matter; other query parameters (variants) do. " +
      "A page the catalog does not have is a `not_found` error.",
  },
  cost: 1,
  auth: "key",
  call: async (ctx, input) => ({ pdp: found(await ctx.services.catalog.byUrl(input.url, input.include_raw_data), "at that URL") }),
});
