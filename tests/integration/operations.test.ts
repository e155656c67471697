/**
 * The operation table (server/api/operations) is the one declaration of each
 * operation: this walks it and proves that every operation answers on every
 * transport (REST under each prefix, /trpc, MCP) with the same answer, the
 * same problem codes and the same cost. Then the regressions of issue 11:
 * what a request is charged comes from the operation it reached, never from
 * the URL's spelling, and nothing is read of a body before the key is known.
 */
import { request as httpRequest } from "node:http";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../server/api/openapi.js";
import { type AnyOperation, baseOf, operationList } from "../../server/api/operations/index.js";
import { appRouter } from "../../server/api/router.js";
import type { Root } from "../../server/compose.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { ProblemSchema } from "../../shared/schemas/index.js";
import { productUrlKey } from "../../shared/url.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";

const tentUrl = FIXTURE[0]!.url;
const tentId = productIdFromUrlKey(productUrlKey(tentUrl)!);
const PREFIXES = ["/api/v1", "/v1"];
const LIMIT = 1000;

/**
 * For each operation: a valid input, and an invalid one with the problem code it must give. An
 * operation added to the table without an entry here fails the first test.
 */
const SAMPLES: Record<string, { valid: Record<string, unknown>; invalid: Record<string, unknown>; code: string }> = {
  "products.search": { valid: { q: "tent", limit: 3 }, invalid: { q: "tent", limit: 0 }, code: "invalid_parameter" },
  "products.byId": { valid: { id: tentId }, invalid: { id: "pdp_missing" }, code: "not_found" },
  "products.byUrl": { valid: { url: `${tentUrl}?utm_source=x` }, invalid: { url: "not a url" }, code: "invalid_parameter" },
  "products.lookup": {
    valid: { inputs: [{ id: tentId }, { url: tentUrl }, { sku: "nothing" }] },
    invalid: { inputs: [{ gtin: "4006381333932" }] },
    code: "invalid_parameter",
  },
  "products.changes": { valid: { limit: 3 }, invalid: { since: "-1" }, code: "invalid_parameter" },
  "products.similar": { valid: { id: tentId, limit: 2 }, invalid: { id: tentId, limit: 0 }, code: "invalid_parameter" },
  "products.prices": { valid: { id: tentId, since: "2026-01-01" }, invalid: { id: tentId, since: "last week" }, code: "invalid_parameter" },
  "products.offers": { valid: { id: tentId, currency: "usd" }, invalid: { id: tentId, limit: 101 }, code: "invalid_parameter" },
  // The Universal Commerce Protocol's operations (under UCP_BASE): the invalid input's code is its error message's.
  "ucp.search": {
    valid: { query: "tent", pagination: { limit: 3 } },
    invalid: { query: "tent", pagination: { limit: 0 } },
    code: "invalid_parameter",
  },
  "ucp.lookup": {
    valid: { ids: [tentId, tentUrl, "nothing"] },
    invalid: { ids: Array.from({ length: 51 }, (_, i) => `pdp_${i}`) },
    code: "request_too_large",
  },
  "ucp.product": { valid: { id: tentId }, invalid: { id: tentId, selected: [{ name: "Size" }] }, code: "invalid_parameter" },
};
const UCP_AGENT = 'profile="https://platform.example/.well-known/ucp"';

let t: TestApp;
let root: Root;
let app: FastifyInstance;
const clockMs = Date.UTC(2026, 10, 24, 12, 0, 0);

beforeAll(async () => {
  t = await createTestApp();
  root = await rootOn(t.database, { config: { RATE_LIMIT_PER_MINUTE: LIMIT, RATE_LIMIT_STORE: "memory" }, clock: () => new Date(clockMs) });
  app = await root.app();
  await app.ready();
});
afterAll(async () => {
  await root.close();
  await t.close();
});

async function freshKey(): Promise<string> {
  return (await t.services.keys.issue({ name: "operations", environment: "dev" })).key;
}

/** Units this answer says are left, of LIMIT. */
function spent(headers: Record<string, unknown>): number {
  const match = /r=(\d+)/.exec(String(headers.ratelimit));
  if (!match) throw new Error(`no RateLimit header in ${JSON.stringify(headers)}`);
  return LIMIT - Number(match[1]);
}

/** The REST request for an input: path parameters in the path, the rest in the query (GET) or the body (POST). */
function restRequest(operation: AnyOperation, prefix: string, input: Record<string, unknown>) {
  const rest = { ...input };
  const path = operation.rest.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = String(rest[name]);
    delete rest[name];
    return encodeURIComponent(value);
  });
  if (operation.rest.method === "POST") return { method: "POST" as const, url: `${prefix}${path}`, payload: rest };
  const query = new URLSearchParams(Object.entries(rest).map(([name, value]): [string, string] => [name, String(value)]));
  return { method: "GET" as const, url: `${prefix}${path}${query.size ? `?${query}` : ""}` };
}

async function viaRest(operation: AnyOperation, prefix: string, input: Record<string, unknown>, key: string) {
  const answer = await app.inject({ ...restRequest(operation, prefix, input), headers: { authorization: key } });
  return { status: answer.statusCode, body: answer.json<Record<string, unknown>>(), headers: answer.headers };
}

async function viaTrpc(path: string, operation: AnyOperation, input: Record<string, unknown>, key: string) {
  const answer =
    operation.kind === "query"
      ? await app.inject({ url: `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, headers: { authorization: key } })
      : await app.inject({
          method: "POST",
          url: `/trpc/${path}`,
          headers: { authorization: key, "content-type": "application/json" },
          payload: input,
        });
  const body = answer.json<{ result?: { data: unknown }; error?: { data: { code: string } } }>();
  return { status: answer.statusCode, data: body.result?.data, code: body.error?.data.code, headers: answer.headers };
}

async function viaMcp(tool: string, input: Record<string, unknown>, key: string) {
  const answer = await app.inject({
    method: "POST",
    url: "/mcp",
    headers: { authorization: key, "content-type": "application/json", accept: "application/json, text/event-stream" },
    payload: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: input } },
  });
  const result = answer.json<{ result: { structuredContent?: unknown; isError?: boolean; content: { text: string }[] } }>().result;
  const problem = result.isError ? ProblemSchema.parse(JSON.parse(result.content[0]!.text)) : null;
  return { status: answer.statusCode, data: result.structuredContent, code: problem?.code, headers: answer.headers };
}

describe("the operation table", () => {
  it("has a sample for every operation, and every operation is a procedure, a documented path with its cost, and (if declared) a tool", async () => {
    expect(operationList.map((entry) => entry.path).sort()).toEqual(Object.keys(SAMPLES).sort());
    const document = buildOpenApiDocument(PREFIXES);
    const procedures = appRouter._def.procedures as Record<string, unknown>;
    for (const { path, operation } of operationList) {
      const documented = document.paths?.[operation.rest.path]?.[operation.rest.method === "GET" ? "get" : "post"];
      if (baseOf(operation) === "ucp") {
        // UCP publishes the OpenAPI of its binding; these are neither procedures nor in ours.
        expect(procedures[path], path).toBeUndefined();
        expect(documented, path).toBeUndefined();
        continue;
      }
      expect(procedures[path], path).toBeDefined();
      expect(documented, path).toMatchObject({ summary: operation.title, "x-rate-limit-cost": operation.cost });
    }
    const listed = await app.inject({
      method: "POST",
      url: "/mcp",
      headers: { authorization: t.key, "content-type": "application/json", accept: "application/json, text/event-stream" },
      payload: { jsonrpc: "2.0", id: 1, method: "tools/list" },
    });
    const tools = listed.json<{ result: { tools: { name: string }[] } }>().result.tools.map((tool) => tool.name);
    expect(tools).toEqual(operationList.flatMap(({ operation }) => (operation.mcp ? [operation.mcp.tool] : [])));
  });

  it.each(operationList.filter((entry) => baseOf(entry.operation) === "ucp").map((entry) => [entry.path, entry] as const))(
    "%s answers the same on REST (under UCP_BASE) and MCP, refuses the same, and costs the same",
    async (path, { operation }) => {
      const sample = SAMPLES[path]!;
      const rest = async (input: Record<string, unknown>, key: string) => {
        const answer = await app.inject({
          method: "POST",
          url: `/ucp${operation.rest.path}`,
          headers: { authorization: key, "ucp-agent": UCP_AGENT },
          payload: input,
        });
        return { status: answer.statusCode, body: answer.json<{ messages?: { code: string }[] }>(), headers: answer.headers };
      };
      const mcp = async (input: Record<string, unknown>, key: string) => {
        const answer = await app.inject({
          method: "POST",
          url: "/mcp",
          headers: { authorization: key, "content-type": "application/json", accept: "application/json, text/event-stream" },
          payload: {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: operation.mcp!.tool,
              arguments: { meta: { "ucp-agent": { profile: "https://platform.example/.well-known/ucp" } }, catalog: input },
            },
          },
        });
        const body = answer.json<{ result?: { structuredContent: unknown }; error?: { data: { messages: { code: string }[] } } }>();
        return { status: answer.statusCode, data: body.result?.structuredContent, code: body.error?.data.messages[0]?.code, headers: answer.headers };
      };
      const restKey = await freshKey();
      const ok = await rest(sample.valid, restKey);
      expect(ok.status).toBe(200);
      expect(spent(ok.headers)).toBe(operation.cost);
      const refused = await rest(sample.invalid, restKey);
      expect(refused.status).toBe(400);
      const mcpKey = await freshKey();
      const viaTool = await mcp(sample.valid, mcpKey);
      expect(viaTool.status).toBe(200);
      expect(spent(viaTool.headers)).toBe(operation.cost);
      expect(operation.output.parse(viaTool.data)).toEqual(operation.output.parse(ok.body));
      expect([refused.body.messages?.[0]?.code, (await mcp(sample.invalid, mcpKey)).code]).toEqual([sample.code, sample.code]);
    },
  );

  it.each(operationList.filter((entry) => baseOf(entry.operation) === "api").map((entry) => [entry.path, entry] as const))(
    "%s answers the same on REST (each prefix), /trpc and MCP, refuses the same, and costs the same",
    async (path, { operation }) => {
      const sample = SAMPLES[path]!;
      const answers: unknown[] = [];
      const codes: (string | undefined)[] = [];
      for (const prefix of PREFIXES) {
        const key = await freshKey();
        const ok = await viaRest(operation, prefix, sample.valid, key);
        expect(ok.status, `${prefix} ${path}`).toBe(200);
        expect(spent(ok.headers)).toBe(operation.cost);
        answers.push(operation.output.parse(ok.body));
        const refused = await viaRest(operation, prefix, sample.invalid, key);
        codes.push(String(refused.body.code));
      }
      const trpcKey = await freshKey();
      const trpc = await viaTrpc(path, operation, sample.valid, trpcKey);
      expect(trpc.status).toBe(200);
      expect(spent(trpc.headers)).toBe(operation.cost);
      answers.push(operation.output.parse(trpc.data));
      codes.push((await viaTrpc(path, operation, sample.invalid, trpcKey)).code);
      if (operation.mcp) {
        const mcpKey = await freshKey();
        // Tools answer compact records by default; the whole record is compared here.
        const mcp = await viaMcp(operation.mcp.tool, { ...sample.valid, view: "standard" }, mcpKey);
        expect(mcp.status).toBe(200);
        expect(spent(mcp.headers)).toBe(operation.cost);
        answers.push(operation.output.parse(mcp.data));
        codes.push((await viaMcp(operation.mcp.tool, sample.invalid, mcpKey)).code);
      }
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      expect(new Set(codes)).toEqual(new Set([sample.code]));
    },
  );
});

describe("cost comes from the operation reached, never from the URL's spelling (issue 11)", () => {
  async function costOf(url: string, init: { method?: "GET" | "POST"; payload?: unknown; headers?: Record<string, string> } = {}) {
    const key = await freshKey();
    const answer = await app.inject({
      method: init.method ?? "GET",
      url,
      headers: { authorization: key, ...init.headers },
      ...(init.payload === undefined ? {} : { payload: JSON.stringify(init.payload) }),
    });
    return { status: answer.statusCode, cost: answer.headers.ratelimit === undefined ? 0 : spent(answer.headers), answer };
  }
  const searchInput = encodeURIComponent(JSON.stringify({ q: "tent" }));

  it("charges a search its 5 units however its path is spelled", async () => {
    for (const url of [
      "/api/v1/products/searc%68?q=tent",
      "/api/v1/products/search/?q=tent",
      "/v1/products/%73earch?q=tent",
      `/trpc/products.search/?input=${searchInput}`,
      `/%74rpc/products.search?input=${searchInput}`,
      `/trpc/products.searc%68?input=${searchInput}`,
    ]) {
      expect(await costOf(url), url).toMatchObject({ status: 200, cost: 5 });
    }
  });

  it("charges what the path reached: an upper-case segment is another route or none", async () => {
    // `SEARCH` is an id here (a lookup, not found); `/PRODUCTS/` is no route at all, answered and charged nothing.
    expect(await costOf("/api/v1/products/SEARCH?q=tent")).toMatchObject({ status: 404, cost: 1 });
    expect(await costOf("/api/v1/PRODUCTS/search?q=tent")).toMatchObject({ status: 404, cost: 0 });
    expect(await costOf(`/TRPC/products.search?input=${searchInput}`)).toMatchObject({ status: 404, cost: 0 });
  });

  it("charges a tRPC batch the sum of its calls, and refuses a batch over MAX_BATCH_CALLS with 400 before charging", async () => {
    const batch = (n: number, name = "products.search") => {
      const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { q: "tent" }]))));
      return `/%74rpc/${Array.from({ length: n }, () => name).join(",")}?batch=1&input=${input}`;
    };
    expect(await costOf(batch(3))).toMatchObject({ status: 200, cost: 15 });
    expect(await costOf(batch(10))).toMatchObject({ status: 200, cost: 50 });
    const refused = await costOf(batch(11));
    expect(refused).toMatchObject({ status: 400, cost: 0 });
    expect(refused.answer.json()).toMatchObject({
      error: { message: "Batch call exceeds maximum size", data: { code: "invalid_parameter", httpStatus: 400 } },
    });
    // A path that routes to no procedure costs a unit, and is answered not found.
    expect(await costOf(`/trpc/products.nothing?input=${searchInput}`)).toMatchObject({ status: 404, cost: 1 });
  });

  it("charges an MCP batch the sum of its messages, and refuses a batch over MAX_BATCH_CALLS", async () => {
    const message = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    const mcp = (payload: unknown) =>
      costOf("/mcp", {
        method: "POST",
        payload,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      }).then(async (result) => {
        const { answer } = result;
        return { ...result, answer: answer.statusCode === 200 ? answer.json<unknown[]>() : answer.json<unknown>() };
      });
    const lists = await mcp(Array.from({ length: 4 }, (_, i) => message(i, "tools/list")));
    expect(lists).toMatchObject({ status: 200, cost: 4 });
    expect(lists.answer).toHaveLength(4);
    const mixed = await mcp([message(1, "tools/list"), message(2, "tools/call", { name: "search_products", arguments: { q: "tent" } })]);
    expect(mixed).toMatchObject({ status: 200, cost: 6 });
    const refused = await mcp(Array.from({ length: 11 }, (_, i) => message(i, "tools/list")));
    expect(refused).toMatchObject({ status: 400, cost: 0 });
    expect(refused.answer).toMatchObject({
      error: { code: -32600, data: { code: "invalid_parameter", detail: expect.stringContaining("at most 10") } },
    });
  });
});

describe("nothing of a body is read before the key is known (issue 11)", () => {
  let base: URL;
  beforeAll(async () => {
    base = new URL(await app.listen({ host: "127.0.0.1", port: 0 }));
  });

  /**
   * Sends the headers of a 1 MiB body and only its first KiB, then waits for the answer: a server
   * that parsed the body before answering could not answer, since the body never arrives whole.
   */
  function answerBeforeBody(method: string, path: string, authorization?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: { "content-type": "application/json", "content-length": String(1 << 20), ...(authorization ? { authorization } : {}) },
        },
        (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => {
            body += chunk.toString();
          });
          res.on("end", () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        },
      );
      req.on("error", reject);
      req.write(`[${"[".repeat(1023)}`);
    });
  }

  it("answers 401, 405 and 404 to a 1 MiB body whose end never comes", async () => {
    expect(await answerBeforeBody("POST", "/mcp")).toMatchObject({ status: 401 });
    expect(await answerBeforeBody("POST", "/mcp", "pcl_test_4sbSt6nUYeRZeFLjwmD4kKuUQY2t8GLHqHrPZDSZgNH1ZKaP")).toMatchObject({ status: 401 });
    const trpc = await answerBeforeBody("POST", "/trpc/products.search");
    expect(trpc.status).toBe(401);
    // In tRPC's own shape, for tRPC clients.
    expect(JSON.parse(trpc.body)).toMatchObject({ error: { data: { code: "unauthorized", httpStatus: 401 } } });
    expect(await answerBeforeBody("POST", "/api/v1/products/search")).toMatchObject({ status: 405 });
    expect(await answerBeforeBody("PUT", "/mcp")).toMatchObject({ status: 405 });
    expect(await answerBeforeBody("POST", "/nowhere")).toMatchObject({ status: 404 });
  });
});

describe("path ids are decoded once (issue 11)", () => {
  it("refuses an id that would only be valid decoded twice", async () => {
    const answer = await app.inject({ url: "/api/v1/products/abc%2541", headers: { authorization: t.key } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: "invalid_parameter", errors: [{ param: "id" }] });
  });
});
