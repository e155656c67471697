/**
 * Product procedures: meta, schemas and one service call each. The calls
 * themselves are `productCalls`, which the REST routes (api/http/rest.ts) run
 * directly, without tRPC's middleware chain: the same code, cheaper per call.
 */
import { TRPCError } from "@trpc/server";
import {
  GetProductParamsSchema,
  LookupByUrlParamsSchema,
  ProductEnvelopeSchema,
  SearchParamsSchema,
  SearchResponseSchema,
  type GetProductParams,
  type LookupByUrlParams,
  type ProductEnvelope,
  type SearchParams,
  type SearchResponse,
} from "../../../shared/schemas/index.js";
import { keyProcedure, restCall, type CallContext, router, type RestCall } from "../trpc.js";

const tags = ["products"];
const errorResponses = {
  400: "Invalid parameter",
  401: "Missing or invalid API key",
  429: "The key's rate limit is used up; `Retry-After` says when to try again",
  503: "Database unavailable",
};

function found<T>(value: T | null, what: string): T {
  if (value === null) throw new TRPCError({ code: "NOT_FOUND", message: `No product ${what}.` });
  return value;
}

export const productCalls = {
  search: async (ctx: CallContext, input: SearchParams): Promise<SearchResponse> => {
    const { products, rerank } = await ctx.services.search.search(input);
    ctx.responseHeaders.set("x-rerank", rerank.outcome === "fallback" ? "fallback" : rerank.name);
    if (rerank.outcome === "fallback") ctx.log.warn({ reranker: rerank.name, reason: rerank.reason }, "rerank fell back to retrieval order");
    return { products: products.map((pdp) => ({ pdp })) };
  },
  byId: async (ctx: CallContext, input: GetProductParams): Promise<ProductEnvelope> => ({
    pdp: found(await ctx.services.catalog.byId(input.id, input.include_raw_data), `with id ${input.id}`),
  }),
  byUrl: async (ctx: CallContext, input: LookupByUrlParams): Promise<ProductEnvelope> => ({
    pdp: found(await ctx.services.catalog.byUrl(input.url, input.include_raw_data), "at that URL"),
  }),
};

export const productsRouter = router({
  search: keyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/products/search",
        tags,
        summary: "Search products",
        description:
          "Ranks every product in scope by hybrid retrieval (full text and vector similarity, fused by reciprocal rank) and returns the best `limit`. With `brand_url`, only that brand's site is searched; an unknown brand gives an empty list.",
        protect: true,
        errorResponses,
      },
    })
    .input(SearchParamsSchema)
    .output(SearchResponseSchema)
    .query(({ ctx, input }) => productCalls.search(ctx, input)),

  byId: keyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/products/{id}",
        tags,
        summary: "Get a product by id",
        protect: true,
        errorResponses: { ...errorResponses, 404: "No product with that id" },
      },
    })
    .input(GetProductParamsSchema)
    .output(ProductEnvelopeSchema)
    .query(({ ctx, input }) => productCalls.byId(ctx, input)),

  byUrl: keyProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/products",
        tags,
        summary: "Find a product by its PDP URL",
        description:
          "The URL is normalised before lookup: scheme, `www.`, host case, default port, trailing slash, `#fragment` and tracking parameters do not matter; other query parameters do.",
        protect: true,
        errorResponses: { ...errorResponses, 404: "No product at that URL" },
      },
    })
    .input(LookupByUrlParamsSchema)
    .output(ProductEnvelopeSchema)
    .query(({ ctx, input }) => productCalls.byUrl(ctx, input)),
});

/**
 * The REST routes' view of the procedures that have OpenAPI meta: their input
 * schema and call, keyed by procedure path. The REST plugin refuses to start
 * if a documented procedure has no entry here.
 */
export const productRestCalls: Record<string, RestCall> = {
  "products.search": restCall(SearchParamsSchema, productCalls.search),
  "products.byId": restCall(GetProductParamsSchema, productCalls.byId),
  "products.byUrl": restCall(LookupByUrlParamsSchema, productCalls.byUrl),
};
