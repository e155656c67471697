/**
 * The MCP tools: the product procedures called in-process through a tRPC
 * caller, so arguments, answers and errors are the REST and /trpc ones.
 *
 * Built on the SDK's low-level `Server` rather than `McpServer`: McpServer
 * validates arguments itself and answers its own message, while a bad
 * argument here must give the REST problem (code, detail, errors).
 */
import { z } from "zod";
import { TRPCError } from "@trpc/server";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ToolSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import {
  GetProductParamsSchema,
  LookupByUrlParamsSchema,
  ProductEnvelopeSchema,
  SearchParamsSchema,
  SearchResponseSchema,
  type Problem,
} from "../../shared/schemas/index.js";
import { RATE_LIMIT_COSTS } from "../auth/ratelimit.js";
import { createCaller } from "../api/router.js";
import type { Context } from "../api/trpc.js";
import { problemFromThrown, problemFromTrpcError } from "../api/problems.js";

type Caller = ReturnType<typeof createCaller>;

// shared/schemas are classic Zod; unwrap() and `out` are typed as the core schemas they extend.
const classic = (schema: z.core.$ZodType) => schema as z.ZodType;

/**
 * The typed view of a REST parameter: query-string preprocessing (`"20"` → 20, `"false"` → false)
 * stripped, so the JSON Schema says integer and boolean. Optional, default and description are kept.
 */
function withoutPreprocess(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault) return withoutPreprocess(classic(schema.unwrap())).default(schema.def.defaultValue);
  if (schema instanceof z.ZodOptional) return withoutPreprocess(classic(schema.unwrap())).optional();
  if (schema instanceof z.ZodPipe && schema.in instanceof z.ZodTransform) return classic(schema.out);
  return schema;
}

/** The arguments a tool advertises, from the REST parameters' schema. */
function typedArguments(params: z.ZodObject): z.ZodObject {
  const shape = Object.entries(params.shape).map(([name, field]) => {
    const typed = withoutPreprocess(field);
    return [name, field.description ? typed.describe(field.description) : typed];
  });
  return z.object(Object.fromEntries(shape));
}

/**
 * A tool's JSON Schema, checked against what MCP requires of one: an object schema at the root
 * (a copy of the shape, as a schema with an `id` would become a `$ref`). Draft-07, the dialect
 * the SDK's clients validate `structuredContent` with.
 */
function jsonSchema(schema: z.ZodObject, io: "input" | "output"): Tool["inputSchema"] {
  return ToolSchema.shape.inputSchema.parse(z.toJSONSchema(z.object(schema.shape), { io, target: "draft-7" }));
}

function success(answer: Record<string, unknown>): CallToolResult {
  // Structured for clients that read outputSchema, the same JSON as text for those that do not.
  return { structuredContent: answer, content: [{ type: "text", text: JSON.stringify(answer) }] };
}

function failure(problem: Problem): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(problem) }] };
}

interface CatalogTool {
  listing: Tool;
  cost: number;
  run(context: Context, args: Record<string, unknown>): Promise<CallToolResult>;
}

function defineTool<P extends z.ZodObject, R extends Record<string, unknown>>(tool: {
  name: string;
  title: string;
  description: string;
  params: P;
  output: z.ZodObject & z.ZodType<R>;
  cost: keyof typeof RATE_LIMIT_COSTS;
  call(caller: Caller, input: z.output<P>): Promise<R>;
}): CatalogTool {
  return {
    listing: {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(typedArguments(tool.params), "input"),
      outputSchema: jsonSchema(tool.output, "output"),
      // A closed catalog, read only: calling twice changes nothing and reaches nothing outside it.
      annotations: { title: tool.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    cost: RATE_LIMIT_COSTS[tool.cost],
    async run(context, args) {
      // Parsed here only to type the call; the procedure parses again with the same schema.
      const input = tool.params.safeParse(args);
      if (!input.success) return failure(problemFromTrpcError(new TRPCError({ code: "BAD_REQUEST", cause: input.error }), context.requestId));
      try {
        return success(await tool.call(createCaller(context), input.data));
      } catch (thrown) {
        return failure(problemFromThrown(thrown, context.requestId, context.log));
      }
    },
  };
}

const TOOLS: readonly CatalogTool[] = [
  defineTool({
    name: "search_products",
    title: "Search products",
    description:
      "Search the product catalog for what a shopper wants, in plain words (kind of product, features, use, brand). " +
      "Returns up to `limit` products, best match first, as {products: [{pdp: {id, url, name, desc, media, brands, price_label}}]}. " +
      "Give `brand_url` (a domain such as brand.com) to search one brand's site only; a brand the catalog does not have gives an empty list. " +
      "Use get_product for one product by the id a search returned, get_product_by_url for a product page URL you already have.",
    params: SearchParamsSchema,
    output: SearchResponseSchema,
    cost: "search",
    call: (caller, input) => caller.products.search(input),
  }),
  defineTool({
    name: "get_product",
    title: "Get a product by id",
    description:
      "Get one product's record by its catalog id (the `pdp.id` of a search result), as {pdp: {…}}. " +
      "Set `include_raw_data` for the page's stripped HTML and structured data (large; only when the record's fields are not enough). " +
      "An id the catalog does not have is a `not_found` error.",
    params: GetProductParamsSchema,
    output: ProductEnvelopeSchema,
    cost: "lookup",
    call: (caller, input) => caller.products.byId(input),
  }),
  defineTool({
    name: "get_product_by_url",
    title: "Find a product by its page URL",
    description:
      "Find the catalog's product for a product detail page URL (for example a link the user pasted), as {pdp: {…}}. " +
      "Scheme, `www.`, trailing slash, `#fragment` and tracking parameters such as utm_* do not matter; other query parameters (variants) do. " +
      "A page the catalog does not have is a `not_found` error.",
    params: LookupByUrlParamsSchema,
    output: ProductEnvelopeSchema,
    cost: "lookup",
    call: (caller, input) => caller.products.byUrl(input),
  }),
];

const BY_NAME = new Map(TOOLS.map((tool) => [tool.listing.name, tool]));

/** Rate-limit units a call of the named tool costs, as the REST call it makes; an unknown tool a lookup. */
export function toolCost(name: string): number {
  return BY_NAME.get(name)?.cost ?? RATE_LIMIT_COSTS.lookup;
}

/**
 * An MCP server over the catalog's tools. `context` gives the tRPC context a
 * call runs in: the HTTP request's, or a fresh one per call on stdio.
 */
export function createMcpServer(context: () => Promise<Context>): Server {
  const server = new Server(
    // The API's version, as the OpenAPI document gives it: the tools are that API.
    { name: "product-catalog", title: "Product Catalog Lookup", version: "1.0.0" },
    {
      capabilities: { tools: {} },
      instructions:
        "A read-only catalog of products from merchants' product pages. Search with search_products; read one product with get_product (by id) or get_product_by_url. " +
        "Errors are tool results with isError and an RFC 9457 problem as JSON text: `code` says what went wrong, `detail` how to fix it.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map((tool) => tool.listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool ${request.params.name}; the tools are ${[...BY_NAME.keys()].join(", ")}.`);
    return tool.run(await context(), request.params.arguments ?? {});
  });
  return server;
}
