/**
 * Issue 47, "what an integrator meets": a new integrator drove the service with Spectral, openapi-fetch, Prism,
 * the MCP Inspector and Chromium. Each finding, on a real app over in-memory PGlite.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BatchLookupResponseSchema, ProductEnvelopeSchema, SearchResponseSchema } from "../../shared/schemas/index.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Parameter = { name: string; in: string; description?: string; examples?: Record<string, { value: unknown }>; schema: object };
type Document = {
  servers: { url: string; description?: string }[];
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  components: { schemas: Record<string, { examples?: unknown[] }> };
};

async function openApi(app = t.app): Promise<Document> {
  return (await app.inject({ url: "/openapi.json" })).json();
}

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("item 1: a JSON body sent as text/plain", () => {
  it("is a 415 unsupported_media_type on REST, not a 400 about missing members", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/api/v1/products/lookup",
      headers: { authorization: t.key, "content-type": "text/plain" },
      payload: JSON.stringify({ inputs: [{ sku: "NP-10037" }] }),
    });
    expect(response.statusCode).toBe(415);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 415, code: "unsupported_media_type", detail: expect.stringContaining("application/json") });
  });

  it("is a 415 on tRPC too, with the same machine code, and the document declares it for POST", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/trpc/products.lookup",
      headers: { authorization: t.key, "content-type": "text/plain" },
      payload: JSON.stringify({ inputs: [{ sku: "NP-10037" }] }),
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.data).toMatchObject({ code: "unsupported_media_type", httpStatus: 415 });
    const lookup = (await t.app.inject({ url: "/openapi.json" })).json().paths["/products/lookup"].post;
    expect(Object.keys(lookup.responses)).toContain("415");
  });

  it("is UCP's 415 on its REST binding, as docs/ucp.md says", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/ucp/catalog/search",
      headers: { authorization: t.key, "content-type": "text/plain", "ucp-agent": 'profile="https://platform.example/profile"' },
      payload: JSON.stringify({ query: "tent" }),
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().messages[0].code).toBe("unsupported_media_type");
  });
});

/** A query string as a validating proxy reads it (form style, exploded): a parameter given once is one value; an array parameter's values are its items. */
function proxyReads(query: string, parameters: Parameter[]): Record<string, unknown> {
  const values: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) values[name] = [...(values[name] ?? []), value];
  return Object.fromEntries(
    Object.entries(values).map(([name, given]) => {
      const schema = parameters.find((parameter) => parameter.name === name)?.schema as { type?: string } | undefined;
      return [name, schema?.type === "array" ? given : given[0]];
    }),
  );
}

describe("item 2: the README's facets=brand,price is what /openapi.json describes", () => {
  it("validates the README's searches, and the repeated form, against the document's parameter schemas", async () => {
    const parameters = (await openApi()).paths["/products/search"]?.get?.parameters ?? [];
    const readme = readFileSync("README.md", "utf8");
    const queries = [...readme.matchAll(/\/products\/search\?([^'\s]+)'/g)].map((match) => match[1] ?? "");
    expect(queries.some((query) => query.includes("facets=brand,price"))).toBe(true);
    queries.push("q=tent&facets=brand&facets=price&availability=in_stock,preorder", "q=tent&availability=in_stock&availability=backorder");
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const query of queries) {
      const read = proxyReads(query, parameters);
      for (const [name, value] of Object.entries(read)) {
        const parameter = parameters.find((candidate) => candidate.name === name);
        expect(parameter, `${name} in ${query}`).toBeDefined();
        // Prism coerces scalar values from strings; only the list parameters are checked as the strings they are.
        if (!parameter || (parameter.schema as { type?: string }).type !== "array") continue;
        const validate = ajv.compile(parameter.schema);
        expect(validate(value), `${name}=${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
      // And the server takes it.
      const response = await t.app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: t.key } });
      expect(response.statusCode, `${query}: ${response.body}`).toBe(200);
    }
  });

  it("still refuses a facet the server does not know, in either form", async () => {
    const parameters = (await openApi()).paths["/products/search"]?.get?.parameters ?? [];
    const validate = new Ajv2020({ strict: false }).compile(parameters.find((parameter) => parameter.name === "facets")?.schema ?? {});
    expect(validate(["brand,flavour"])).toBe(false);
    expect(validate(["flavour"])).toBe(false);
  });
});

describe("item 3: the document's servers", () => {
  it("are relative without PUBLIC_URL, and say that a client needs the whole base", async () => {
    const { servers } = await openApi();
    expect(servers.map((server) => server.url)).toEqual(["/api/v1", "/v1"]);
    for (const server of servers) expect(server.description).toContain(`http://127.0.0.1:3000${server.url}`);
  });

  it("are absolute under PUBLIC_URL, which /docs' console may then call", async () => {
    const other = await createTestApp({ config: { PUBLIC_URL: "https://catalog.example.com" } });
    try {
      expect((await openApi(other.app)).servers.map((server) => server.url)).toEqual([
        "https://catalog.example.com/api/v1",
        "https://catalog.example.com/v1",
      ]);
      const docs = await other.app.inject({ url: "/docs" });
      expect(docs.headers["content-security-policy"]).toContain("connect-src 'self' https://catalog.example.com");
    } finally {
      await other.close();
    }
  });
});

describe("item 4: every parameter of every operation is described", () => {
  it("has a description (from its Zod schema) on each parameter in /openapi.json", async () => {
    const { paths } = await openApi();
    const bare = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) =>
        (operation.parameters ?? []).filter((parameter) => !parameter.description?.trim()).map((parameter) => `${method} ${path} ${parameter.name}`),
      ),
    );
    expect(bare).toEqual([]);
    const search = paths["/products/search"]?.get?.parameters ?? [];
    expect(search.find((parameter) => parameter.name === "facets")?.description).toMatch(/brand/);
    expect(paths["/products/changes"]?.get?.parameters?.find((parameter) => parameter.name === "since")?.description).toMatch(/next_cursor/);
  });
});

describe("item 5: /docs' examples", () => {
  it("gives q an example, so the request console's first send is a search, and whole answers as examples", async () => {
    const doc = await openApi();
    const q = doc.paths["/products/search"]?.get?.parameters?.find((parameter) => parameter.name === "q");
    expect(q?.examples).toEqual({ example: { value: "waterproof hiking jacket", "x-disabled": false } });
    const search = await t.app.inject({
      url: `/api/v1/products/search?q=${encodeURIComponent(String(q?.examples?.example?.value))}`,
      headers: { authorization: t.key },
    });
    expect(search.statusCode).toBe(200);
    // Each example is an answer the schema accepts, with a record in it (Scalar showed `"pdp": null`).
    const schemas = { SearchResponse: SearchResponseSchema, ProductEnvelope: ProductEnvelopeSchema, BatchLookupResponse: BatchLookupResponseSchema };
    for (const [name, schema] of Object.entries(schemas)) {
      const [example] = doc.components.schemas[name]?.examples ?? [];
      expect(schema.safeParse(example).success, name).toBe(true);
      expect(JSON.stringify(example), name).toContain('"pdp":{"id":');
    }
  });

  it("configures Scalar without its developer toolbar", async () => {
    const page = (await t.app.inject({ url: "/docs" })).body;
    expect(page).toContain('"showDeveloperTools":"never"');
  });
});

describe("item 7: messages", () => {
  it("words a lookup without url or gtin, or with both, as a sentence after the parameter's name", async () => {
    const neither = (await t.app.inject({ url: "/api/v1/products", headers: { authorization: t.key } })).json();
    expect(neither.detail).toBe("url or gtin is required: give exactly one of them");
    const both = await t.app.inject({ url: "/api/v1/products?url=https://a.example/p&gtin=847391102599", headers: { authorization: t.key } });
    expect(both.json().detail).toBe("gtin cannot be given with url: give exactly one of them");
  });

  it("says a tRPC input's missing member is required, not Zod's own words", async () => {
    const input = encodeURIComponent(JSON.stringify({}));
    const response = await t.app.inject({ url: `/trpc/products.byId?input=${input}`, headers: { authorization: t.key } });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.message).toBe("id is required");
    expect(error.data.errors).toEqual([{ param: "id", message: "is required" }]);
    const none = (await t.app.inject({ url: "/trpc/products.byId", headers: { authorization: t.key } })).json();
    expect(none.error.message).not.toMatch(/Invalid input/);
  });

  it("tells a malformed UCP profile in MCP's meta from a missing one", async () => {
    const call = async (meta: unknown) => {
      const response = await t.app.inject({
        method: "POST",
        url: "/mcp",
        headers: { ...MCP_HEADERS, authorization: t.key },
        payload: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_catalog", arguments: { meta, catalog: { query: "tent" } } } },
      });
      return JSON.stringify(response.json());
    };
    expect(await call({ "ucp-agent": { profile: 42 } })).toMatch(/profile is malformed/);
    expect(await call({ "ucp-agent": { profile: "not a url" } })).toMatch(/profile is malformed/);
    expect(await call({})).toMatch(/profile is required/);
  });

  it("says why a GTIN sent as a number (as the MCP Inspector's CLI sends digits) is refused", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { ...MCP_HEADERS, authorization: t.key },
      payload: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_product_by_url", arguments: { gtin: 847391102599 } } },
    });
    expect(JSON.stringify(response.json())).toMatch(/gtin must be a string of digits, in quotes: a number loses a GTIN's leading zeros/);
  });

  it("names X-API-Key in UCP's 401, where that header is taken", async () => {
    const response = await t.app.inject({
      method: "POST",
      url: "/ucp/catalog/search",
      headers: { "content-type": "application/json", "ucp-agent": 'profile="https://platform.example/profile"' },
      payload: { query: "tent" },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().messages[0].content).toMatch(/X-API-Key/);
  });
});

describe("item 7: wrong methods, unknown paths, HEAD on /trpc", () => {
  it("answers POST /health (and under each prefix) 405 with Allow, as other wrong methods", async () => {
    for (const url of ["/health", "/api/v1/health", "/v1/health"]) {
      const response = await t.app.inject({ method: "POST", url, headers: { authorization: t.key } });
      expect(response.statusCode, url).toBe(405);
      expect(response.headers.allow, url).toBe("GET, HEAD, OPTIONS");
      expect(response.json().code, url).toBe("method_not_allowed");
    }
  });

  it("marks 404 and 405 answers no-store", async () => {
    const answers = [
      await t.app.inject({ url: "/nothing-here" }),
      await t.app.inject({ method: "DELETE", url: "/api/v1/products/search" }),
      await t.app.inject({ method: "POST", url: "/health" }),
      await t.app.inject({ method: "PUT", url: "/trpc/products.byId" }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([404, 405, 405, 405]);
    for (const answer of answers) expect(answer.headers["cache-control"]).toBe("no-store");
  });

  it("answers HEAD /trpc/* without a key 401 and with one as tRPC does (204), never 500", async () => {
    const input = encodeURIComponent(JSON.stringify({ id: "pdp_nothing" }));
    const refused = await t.app.inject({ method: "HEAD", url: `/trpc/products.byId?input=${input}` });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toBe("");
    const keyed = await t.app.inject({ method: "HEAD", url: `/trpc/products.byId?input=${input}`, headers: { authorization: t.key } });
    expect(keyed.statusCode).toBe(204);
    expect(keyed.body).toBe("");
  });
});
