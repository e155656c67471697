/**
 * The Universal Commerce Protocol's catalog capability (search, batch lookup,
 * product detail), served under UCP_BASE and as MCP tools in the protocol's
 * terms. Each maps its request onto the catalog's own services (server/ucp/)
 * and their answer back; see docs/ucp.md.
 */
import {
  UcpGetProductRequestSchema,
  UcpGetProductResponseSchema,
  UcpLookupRequestSchema,
  UcpLookupResponseSchema,
  UcpSearchRequestSchema,
  UcpSearchResponseSchema,
} from "../../../shared/schemas/index.js";
import { ucpGetProduct, ucpLookup, ucpSearch } from "../../ucp/catalog.js";
import { mutation } from "./operation.js";

const TOOL_NOTE =
  'Arguments are UCP\'s: `meta` (`{"ucp-agent": {"profile": <your platform profile URL>}}`, required) and `catalog` (the request). ' +
  "Prices are integers in minor units (cents) with their currency.";

export const search = mutation({
  title: "UCP: search the catalog",
  description: "dev.ucp.shopping.catalog.search: the catalog's search, in the Universal Commerce Protocol's terms.",
  tag: "ucp",
  input: UcpSearchRequestSchema,
  output: UcpSearchResponseSchema,
  rest: { base: "ucp", method: "POST", path: "/catalog/search" },
  mcp: {
    tool: "search_catalog",
    description:
      "UCP catalog search: find products by `catalog.query` (plain words) and/or `catalog.filters` " +
      "(`categories`, `price` {min, max} in minor units of `catalog.context.currency`, `brands`, `availability`: in_stock, out_of_stock, preorder, backorder). " +
      "Answers {products: [{id, title, price_range, variants: [{id, price, availability}], …}], pagination: {has_next_page, cursor}}; pass `pagination.cursor` for more. " +
      `${TOOL_NOTE} Use get_product for one product's detail and variants, lookup_catalog for known ids, URLs or barcodes.`,
  },
  cost: 5,
  admission: "search",
  auth: "key",
  async call(ctx, input) {
    const { response, result } = await ucpSearch(ctx.services, input);
    const { rerank } = result;
    ctx.responseHeaders.set("x-rerank", rerank.outcome === "fallback" ? "fallback" : rerank.name);
    if (rerank.outcome === "fallback") ctx.log.warn({ reranker: rerank.name, reason: rerank.reason }, "rerank fell back to retrieval order");
    return response;
  },
});

export const lookup = mutation({
  title: "UCP: look up products by identifier",
  description: "dev.ucp.shopping.catalog.lookup (batch): products by product id, variant id, page URL, GTIN or SKU.",
  tag: "ucp",
  input: UcpLookupRequestSchema,
  output: UcpLookupResponseSchema,
  rest: { base: "ucp", method: "POST", path: "/catalog/lookup" },
  mcp: {
    tool: "lookup_catalog",
    description:
      "UCP catalog lookup: up to 50 identifiers at once in `catalog.ids` (product ids, variant ids, product page URLs, barcodes such as UPC/EAN/ISBN, or SKUs). " +
      "Answers the products found, each variant with `inputs` saying which identifier matched it (`exact` or `featured`); identifiers not found are listed as `not_found` messages. " +
      TOOL_NOTE,
  },
  cost: 5,
  auth: "key",
  call: (ctx, input) => ucpLookup(ctx.services, input),
});

export const product = mutation({
  title: "UCP: get a product's detail",
  description: "dev.ucp.shopping.catalog.lookup (get_product): one product with its options and the variants matching the selected options.",
  tag: "ucp",
  input: UcpGetProductRequestSchema,
  output: UcpGetProductResponseSchema,
  rest: { base: "ucp", method: "POST", path: "/catalog/product" },
  mcp: {
    tool: "get_product",
    description:
      "UCP product detail: one product by `catalog.id` (a product or variant id from search_catalog, or a page URL or barcode), with its options (size, color, …) " +
      "and availability per option value; narrow the variants with `catalog.selected` ([{name, label}]). An id that is not found answers `ucp.status: error` with a `not_found` message. " +
      `${TOOL_NOTE} (This tool used to take {id} and answer {pdp}: that is now get_product_by_id.)`,
  },
  cost: 1,
  auth: "key",
  call: (ctx, input) => ucpGetProduct(ctx.services, input),
});
