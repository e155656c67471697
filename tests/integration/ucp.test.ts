/**
 * The Universal Commerce Protocol's catalog capability (docs/ucp.md): one test
 * per MUST of the catalog specification and of its REST and MCP bindings that
 * applies to a read-only catalog, named after its clause; every request and
 * answer validated against the protocol's own JSON Schemas (tests/helpers/ucp.ts);
 * the specification's examples run through the service; bad input answered as
 * the bindings say; and search answering what the GET API answers.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Root } from "../../server/compose.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import {
  type SearchResponse,
  UCP_VERSION,
  type UcpBusinessProfile,
  type UcpDetailProduct,
  type UcpLookupResponse,
  type UcpMessage,
  type UcpProduct,
  type UcpSearchResponse,
} from "../../shared/schemas/index.js";
import { productUrlKey } from "../../shared/url.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { STRUCTURED } from "../helpers/structured.js";
import {
  BUSINESS_PROFILE,
  ERROR_RESPONSE,
  expectValid,
  expectValidProductAnswer,
  LOOKUP_REQUEST,
  LOOKUP_RESPONSE,
  PRODUCT_REQUEST,
  RIDGE_TEE,
  SEARCH_REQUEST,
  SEARCH_RESPONSE,
  specExamples,
  UCP_REFERENCE_PRESENT,
  UNPRICED,
} from "../helpers/ucp.js";

const AGENT = 'profile="https://platform.example/.well-known/ucp"';
const META = { "ucp-agent": { profile: "https://platform.example/.well-known/ucp" } };
const idOf = (url: string) => productIdFromUrlKey(productUrlKey(url)!);
const TEE_ID = idOf(RIDGE_TEE.url);
const TENT_ID = idOf("https://www.northpeak.example/products/alpine-2-tent");
const UNPRICED_ID = idOf(UNPRICED.url);

/** get_product's answer as the tests read it: the product, or (without it) the error envelope's messages. */
interface ProductAnswer {
  ucp: UcpSearchResponse["ucp"];
  product: UcpDetailProduct;
  messages?: UcpMessage[];
}

/**
 * What each operation answers, as the tests read it. Every answer is checked against the protocol's schema
 * before it is read; a refusal (the error envelope) has only `ucp` and `messages`, which the tests read alone.
 */
interface Answers {
  search: UcpSearchResponse;
  lookup: UcpLookupResponse;
  product: ProductAnswer;
}
const TOOL_OPERATION = { search_catalog: "search", lookup_catalog: "lookup", get_product: "product" } as const;
type ToolName = keyof typeof TOOL_OPERATION;
type ToolContent<N extends string> = N extends ToolName ? Answers[(typeof TOOL_OPERATION)[N]] : unknown;

interface JsonRpcAnswer<C> {
  result?: { structuredContent?: C };
  error?: { code: number; message: string; data?: { code?: string; messages?: UcpMessage[] } };
}

let t: TestApp;

// Every answer is validated against the protocol's own schemas, which live beside the repository, not in it.
describe.skipIf(!UCP_REFERENCE_PRESENT)(
  UCP_REFERENCE_PRESENT
    ? "UCP conformance"
    : "UCP conformance: skipped, ../shared/reference/ucp (the protocol's schemas and specification) is absent",
  () => {
    beforeAll(async () => {
      t = await createTestApp({ records: [...STRUCTURED, RIDGE_TEE, UNPRICED] });
    });
    afterAll(() => t.close());

    const REQUEST_SCHEMA: Record<string, string> = { search: SEARCH_REQUEST, lookup: LOOKUP_REQUEST, product: PRODUCT_REQUEST };

    /** A UCP REST call; the request is validated against the protocol's schema first unless `raw` (bad input on purpose). */
    async function ucp<O extends keyof Answers>(
      operation: O,
      body: unknown,
      options: { raw?: boolean; headers?: Record<string, string>; app?: FastifyInstance; key?: string } = {},
    ) {
      if (!options.raw) expectValid(REQUEST_SCHEMA[operation]!, body);
      const answer = await (options.app ?? t.app).inject({
        method: "POST",
        url: `/ucp/catalog/${operation}`,
        headers: { authorization: options.key ?? t.key, "ucp-agent": AGENT, "content-type": "application/json", ...options.headers },
        payload: typeof body === "string" ? body : JSON.stringify(body),
      });
      // Typed as the operation's answer: it is checked against the protocol's schema just below, before any test reads it.
      const json = answer.json<Answers[O]>();
      expect(answer.statusCode, answer.body).toBeLessThan(500);
      // Every answer, refusals included, is the protocol's: a 200 answer of the operation, or its error envelope.
      if (answer.statusCode !== 200) expectValid(ERROR_RESPONSE, json);
      else if (operation === "search") expectValid(SEARCH_RESPONSE, json);
      else if (operation === "lookup") expectValid(LOOKUP_RESPONSE, json);
      else expectValidProductAnswer(json);
      return { status: answer.statusCode, body: json, headers: answer.headers };
    }

    /** An MCP tool call on /mcp, as JSON-RPC; the result's structuredContent is validated like a REST answer. */
    async function tool<N extends string>(name: N, args: unknown, key = t.key) {
      const answer = await t.app.inject({
        method: "POST",
        url: "/mcp",
        headers: { authorization: key, "content-type": "application/json", accept: "application/json, text/event-stream" },
        payload: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } },
      });
      // Typed as the tool's answer: its content and error data are checked against the protocol's schemas just below.
      const json = answer.json<JsonRpcAnswer<ToolContent<N>>>();
      const content = json.result?.structuredContent;
      if (content) {
        if (name === "search_catalog") expectValid(SEARCH_RESPONSE, content);
        if (name === "lookup_catalog") expectValid(LOOKUP_RESPONSE, content);
        if (name === "get_product") expectValidProductAnswer(content);
      }
      if (json.error?.data?.messages) expectValid(ERROR_RESPONSE, json.error.data);
      return { status: answer.statusCode, json, content, error: json.error, headers: answer.headers };
    }

    const codes = (body: { messages?: UcpMessage[] }) => (body.messages ?? []).map((message) => message.code);
    const variantIds = (product: Pick<UcpProduct, "variants">) => product.variants.map((variant) => variant.id);

    describe("catalog (index.md)", () => {
      it("Catalog: get_product returns severity unrecoverable when an identifier does not resolve (agents MUST NOT retry the same id)", async () => {
        const { status, body } = await ucp("product", { id: "pdp_nothing_here" });
        expect(status).toBe(200);
        expect(body).toEqual({
          ucp: { version: UCP_VERSION, status: "error", capabilities: { "dev.ucp.shopping.catalog.lookup": [{ version: UCP_VERSION }] } },
          messages: [{ type: "error", code: "not_found", content: "Product not found: pdp_nothing_here", severity: "unrecoverable" }],
        });
      });

      it("Price values include both amount (in minor currency units) and currency code", async () => {
        const { body } = await ucp("product", { id: TENT_ID });
        expect(body.product.price_range).toEqual({ min: { amount: 34900, currency: "USD" }, max: { amount: 34900, currency: "USD" } });
        // A currency without minor units stays whole; pounds and euros in cents.
        const eur = await ucp("search", { query: "skillet" });
        expect(eur.body.products[0]?.variants[0]?.price).toEqual({ amount: 4990, currency: "EUR" });
      });
    });

    describe("search (search.md)", () => {
      it("Search Inputs: a valid search request MUST include at least one of a query string or filters; an empty one is refused", async () => {
        for (const body of [{}, { query: "" }, { query: "   " }, { pagination: { limit: 5 } }, { context: { currency: "USD" } }]) {
          const { status, body: answer } = await ucp("search", body, { raw: true });
          expect(status, JSON.stringify(body)).toBe(400);
          expect(answer.messages?.[0]).toMatchObject({ type: "error", code: "invalid_parameter", severity: "recoverable", path: "$.query" });
        }
      });

      it("Search Inputs: implementations MUST validate that requests contain at least one recognized input (an unknown filter alone is refused; beside a known one it is ignored, with a message)", async () => {
        const alone = await ucp("search", { filters: { colour: "red" } });
        expect(alone.status).toBe(400);
        const beside = await ucp("search", { query: "tent", filters: { colour: "red" } });
        expect(beside.status).toBe(200);
        expect(beside.body.messages).toContainEqual({ type: "info", code: "filter_ignored", content: expect.stringContaining('"colour"') });
        expect(beside.body.products.length).toBeGreaterThan(0);
      });

      it("Price Filter: denominated in context.currency; without it the filter is ignored and a message says so", async () => {
        const priced = await ucp("search", { query: "tent", filters: { price: { max: 30000 } }, context: { currency: "USD" } });
        const amounts = priced.body.products.map((product) => product.price_range.min.amount);
        expect(amounts.length).toBeGreaterThan(0);
        for (const amount of amounts) expect(amount).toBeLessThanOrEqual(30000);
        expect(codes(priced.body)).toContain("currency_only");
        const unpriced = await ucp("search", { query: "tent", filters: { price: { max: 30000 } } });
        expect(unpriced.body.messages).toContainEqual(
          expect.objectContaining({ type: "info", code: "filter_ignored", content: expect.stringContaining("context.currency") }),
        );
        expect(unpriced.body.products.some((product) => product.price_range.min.amount > 30000)).toBe(true);
      });

      it("Page Size: clients MUST NOT assume the response size equals the requested limit (a limit over 100 is clamped, and said)", async () => {
        const { body } = await ucp("search", { filters: { categories: ["Outdoor"] }, pagination: { limit: 1000 } });
        expect(codes(body)).toContain("limit_clamped");
        expect(body.products.length).toBeLessThanOrEqual(100);
      });

      it("filters: categories, brands and availability narrow the results; every filter applies (AND)", async () => {
        const { body } = await ucp("search", { filters: { categories: ["Outdoor > Tents"], availability: ["in_stock"], brands: ["northpeak"] } });
        expect(body.products.length).toBeGreaterThan(0);
        for (const product of body.products) {
          expect(product.categories?.[0]?.value).toMatch(/^Outdoor > Tents/);
          expect(product.metadata?.brands).toContain("NorthPeak");
          expect(product.variants[0]?.availability).toEqual({ available: true, status: "in_stock" });
        }
      });
    });

    describe("lookup (lookup.md)", () => {
      it("Supported Identifiers: implementations MUST support lookup by product ID and variant ID", async () => {
        const variant = `${TEE_ID}~RT-RED-S`;
        const { status, body } = await ucp("lookup", { ids: [TENT_ID, variant] });
        expect(status).toBe(200);
        const byId = new Map(body.products.map((product) => [product.id, product]));
        expect(byId.get(TENT_ID)?.variants[0]?.inputs).toEqual([{ id: TENT_ID, match: "featured" }]);
        expect(byId.get(TEE_ID)?.variants).toEqual([expect.objectContaining({ id: variant, inputs: [{ id: variant, match: "exact" }] })]);
      });

      it("Supported Identifiers: secondary identifiers (page URL, GTIN, SKU) resolve too, exact when they name the variant", async () => {
        const tentUrl = "https://northpeak.example/products/alpine-2-tent?utm_source=mail";
        const { body } = await ucp("lookup", { ids: [RIDGE_TEE.url, "RT-BLU-M", "012345678905", tentUrl] });
        const byId = new Map(body.products.map((product) => [product.id, product]));
        expect(byId.get(TEE_ID)?.variants.map((variant) => [variant.sku, variant.inputs])).toEqual([
          [
            "RT-BLU-M",
            [
              { id: RIDGE_TEE.url, match: "exact" },
              { id: "RT-BLU-M", match: "exact" },
            ],
          ],
        ]);
        expect(byId.get(TENT_ID)?.variants[0]).toMatchObject({
          barcodes: [{ type: "UPC", value: "012345678905" }],
          inputs: [
            { id: "012345678905", match: "exact" },
            { id: tentUrl, match: "featured" },
          ],
        });
        // The catalog indexes the identifiers of the variant a page selects: another variant's URL or GTIN is not one it knows.
        const other = await ucp("lookup", { ids: [RIDGE_TEE.url.replace("size=m", "size=l"), "012345678912"] });
        expect(codes(other.body)).toEqual(["not_found", "not_found"]);
      });

      it("Supported Identifiers: duplicate identifiers in the request MUST be deduplicated", async () => {
        const { body } = await ucp("lookup", { ids: [TENT_ID, TENT_ID, TENT_ID] });
        expect(body.products).toHaveLength(1);
        expect(body.products[0]?.variants[0]?.inputs).toEqual([{ id: TENT_ID, match: "featured" }]);
      });

      it("Supported Identifiers: when multiple identifiers resolve to the same product, it MUST be returned once", async () => {
        const featured = `${TEE_ID}~RT-BLU-M`;
        const { body } = await ucp("lookup", { ids: [TEE_ID, featured, `${TEE_ID}~RT-RED-S`] });
        expect(body.products.map((product) => product.id)).toEqual([TEE_ID]);
        // The product id and its featured variant's id resolve to the same variant: one entry per identifier.
        expect(body.products[0]?.variants.map((variant) => [variant.id, variant.inputs])).toEqual([
          [
            featured,
            [
              { id: TEE_ID, match: "featured" },
              { id: featured, match: "exact" },
            ],
          ],
          [`${TEE_ID}~RT-RED-S`, [{ id: `${TEE_ID}~RT-RED-S`, match: "exact" }]],
        ]);
      });

      it("Client Correlation: variants without an inputs entry MUST NOT appear in lookup responses", async () => {
        const { body } = await ucp("lookup", { ids: [TEE_ID] });
        expect(body.products[0]?.variants).toHaveLength(1);
        for (const product of body.products) for (const variant of product.variants) expect(variant.inputs.length).toBeGreaterThan(0);
      });

      it("Batch Size: requests exceeding the limit MUST be rejected (REST 400 request_too_large)", async () => {
        const ids = Array.from({ length: 51 }, (_, i) => `pdp_${i}`);
        const { status, body } = await ucp("lookup", { ids });
        expect(status).toBe(400);
        expect(body.messages).toEqual([expect.objectContaining({ type: "error", code: "request_too_large", path: "$.ids" })]);
        expect((await ucp("lookup", { ids: ids.slice(0, 50) })).status).toBe(200);
      });

      it("Filters: apply after resolution; a product whose variants all fall outside the price filter is excluded", async () => {
        const { body } = await ucp("lookup", {
          ids: [TENT_ID, `${TEE_ID}~RT-BLU-L`, `${TEE_ID}~RT-BLU-S`],
          filters: { price: { max: 3100 } },
          context: { currency: "USD" },
        });
        expect(body.products.map((product) => product.id)).toEqual([TEE_ID]);
        expect(variantIds(body.products[0]!)).toEqual([`${TEE_ID}~RT-BLU-S`]);
      });
    });

    describe("get_product (lookup.md)", () => {
      it("Resolution Behavior: for a variant ID the requested variant MUST be the first element, and product.selected reflects its options", async () => {
        const variant = `${TEE_ID}~RT-RED-S`;
        const { body } = await ucp("product", { id: variant, selected: [{ name: "Color", label: "Blue" }] });
        expect(body.product.variants[0]?.id).toBe(variant);
        // The variant id fully determines the selection: the request's is ignored.
        expect(body.product.selected).toEqual([
          { name: "Color", label: "Red" },
          { name: "Size", label: "S" },
        ]);
      });

      it("Option Selection: each option name MUST appear at most once in selected (else a 400)", async () => {
        const { status, body } = await ucp("product", {
          id: TEE_ID,
          selected: [
            { name: "Color", label: "Blue" },
            { name: "Color", label: "Red" },
          ],
        });
        expect(status).toBe(400);
        expect(body.messages?.[0]).toMatchObject({ code: "invalid_parameter", path: "$.selected" });
      });

      it("Effective Selections: the response MUST include product.selected when the product has configurable options (relaxed per preferences)", async () => {
        const featured = await ucp("product", { id: TEE_ID });
        expect(featured.body.product.selected).toEqual([
          { name: "Color", label: "Blue" },
          { name: "Size", label: "M" },
        ]);
        expect(featured.body.product.variants[0]?.id).toBe(`${TEE_ID}~RT-BLU-M`);
        // Red and L exist apart, never together: Size is dropped first (it is last in preferences).
        const relaxed = await ucp("product", {
          id: TEE_ID,
          selected: [
            { name: "Size", label: "L" },
            { name: "Color", label: "Red" },
          ],
          preferences: ["Color", "Size"],
        });
        expect(relaxed.body.product.selected).toEqual([{ name: "Color", label: "Red" }]);
        expect(variantIds(relaxed.body.product)).toEqual([`${TEE_ID}~RT-RED-S`, `${TEE_ID}~RT-RED-M`]);
        const sizes = relaxed.body.product.options?.find((option) => option.name === "Size");
        expect(sizes?.values).toEqual([
          { label: "S", available: true, exists: true },
          { label: "M", available: false, exists: true },
          { label: "L", available: false, exists: false },
        ]);
        // A product without options may leave selected out.
        expect((await ucp("product", { id: TENT_ID })).body.product.selected).toBeUndefined();
      });

      it("variants come from the page's ProductGroup: options, featured variant, price range, availability, media", async () => {
        const { body } = await ucp("product", { id: TEE_ID, selected: [{ name: "Color", label: "Blue" }] });
        const { product } = body;
        expect(product.options?.map((option) => [option.name, option.values.map((value) => value.label)])).toEqual([
          ["Color", ["Blue", "Red"]],
          ["Size", ["S", "M", "L"]],
        ]);
        expect(product.price_range).toEqual({ min: { amount: 3000, currency: "USD" }, max: { amount: 3200, currency: "USD" } });
        expect(product.variants.map((variant) => [variant.title, variant.availability?.status])).toEqual([
          ["Blue / M", "in_stock"],
          ["Blue / S", "in_stock"],
          ["Blue / L", "out_of_stock"],
        ]);
        expect(product.variants[0]).toMatchObject({
          url: "https://www.northpeak.example/products/ridge-tee?color=blue&size=m",
          media: [{ type: "image", url: "https://cdn.northpeak.example/ridge-tee-blue.jpg" }],
        });
        expect(product.media).toEqual([{ type: "image", url: "https://cdn.northpeak.example/ridge-tee.jpg" }]);
        expect(product.categories).toEqual([{ value: "Clothing > Tops", taxonomy: "merchant" }]);
      });

      it("a record without a price is no UCP product: get_product says so, lookup and search leave it out with a message", async () => {
        const single = await ucp("product", { id: UNPRICED_ID });
        expect(single.body.messages?.[0]).toMatchObject({ type: "error", code: "price_unknown", severity: "unrecoverable" });
        const batch = await ucp("lookup", { ids: [UNPRICED_ID, TENT_ID] });
        expect(batch.body.products.map((product) => product.id)).toEqual([TENT_ID]);
        expect(codes(batch.body)).toContain("price_unknown");
        const search = await ucp("search", { query: "mystery tent" });
        expect(search.body.products.map((product) => product.id)).not.toContain(UNPRICED_ID);
        expect(codes(search.body)).toContain("price_unknown");
      });
    });

    describe("REST binding (rest.md)", () => {
      it("Conformance 1: endpoints for each capability advertised in the profile; with Lookup, both /catalog/lookup and /catalog/product MUST be available", async () => {
        const profile = (await t.app.inject({ url: "/.well-known/ucp" })).json<UcpBusinessProfile>();
        expect(Object.keys(profile.ucp.capabilities).sort()).toEqual(["dev.ucp.shopping.catalog.lookup", "dev.ucp.shopping.catalog.search"]);
        const rest = profile.ucp.services["dev.ucp.shopping"]?.find((service) => service.transport === "rest");
        const base = new URL(rest?.endpoint ?? "").pathname;
        for (const path of ["/catalog/search", "/catalog/lookup", "/catalog/product"]) {
          const answer = await t.app.inject({
            method: "POST",
            url: `${base}${path}`,
            headers: { authorization: t.key, "ucp-agent": AGENT },
            payload: {},
          });
          expect(answer.statusCode, path).toBe(400);
        }
      });

      it("Conformance 2: return products with valid Price objects (amount + currency)", async () => {
        const { body } = await ucp("search", {
          filters: { categories: ["Outdoor", "Kitchen", "Audio", "Clothing", "Shoes"] },
          pagination: { limit: 100 },
        });
        expect(body.products.length).toBeGreaterThan(10);
        for (const product of body.products) {
          for (const price of [product.price_range.min, product.price_range.max, ...product.variants.map((variant) => variant.price)]) {
            expect(Number.isInteger(price.amount)).toBe(true);
            expect(price.currency).toMatch(/^[A-Z]{3}$/);
          }
        }
      });

      it("Conformance 3: support cursor-based pagination with default limit of 10", async () => {
        const request = { filters: { categories: ["Outdoor", "Kitchen", "Audio", "Clothing", "Shoes"] } };
        const first = await ucp("search", request);
        expect(first.body.products).toHaveLength(10);
        expect(first.body.pagination).toEqual({ has_next_page: true, cursor: expect.any(String) });
        const seen = new Set<string>(first.body.products.map((product) => product.id));
        let cursor: string | undefined = first.body.pagination?.cursor;
        while (cursor) {
          const page: Awaited<ReturnType<typeof ucp<"search">>> = await ucp("search", { ...request, pagination: { cursor } });
          for (const product of page.body.products) {
            expect(seen.has(product.id)).toBe(false);
            seen.add(product.id);
          }
          cursor = page.body.pagination?.cursor;
          if (!page.body.pagination?.has_next_page) expect(cursor).toBeUndefined();
        }
        expect(seen.size).toBeGreaterThan(10);
      });

      it("Conformance 4: return HTTP 200 for lookup requests; unknown identifiers result in fewer products, with not_found messages", async () => {
        const { status, body } = await ucp("lookup", { ids: ["prod_invalid1", TENT_ID, "prod_invalid2"] });
        expect(status).toBe(200);
        expect(body.products).toHaveLength(1);
        expect(body.messages).toEqual([
          { type: "info", code: "not_found", content: "prod_invalid1" },
          { type: "info", code: "not_found", content: "prod_invalid2" },
        ]);
        const none = await ucp("lookup", { ids: ["prod_invalid"] });
        expect(none).toMatchObject({ status: 200, body: { products: [], messages: [{ type: "info", code: "not_found", content: "prod_invalid" }] } });
      });

      it("Conformance 4: an identifier holding NUL, which no stored product can, is not found (it once reached Postgres: a 500)", async () => {
        const { status, body } = await ucp("lookup", { ids: ["\u0000", "RT-BLU-M\u0000", TENT_ID] });
        expect(status).toBe(200);
        expect(body.products.map((product) => product.id)).toEqual([TENT_ID]);
        expect(codes(body)).toEqual(["not_found", "not_found"]);
      });

      it("Conformance 5: return HTTP 400 with request_too_large for requests exceeding batch size limits", async () => {
        const { status, body } = await ucp("lookup", { ids: Array.from({ length: 200 }, (_, i) => `id_${i}`) });
        expect(status).toBe(400);
        expect(body).toEqual({
          ucp: { version: UCP_VERSION, status: "error" },
          messages: [
            { type: "error", code: "request_too_large", content: "ids may hold at most 50 identifiers", severity: "recoverable", path: "$.ids" },
          ],
        });
      });

      it("HTTP Headers: all requests MUST include the UCP-Agent header (profile as an RFC 8941 dictionary string); without it, 400 invalid_profile_url", async () => {
        for (const header of [
          undefined,
          "",
          "profile=https://x.example/p",
          'profile="not a url"',
          'other="https://x.example/p"',
          'profile="ftp://x.example/p"',
        ]) {
          const answer = await t.app.inject({
            method: "POST",
            url: "/ucp/catalog/search",
            headers: { authorization: t.key, ...(header === undefined ? {} : { "ucp-agent": header }) },
            payload: { query: "tent" },
          });
          expect(answer.statusCode, String(header)).toBe(400);
          expectValid(ERROR_RESPONSE, answer.json());
          expect(answer.json().messages?.[0]?.code).toBe("invalid_profile_url");
        }
        const ok = await ucp(
          "search",
          { query: "tent" },
          { headers: { "ucp-agent": 'profile="https://agent.example/profiles/shopping.json";v=1, other=?1' } },
        );
        expect(ok.status).toBe(200);
      });

      it("HTTP Headers: the platform's API key may come in X-API-Key (the binding's header for a key the business allocated), on the UCP routes only", async () => {
        const viaHeader = await ucp("search", { query: "tent" }, { key: "", headers: { "x-api-key": t.key } });
        expect(viaHeader.status).toBe(200);
        const unknown = await ucp(
          "search",
          { query: "tent" },
          { key: "", headers: { "x-api-key": "pcl_test_2UetAxDLEE6Bq7fpNfXDPfrXE7bV5W7HsioAiQ1tdU3BwD" } },
        );
        expect(unknown.status).toBe(401);
        expect(unknown.body.messages?.[0]?.code).toBe("unauthorized");
        // Authorization wins when both are sent; the catalog's own API reads only Authorization.
        expect((await ucp("search", { query: "tent" }, { key: "nope", headers: { "x-api-key": t.key } })).status).toBe(401);
        const own = await t.app.inject({ url: "/api/v1/products/search?q=tent", headers: { "x-api-key": t.key } });
        expect(own.statusCode).toBe(401);
      });

      it("Error Handling: transport errors are HTTP statuses (400, 401, 429) in the protocol's error envelope; business outcomes are 200 with messages", async () => {
        const unauthorized = await ucp("search", { query: "tent" }, { key: "nope" });
        expect(unauthorized.status).toBe(401);
        expect(unauthorized.headers["www-authenticate"]).toBe('Bearer realm="product-catalog"');
        expect(unauthorized.body.messages?.[0]?.code).toBe("unauthorized");
        const business = await ucp("lookup", { ids: ["prod_invalid"] });
        expect(business.status).toBe(200);
      });
    });

    describe("MCP binding (mcp.md)", () => {
      const call = <N extends ToolName>(name: N, catalog: unknown, meta: unknown = META) => tool(name, { meta, catalog });

      it("Conformance 2: tools for each advertised capability; with Lookup, both lookup_catalog and get_product MUST be available, with the binding's input schema", async () => {
        const answer = await t.app.inject({
          method: "POST",
          url: "/mcp",
          headers: { authorization: t.key, "content-type": "application/json", accept: "application/json, text/event-stream" },
          payload: { jsonrpc: "2.0", id: 1, method: "tools/list" },
        });
        const { tools } = answer.json<{
          result: { tools: { name: string; inputSchema: object; outputSchema?: { type: string }; annotations?: object }[] };
        }>().result;
        for (const name of ["search_catalog", "lookup_catalog", "get_product"]) {
          const listed = tools.find((entry) => entry.name === name);
          expect(listed?.inputSchema).toMatchObject({ type: "object", required: ["meta", "catalog"] });
          expect(listed?.outputSchema?.type).toBe("object");
          expect(listed?.annotations).toMatchObject({ readOnlyHint: true });
        }
      });

      it("Conformance 3: JSON-RPC errors for transport issues; the messages array for business outcomes", async () => {
        const missing = await call("get_product", { id: "pdp_nothing_here" });
        expect(missing.error).toBeUndefined();
        expect(missing.content).toMatchObject({ ucp: { status: "error" }, messages: [{ code: "not_found", severity: "unrecoverable" }] });
        const invalid = await call("search_catalog", { query: "tent", pagination: { limit: -1 } });
        expect(invalid.error).toMatchObject({ code: -32602, data: { messages: [{ code: "invalid_parameter", path: "$.pagination.limit" }] } });
        const unauthorized = await tool("search_catalog", { meta: META, catalog: { query: "tent" } }, "nope");
        expect(unauthorized.status).toBe(401);
        expect(unauthorized.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, data: { code: "unauthorized" } } });
      });

      it("Conformance 4: a successful result for lookup requests; unknown identifiers result in fewer products", async () => {
        const { content, error } = await call("lookup_catalog", { ids: [TENT_ID, "prod_notfound1"] });
        expect(error).toBeUndefined();
        expect(content?.products.map((product) => product.id)).toEqual([TENT_ID]);
        expect(content?.messages).toEqual([{ type: "info", code: "not_found", content: "prod_notfound1" }]);
      });

      it("Conformance 5: validate tool inputs against UCP schemas (a negative or fractional price, a string limit: -32602)", async () => {
        for (const catalog of [
          { query: "tent", filters: { price: { min: -1 } }, context: { currency: "USD" } },
          { query: "tent", filters: { price: { max: 10.5 } }, context: { currency: "USD" } },
          { query: "tent", pagination: { limit: "5" } },
          { query: 5 },
        ]) {
          const { error } = await call("search_catalog", catalog);
          expect(error?.code, JSON.stringify(catalog)).toBe(-32602);
        }
      });

      it("Conformance 6: return products with valid Price objects (amount + currency)", async () => {
        const { content } = await call("search_catalog", { query: "tent" });
        expect(content?.products.length).toBeGreaterThan(0);
        for (const product of content?.products ?? [])
          for (const variant of product.variants) expect(variant.price).toEqual({ amount: expect.any(Number), currency: "USD" });
      });

      it("Conformance 7: support cursor-based pagination with default limit of 10", async () => {
        const request = { filters: { categories: ["Outdoor", "Kitchen", "Audio", "Clothing", "Shoes"] } };
        const first = await call("search_catalog", request);
        expect(first.content?.products).toHaveLength(10);
        const second = await call("search_catalog", { ...request, pagination: { cursor: first.content?.pagination?.cursor } });
        expect(second.content?.products[0]?.id).not.toBe(first.content?.products[0]?.id);
      });

      it("Conformance 8: return -32602 (Invalid params) for requests exceeding batch size limits", async () => {
        const { error } = await call("lookup_catalog", { ids: Array.from({ length: 51 }, (_, i) => `pdp_${i}`) });
        expect(error).toMatchObject({ code: -32602, data: { messages: [{ code: "request_too_large" }] } });
      });

      it("Request Metadata: MCP clients MUST include meta['ucp-agent'] in every request; without it, -32001 invalid_profile_url", async () => {
        for (const meta of [undefined, {}, { "ucp-agent": {} }, { "ucp-agent": { profile: "nope" } }]) {
          const { error } = await tool("search_catalog", { ...(meta === undefined ? {} : { meta }), catalog: { query: "tent" } });
          expect(error, JSON.stringify(meta)).toMatchObject({ code: -32001, data: { code: "invalid_profile_url" } });
        }
      });

      it("the old get_product arguments ({id}) are answered with where that tool went", async () => {
        const { error } = await tool("get_product", { id: TENT_ID });
        expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("get_product_by_id") });
        const old = await tool("get_product_by_id", { id: TENT_ID });
        expect(old.content).toMatchObject({ pdp: { id: TENT_ID } });
      });
    });

    describe("discovery and negotiation (overview)", () => {
      it("Profile Structure: /.well-known/ucp is public; ucp.version, services and payment_handlers MUST be present (even when empty)", async () => {
        const answer = await t.app.inject({ url: "/.well-known/ucp" });
        expect(answer.statusCode).toBe(200);
        // Public as in keyless; without PUBLIC_URL it names the request's Host, so only the client may cache it (issue 47).
        expect(answer.headers["cache-control"]).toBe("private, max-age=300");
        const profile = answer.json<UcpBusinessProfile>();
        expectValid(BUSINESS_PROFILE, profile);
        expect(profile.ucp).toMatchObject({ version: UCP_VERSION, payment_handlers: {} });
        expect(profile.ucp.services["dev.ucp.shopping"]?.map((service) => service.transport)).toEqual(["rest", "mcp"]);
      });

      it("Component Versioning: a Business that selects ucp.version D MUST declare version D on every dev.ucp.* entry", async () => {
        const profile = (await t.app.inject({ url: "/.well-known/ucp" })).json<UcpBusinessProfile>();
        const entries = [...Object.values(profile.ucp.services), ...Object.values(profile.ucp.capabilities)].flat();
        expect(entries.length).toBe(4);
        for (const entry of entries) expect(entry.version).toBe(UCP_VERSION);
      });

      it("Endpoint Resolution: endpoint MUST be a valid URL with scheme (https) and SHOULD NOT have a trailing slash (PUBLIC_URL)", async () => {
        const root: Root = await rootOn(t.database, { config: { PUBLIC_URL: "https://catalog.example.com", UCP_BASE: "/commerce/ucp" } });
        try {
          const app = await root.app();
          const profile = (await app.inject({ url: "/.well-known/ucp" })).json<UcpBusinessProfile>();
          expect(profile.ucp.services["dev.ucp.shopping"]?.map((service) => service.endpoint)).toEqual([
            "https://catalog.example.com/commerce/ucp",
            "https://catalog.example.com/mcp",
          ]);
          const headers = { authorization: t.key, "ucp-agent": AGENT };
          expect((await app.inject({ method: "POST", url: "/commerce/ucp/catalog/search", headers, payload: { query: "tent" } })).statusCode).toBe(
            200,
          );
          expect((await app.inject({ method: "POST", url: "/ucp/catalog/search", headers, payload: { query: "tent" } })).statusCode).toBe(404);
        } finally {
          await root.close();
        }
      });

      it("Response Requirements: every response MUST include ucp with the version used and only the capabilities relevant to the operation", async () => {
        const search = await ucp("search", { query: "tent" });
        expect(search.body.ucp).toEqual({ version: UCP_VERSION, capabilities: { "dev.ucp.shopping.catalog.search": [{ version: UCP_VERSION }] } });
        const lookup = await ucp("lookup", { ids: [TENT_ID] });
        expect(lookup.body.ucp).toEqual({ version: UCP_VERSION, capabilities: { "dev.ucp.shopping.catalog.lookup": [{ version: UCP_VERSION }] } });
        const refused = await ucp("lookup", { ids: [] }, { raw: true });
        expect(refused.body.ucp.version).toBe(UCP_VERSION);
      });

      it("is linked from /llms.txt and GET /", async () => {
        expect((await t.app.inject({ url: "/" })).json<{ links: { ucp: string } }>().links.ucp).toBe("/.well-known/ucp");
        const llms = (await t.app.inject({ url: "/llms.txt" })).body;
        expect(llms).toContain("(/.well-known/ucp)");
        expect(llms).toContain("POST /ucp/catalog/search");
      });
    });

    describe("the specification's examples round-trip", () => {
      const examples = UCP_REFERENCE_PRESENT ? specExamples() : [];

      it("finds the catalog examples of search, lookup and get_product", () => {
        expect(examples.filter((example) => example.direction === "request").length).toBeGreaterThanOrEqual(8);
      });

      it.each(
        examples.filter((example) => example.direction === "request").map((example, i) => [`${example.file} ${example.op} #${i}`, example] as const),
      )("request %s is accepted over REST and MCP, and answered in a valid shape", async (_, example) => {
        const operation = example.op === "get_product" ? "product" : (example.op as "search" | "lookup");
        const rest = await ucp(operation, example.json);
        expect(rest.status).toBe(200);
        if (example.file === "mcp.md") {
          // The example's JSON-RPC message (mcp.md shows tools/call requests).
          const message = example.raw as { params: { name: string; arguments: unknown } };
          const viaTool = await tool(message.params.name, message.params.arguments);
          expect(viaTool.error).toBeUndefined();
          expect(viaTool.content).toEqual({ ...rest.body });
        }
      });

      it("every example answer is one the server's own schemas accept (they are not stricter than the protocol)", async () => {
        const { UcpSearchResponseSchema, UcpLookupResponseSchema, UcpGetProductResponseSchema } = await import("../../shared/schemas/index.js");
        const answers = examples.filter(
          (example) => example.direction === "response" && !example.elided && example.schema.startsWith("shopping/catalog"),
        );
        expect(answers.length).toBeGreaterThanOrEqual(8);
        for (const example of answers) {
          const schema =
            example.op === "search" ? UcpSearchResponseSchema : example.op === "lookup" ? UcpLookupResponseSchema : UcpGetProductResponseSchema;
          expect(schema.safeParse(example.json).success, `${example.file} ${example.op}`).toBe(true);
        }
      });
    });

    describe("bad input is answered as the binding says, never a 500", () => {
      it("a body that is not JSON is 400 invalid_json; another media type 415; not an object 400", async () => {
        const broken = await ucp("search", '{"query": "tent"', { raw: true });
        expect(broken).toMatchObject({ status: 400, body: { messages: [{ code: "invalid_json" }] } });
        const form = await t.app.inject({
          method: "POST",
          url: "/ucp/catalog/search",
          headers: { authorization: t.key, "ucp-agent": AGENT, "content-type": "application/x-www-form-urlencoded" },
          payload: "query=tent",
        });
        expect(form.statusCode).toBe(415);
        expectValid(ERROR_RESPONSE, form.json());
        for (const body of ["[]", "42", "null", '"tent"']) expect((await ucp("search", body, { raw: true })).status, body).toBe(400);
      });

      it("a negative or non-integer price, a minimum above the maximum: 400 naming the member", async () => {
        for (const [price, path] of [
          [{ min: -100 }, "$.filters.price.min"],
          [{ max: 19.99 }, "$.filters.price.max"],
          [{ max: "100" }, "$.filters.price.max"],
          [{ min: 500, max: 100 }, "$.filters.price.min"],
        ] as const) {
          const { status, body } = await ucp("search", { query: "tent", filters: { price }, context: { currency: "USD" } }, { raw: true });
          expect(status, JSON.stringify(price)).toBe(400);
          expect(body.messages?.[0]?.path).toBe(path);
        }
      });

      it("a known filter of the wrong type is 400; an unknown one is a message", async () => {
        expect((await ucp("search", { filters: { categories: "Outdoor" } }, { raw: true })).status).toBe(400);
        expect((await ucp("search", { filters: { availability: ["sometimes"] } }, { raw: true })).status).toBe(400);
        expect(codes((await ucp("search", { query: "tent", filters: { rating: { min: 4 } } })).body)).toContain("filter_ignored");
      });

      it("a cursor that was changed or belongs to another query is 400 invalid_cursor", async () => {
        const first = await ucp("search", { query: "tent", pagination: { limit: 1 } });
        const cursor = first.body.pagination?.cursor;
        if (!cursor) throw new Error("the first page of a search for tent has a cursor");
        for (const bad of [`${cursor}x`, "garbage", cursor]) {
          const query = bad === cursor ? "skillet" : "tent";
          const { status, body } = await ucp("search", { query, pagination: { cursor: bad, limit: 1 } });
          expect(status, bad).toBe(400);
          expect(body.messages?.[0]).toMatchObject({ code: "invalid_cursor", path: "$.pagination.cursor" });
        }
      });

      it("a wrong method is 405 with Allow; an identifier that is no id, URL or GTIN is simply not found", async () => {
        const get = await t.app.inject({ method: "GET", url: "/ucp/catalog/search", headers: { authorization: t.key } });
        expect(get.statusCode).toBe(405);
        expect(get.headers.allow).toBe("POST, OPTIONS");
        expectValid(ERROR_RESPONSE, get.json());
        const odd = await ucp("lookup", { ids: ["../../etc/passwd", "x".repeat(2048), "~", "a~", "~b"] });
        expect(odd.body.products).toEqual([]);
      });
    });

    describe("one source: the catalog's services", () => {
      it("search via UCP returns the same products in the same order as the GET API for the same query and filters, page after page", async () => {
        const cases: [{ query?: string; filters?: object; context?: object; pagination?: { limit?: number } }, string][] = [
          [{ query: "tent" }, "q=tent"],
          [{ query: "waterproof jacket", pagination: { limit: 3 } }, "q=waterproof+jacket&limit=3"],
          [{ query: "tent", filters: { price: { max: 40000 } }, context: { currency: "USD" } }, "q=tent&price_max=400.00&currency=USD"],
          [
            { filters: { categories: ["Outdoor"], availability: ["in_stock"] }, pagination: { limit: 4 } },
            "category=Outdoor&availability=in_stock&limit=4",
          ],
          [{ query: "pan", filters: { brands: ["Copperleaf Kitchen"] } }, "q=pan&brand=Copperleaf+Kitchen"],
        ];
        for (const [request, query] of cases) {
          let ucpCursor: string | undefined;
          let getCursor: string | undefined;
          for (let page = 0; page < 3; page++) {
            const viaUcp = await ucp("search", { ...request, pagination: { ...request.pagination, ...(ucpCursor ? { cursor: ucpCursor } : {}) } });
            const limit = request.pagination?.limit ? "" : "&limit=10";
            const viaGet = await t.app.inject({
              url: `/api/v1/products/search?${query}${limit}${getCursor ? `&cursor=${encodeURIComponent(getCursor)}` : ""}`,
              headers: { authorization: t.key },
            });
            const get = viaGet.json<SearchResponse>();
            // The one difference: a record whose page states no price is no UCP product (and the answer says so).
            const priced = get.products.filter((hit) => hit.pdp.id !== UNPRICED_ID);
            expect(get.products.length - priced.length).toBe(codes(viaUcp.body).includes("price_unknown") ? 1 : 0);
            expect(
              viaUcp.body.products.map((product) => product.id),
              `${query} page ${page}`,
            ).toEqual(priced.map((hit) => hit.pdp.id));
            expect(viaUcp.body.pagination?.has_next_page).toBe(get.next_cursor !== undefined);
            ucpCursor = viaUcp.body.pagination?.cursor;
            getCursor = get.next_cursor;
            if (!ucpCursor) break;
          }
        }
      });

      it("costs what the catalog's own operations cost: search 5, lookup 5, product 1; a spent limit is 429 in the envelope", async () => {
        const root = await rootOn(t.database, {
          config: { RATE_LIMIT_PER_MINUTE: 11, RATE_LIMIT_STORE: "memory" },
          clock: () => new Date(Date.UTC(2026, 10, 24, 12)),
        });
        try {
          const app = await root.app();
          const { key } = await t.services.keys.issue({ name: "ucp limits", environment: "dev" });
          const left = (answer: { headers: Record<string, unknown> }) => answer.headers.ratelimit;
          expect(left(await ucp("search", { query: "tent" }, { app, key }))).toBe('"default";r=6;t=60');
          expect(left(await ucp("lookup", { ids: [TENT_ID] }, { app, key }))).toBe('"default";r=1;t=60');
          expect(left(await ucp("product", { id: TENT_ID }, { app, key }))).toBe('"default";r=0;t=60');
          const refused = await ucp("product", { id: TENT_ID }, { app, key });
          expect(refused.status).toBe(429);
          expect(refused.headers["retry-after"]).toBe("60");
          expect(refused.body.messages?.[0]?.code).toBe("rate_limited");
        } finally {
          await root.close();
        }
      });
    });
  },
);
