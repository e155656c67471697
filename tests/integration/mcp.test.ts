/**
 * MCP over Streamable HTTP at /mcp on a real server, driven by the SDK's own
 * client: each tool answers exactly what REST answers for the same request,
 * refuses what REST refuses with the same problem, and costs what REST costs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Root } from "../../server/compose.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";
import { ProblemSchema, type Problem } from "../../shared/schemas/index.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { FIXTURE, MCP_TOOL_NAMES } from "../helpers/catalog.js";

const tentUrl = FIXTURE[0]!.url;
const tentId = productIdFromUrlKey(productUrlKey(tentUrl)!);
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let t: TestApp;
let baseUrl: string;
let client: Client;

function connect(key: string | null): Promise<Client> {
  const mcp = new Client({ name: "catalog-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: key ? { authorization: key } : {} } });
  return mcp.connect(transport).then(() => mcp);
}

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  client = await connect(t.key);
});
afterAll(async () => {
  await client.close();
  await t.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return CallToolResultSchema.parse(await client.callTool({ name, arguments: args }));
}

/** The REST path that asks what a tool call asks: tools answer compact records unless raw data is wanted. */
function asTool(path: string, args: Record<string, unknown>): string {
  if (args.include_raw_data === true || args.view !== undefined) return path;
  return `${path}${path.includes("?") ? "&" : "?"}view=compact`;
}

async function rest(path: string) {
  const answer = await t.app.inject({ method: "GET", url: `/api/v1${path}`, headers: { authorization: t.key } });
  return { status: answer.statusCode, body: answer.json<Record<string, unknown>>() };
}

function text(result: CallToolResult): string {
  const [first] = result.content;
  if (first?.type !== "text") throw new Error(`expected text content, got ${JSON.stringify(result.content)}`);
  return first.text;
}

function problemOf(result: CallToolResult): Problem {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return ProblemSchema.parse(JSON.parse(text(result)));
}

/** A problem without its request id, which differs between any two requests. */
function sameProblem(body: unknown): Omit<Problem, "request_id"> {
  const { request_id: _, ...rest } = ProblemSchema.parse(body);
  return rest;
}

/** One JSON-RPC message POSTed as it is, for what the SDK client hides: status, headers, problem bodies. */
function post(app: FastifyInstance, key: string | null, message: Record<string, unknown>) {
  return app.inject({
    method: "POST",
    url: "/mcp",
    headers: { ...MCP_HEADERS, ...(key ? { authorization: key } : {}) },
    payload: { jsonrpc: "2.0", id: 1, ...message },
  });
}

const toolCall = (name: string, args: Record<string, unknown>) => ({ method: "tools/call", params: { name, arguments: args } });

describe("MCP tools over Streamable HTTP", () => {
  it("lists the tools with typed input schemas, output schemas and read-only annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(MCP_TOOL_NAMES);
    const [search, byId, byUrl] = tools;
    // The REST schemas without their query-string preprocessing: JSON integers and booleans.
    expect(search!.inputSchema.properties).toMatchObject({
      q: { type: "string", minLength: 1, maxLength: 512 },
      brand_url: { type: "string" },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
      include_raw_data: { type: "boolean", default: false },
    });
    // q is optional: filters alone browse (issue 13).
    expect(search!.inputSchema.required).toBeUndefined();
    expect(search!.inputSchema.properties).toMatchObject({
      view: { default: "compact" },
      sort: { enum: ["relevance", "price_asc", "price_desc", "newest"] },
    });
    expect(byId!.inputSchema.properties).toMatchObject({ id: { type: "string" }, include_raw_data: { type: "boolean" } });
    expect(byId!.inputSchema.required).toEqual(["id"]);
    expect(byUrl!.inputSchema.properties).toMatchObject({
      url: { type: "string", maxLength: 2048 },
      include_raw_data: { type: "boolean" },
      fetch: { type: "boolean", default: false },
    });
    // url or gtin, exactly one (issue 13): neither is required alone.
    expect(byUrl!.inputSchema.required).toBeUndefined();
    expect(search!.outputSchema).toMatchObject({ type: "object", required: ["products"] });
    expect(byId!.outputSchema).toMatchObject({ type: "object", required: ["pdp"] });
    // By GTIN the answer also holds the product's offers at every merchant (issue 50); the record is the same.
    expect(byUrl!.outputSchema).toMatchObject({ type: "object", required: ["pdp"], properties: { offers: { type: "array" } } });
    expect(byUrl!.outputSchema!.properties!.pdp).toEqual(byId!.outputSchema!.properties!.pdp);
    for (const tool of tools) {
      // Only a live lookup (get_product_by_url with fetch) reaches outside the catalog, to a merchant's page.
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: tool === byUrl });
      expect(tool.description!.length).toBeGreaterThan(100);
      for (const property of Object.values(tool.inputSchema.properties ?? {})) expect(property).toHaveProperty("description");
    }
  });

  it("answers every tool with exactly the REST answer, as structured content and as text", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["search_products", { q: "cast iron pan", limit: 3 }, "/products/search?q=cast+iron+pan&limit=3"],
      [
        "search_products",
        { q: "tent", brand_url: "northpeak.example", include_raw_data: true },
        "/products/search?q=tent&brand_url=northpeak.example&include_raw_data=true",
      ],
      ["search_products", { q: "kettle", brand_url: "unknown-brand.example" }, "/products/search?q=kettle&brand_url=unknown-brand.example"],
      ["get_product_by_id", { id: tentId }, `/products/${tentId}`],
      ["get_product_by_id", { id: tentId, include_raw_data: true }, `/products/${tentId}?include_raw_data=true`],
      ["get_product_offers", { id: tentId }, `/products/${tentId}/offers`],
      ["get_product_by_url", { url: `${tentUrl}?utm_source=newsletter` }, `/products?url=${encodeURIComponent(`${tentUrl}?utm_source=newsletter`)}`],
    ];
    for (const [name, args, path] of cases) {
      const result = await call(name, args);
      const expected = await rest(asTool(path, args));
      expect(expected.status).toBe(200);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(expected.body);
      expect(JSON.parse(text(result))).toEqual(expected.body);
    }
    const search = await call("search_products", { q: "cast iron pan", limit: 3 });
    expect((search.structuredContent as { products: { pdp: { name: string } }[] }).products[0]!.pdp.name).toBe("Cast Iron Skillet 26 cm");
    // Compact by default (agents pay per token); the whole record when asked.
    const compact = await call("get_product_by_id", { id: tentId });
    expect(Object.keys((compact.structuredContent as { pdp: object }).pdp).sort()).toEqual(
      // checked_at: how fresh the price and availability are (issue 18).
      ["availability", "brand", "checked_at", "currency", "id", "image", "name", "price", "price_label", "product_group", "url"].sort(),
    );
    const standard = await call("get_product_by_id", { id: tentId, view: "standard" });
    expect(standard.structuredContent).toEqual((await rest(`/products/${tentId}`)).body);
  });

  it("answers bad arguments with the REST problem as a tool error: same code, detail and errors", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["search_products", { q: "tent", limit: 0 }, "/products/search?q=tent&limit=0"],
      ["search_products", { q: "tent", limit: 101 }, "/products/search?q=tent&limit=101"],
      ["search_products", {}, "/products/search"],
      ["search_products", { q: "   " }, "/products/search?q=+++"],
      ["search_products", { q: "tent", brand_url: "not a domain" }, "/products/search?q=tent&brand_url=not+a+domain"],
      ["get_product_by_id", { id: "bad id!" }, `/products/${encodeURIComponent("bad id!")}`],
      ["get_product_by_url", { url: "not a url" }, "/products?url=not+a+url"],
      ["get_product_by_url", { url: "ftp://northpeak.example/x" }, `/products?url=${encodeURIComponent("ftp://northpeak.example/x")}`],
    ];
    for (const [name, args, path] of cases) {
      const problem = problemOf(await call(name, args));
      const expected = await rest(asTool(path, args));
      expect(expected.status).toBe(400);
      expect(problem.code).toBe("invalid_parameter");
      expect(sameProblem(problem)).toEqual(sameProblem(expected.body));
    }
    expect(problemOf(await call("search_products", { q: "tent", limit: 0 }))).toMatchObject({
      detail: "limit must be an integer from 1 to 100",
      errors: [{ param: "limit", message: "must be an integer from 1 to 100" }],
    });
  });

  it("answers an unknown id or URL with not_found as a tool error, and an unknown tool as a protocol error", async () => {
    const missing = problemOf(await call("get_product_by_id", { id: "pdp_missing" }));
    expect(missing).toMatchObject({ code: "not_found", status: 404 });
    expect(sameProblem(missing)).toEqual(sameProblem((await rest("/products/pdp_missing")).body));
    const elsewhere = problemOf(await call("get_product_by_url", { url: "https://nowhere.example/p/1" }));
    expect(elsewhere).toMatchObject({ code: "not_found", detail: "No product at that URL." });
    expect(missing.request_id).toMatch(/^req_/);
    await expect(client.callTool({ name: "delete_everything", arguments: {} })).rejects.toThrow(/No tool delete_everything/);
    // Issue 12, item 14: the SDK's client prefixes the code itself; the server's message must not carry it too.
    const refused = await client.callTool({ name: "delete_everything", arguments: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/^MCP error -32602: No tool delete_everything; the tools are search_products, /);
    expect((refused as Error).message.match(/MCP error/g)).toHaveLength(1);
  });

  it("answers with the request id and the key's RateLimit headers", async () => {
    const answer = await post(t.app, t.key, { ...toolCall("get_product_by_id", { id: tentId }), id: 7 });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["x-request-id"]).toMatch(/^req_/);
    expect(answer.headers["ratelimit-policy"]).toBe('"default";q=600;w=60');
    expect(answer.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    const body = answer.json<{ id: number; result: CallToolResult }>();
    expect(body.id).toBe(7);
    expect(body.result.structuredContent).toEqual((await rest(`/products/${tentId}?view=compact`)).body);
  });
});

/** A UCP REST call: what the UCP tool's answer is compared with. */
async function ucpRest(path: string, body: unknown) {
  const answer = await t.app.inject({
    method: "POST",
    url: `/ucp/catalog/${path}`,
    headers: { authorization: t.key, "ucp-agent": `profile="${UCP_PROFILE}"` },
    payload: body as Record<string, unknown>,
  });
  return { status: answer.statusCode, body: answer.json<Record<string, unknown>>() };
}

const UCP_PROFILE = "https://platform.example/.well-known/ucp";

describe("the Universal Commerce Protocol's tools through the SDK's client (docs/ucp.md)", () => {
  const meta = { "ucp-agent": { profile: UCP_PROFILE } };

  it("lists search_catalog, lookup_catalog and get_product with {meta, catalog} arguments and output schemas", async () => {
    const { tools } = await client.listTools();
    for (const name of ["search_catalog", "lookup_catalog", "get_product"]) {
      const tool = tools.find((entry) => entry.name === name);
      expect(tool?.inputSchema.required, name).toEqual(["meta", "catalog"]);
      expect(tool?.outputSchema?.type, name).toBe("object");
    }
  });

  it("calls each and gets what the REST binding answers (the client checks structuredContent against the tool's output schema)", async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ["search_catalog", "search", { query: "tent", pagination: { limit: 3 } }],
      ["lookup_catalog", "lookup", { ids: [tentId, tentUrl, "nothing-here"] }],
      ["get_product", "product", { id: tentId }],
      ["get_product", "product", { id: "pdp_nothing_here" }],
    ];
    for (const [name, path, catalog] of cases) {
      const result = await call(name, { meta, catalog });
      expect(result.isError, name).toBeFalsy();
      const expected = await ucpRest(path, catalog);
      expect(expected.status).toBe(200);
      expect(result.structuredContent, `${name} ${JSON.stringify(catalog)}`).toEqual(expected.body);
      expect(JSON.parse(text(result))).toEqual(expected.body);
    }
  });

  it("refuses invalid arguments, an oversized batch and a missing profile with JSON-RPC errors, as the binding says", async () => {
    const refused = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }).then(
        () => null,
        (error: unknown) => error,
      );
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["search_catalog", { meta, catalog: { query: "tent", filters: { price: { min: -1 } }, context: { currency: "USD" } } }, /^MCP error -32602: /],
      ["lookup_catalog", { meta, catalog: { ids: Array.from({ length: 51 }, (_, i) => `pdp_${i}`) } }, /^MCP error -32602: ids may hold at most 50/],
      ["search_catalog", { catalog: { query: "tent" } }, /^MCP error -32001: /],
    ];
    for (const [name, args, message] of cases) {
      const error = await refused(name, args);
      expect(error, name).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe("/mcp refuses as the rest of the API does", () => {
  it("answers a missing, malformed or unknown key with 401 and a JSON-RPC error holding the usual problem", async () => {
    for (const key of [null, "not-a-key", "pcl_test_4sbSt6nUYeRZeFLjwmD4kKuUQY2t8GLHqHrPZDSZgNH1ZKaP"]) {
      const answer = await post(t.app, key, {
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      });
      expect(answer.statusCode).toBe(401);
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(answer.headers["www-authenticate"]).toBe('Bearer realm="product-catalog"');
      expect(answer.headers["x-request-id"]).toMatch(/^req_/);
      expect(answer.headers.ratelimit).toBeUndefined();
      // The UCP MCP binding: transport errors are JSON-RPC errors (-32000), the HTTP status the primary signal.
      expect(answer.json()).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, data: { code: "unauthorized", status: 401, request_id: answer.headers["x-request-id"] } },
      });
    }
    await expect(connect(null)).rejects.toThrow(/401/);
  });

  it("refuses a revoked key", async () => {
    const { key } = await t.services.keys.issue({ name: "soon revoked", environment: "dev" });
    expect((await post(t.app, key, toolCall("get_product_by_id", { id: tentId }))).statusCode).toBe(200);
    await t.services.keys.revoke(key);
    const refused = await post(t.app, key, toolCall("get_product_by_id", { id: tentId }));
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ error: { message: "The API key has been revoked.", data: { code: "unauthorized" } } });
  });

  it("answers GET and DELETE with 405: stateless, there is no event stream and no session", async () => {
    for (const method of ["GET", "DELETE"] as const) {
      const answer = await t.app.inject({ method, url: "/mcp", headers: { authorization: t.key, accept: "text/event-stream" } });
      expect(answer.statusCode).toBe(405);
      expect(answer.headers.allow).toBe("POST, OPTIONS");
      expect(answer.headers["x-request-id"]).toMatch(/^req_/);
      expect(answer.json()).toMatchObject({ code: "method_not_allowed", detail: expect.stringContaining("stateless") });
    }
  });
});

describe("rate limits on /mcp", () => {
  let limitedRoot: Root;
  let limited: FastifyInstance;
  beforeAll(async () => {
    limitedRoot = await rootOn(t.database, {
      config: { API_PREFIXES: ["/api/v1"], RATE_LIMIT_PER_MINUTE: 12, RATE_LIMIT_STORE: "memory" },
      clock: () => new Date(Date.UTC(2026, 10, 21, 12, 0, 0)),
    });
    limited = await limitedRoot.app();
    await limited.ready();
  });
  afterAll(() => limitedRoot.close());

  it("charges a search through MCP what a REST search costs, a lookup a lookup, and protocol messages a lookup", async () => {
    const { key } = await t.services.keys.issue({ name: "mcp limits", environment: "dev" });
    const remaining = (answer: { headers: Record<string, unknown> }) => answer.headers.ratelimit;
    expect(remaining(await post(limited, key, toolCall("search_products", { q: "tent" })))).toBe('"default";r=7;t=60');
    expect(remaining(await post(limited, key, toolCall("get_product_by_id", { id: tentId })))).toBe('"default";r=6;t=60');
    expect(remaining(await post(limited, key, { method: "tools/list" }))).toBe('"default";r=5;t=60');
    const restSearch = await limited.inject({ method: "GET", url: "/api/v1/products/search?q=tent", headers: { authorization: key } });
    expect(remaining(restSearch)).toBe('"default";r=0;t=60');

    // Nothing left: a search is refused like a REST one, before any MCP handling.
    const refused = await post(limited, key, toolCall("search_products", { q: "tent" }));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("60");
    expect(refused.headers["content-type"]).toMatch(/^application\/json/);
    expect(refused.json()).toMatchObject({ error: { code: -32000, data: { code: "rate_limited", status: 429, retry_after: 60 } } });
  });
});
