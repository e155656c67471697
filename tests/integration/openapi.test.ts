import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { restRoutes } from "../../server/api/http/rest.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("/openapi.json", () => {
  it("is a valid OpenAPI 3.x document listing every path and both prefixes as servers", async () => {
    const response = await t.app.inject({ url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toMatch(/^3\./);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.servers).toEqual([
      { url: "/api/v1", description: expect.stringContaining("http://127.0.0.1:3000/api/v1"), "x-internal": false },
      { url: "/v1", description: expect.stringContaining("http://127.0.0.1:3000/v1"), "x-internal": false },
    ]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/health",
      "/products",
      "/products/changes",
      "/products/lookup",
      "/products/search",
      "/products/{id}",
      "/products/{id}/offers",
      "/products/{id}/prices",
      "/products/{id}/similar",
    ]);
  });

  it("issue 12, item 11: sends clients to /health under the prefixes, where it is served", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    // No path-level servers: generated clients (openapi-fetch, Prism, /docs) ignore them and use the document's.
    expect(doc.paths["/health"].servers).toBeUndefined();
    for (const { url } of doc.servers as { url: string }[]) {
      expect((await t.app.inject({ url: `${url}/health`, headers: { authorization: t.key } })).statusCode, url).toBe(200);
    }
    expect((await t.app.inject({ url: "/health", headers: { authorization: t.key } })).statusCode).toBe(200);
    const health = doc.paths["/health"].get.responses;
    expect(Object.keys(health).sort()).toEqual(["200", "401", "429", "500", "503", "default"]);
    expect(doc.security).toEqual([{ ApiKey: [] }]);
  });

  it("issue 12, item 11: declares 304, the caching and ranking headers, 1/0 for include_raw_data and a bounded brand_url", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    for (const path of ["/products/search", "/products/{id}", "/products"]) {
      const { responses, parameters } = doc.paths[path].get;
      expect(Object.keys(responses["304"].headers), path).toEqual(expect.arrayContaining(["ETag", "Cache-Control", "X-Request-Id"]));
      expect(Object.keys(responses["200"].headers), path).toEqual(expect.arrayContaining(["ETag", "Cache-Control", "RateLimit", "RateLimit-Policy"]));
      expect(
        parameters.map((p: { name: string }) => p.name),
        path,
      ).toContain("If-None-Match");
      const raw = parameters.find((p: { name: string }) => p.name === "include_raw_data").schema;
      expect(raw.type, path).toBeUndefined();
      expect(raw.anyOf, path).toEqual([{ type: "boolean" }, { type: "integer", format: "int32", minimum: 0, maximum: 1 }]);
    }
    expect(doc.paths["/products/search"].get.responses["200"].headers["X-Rerank"]).toBeDefined();
    const brand = doc.paths["/products/search"].get.parameters.find((p: { name: string }) => p.name === "brand_url");
    expect(brand.schema.maxLength).toBe(2048);
    const long = await t.app.inject({
      url: `/api/v1/products/search?q=tent&brand_url=${"a".repeat(10_000)}.example`,
      headers: { authorization: t.key },
    });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors).toEqual([{ param: "brand_url", message: "must be at most 2048 characters" }]);
  });

  it("documents the parameters, the API key and the problem shape", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    const search = doc.paths["/products/search"].get;
    const params = Object.fromEntries(search.parameters.map((p: { name: string; required?: boolean; schema: unknown }) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(
      [
        "If-None-Match",
        "audience",
        "availability",
        "brand",
        "brand_url",
        "category",
        "collapse",
        "colour",
        "currency",
        "cursor",
        "exclude",
        "explain",
        "facets",
        "include_raw_data",
        "limit",
        "material",
        "parse_query",
        "price_max",
        "price_min",
        "q",
        "sort",
        "synonyms",
        "typos",
        "updated_since",
        "view",
      ].sort(),
    );
    // Optional since filters alone browse (issue 13).
    expect(params.q.required).toBeFalsy();
    expect(params.sort.schema).toMatchObject({ enum: ["relevance", "price_asc", "price_desc", "newest"] });
    expect(params.updated_since.schema).toMatchObject({ type: "string", format: "date-time" });
    // Issue 18: a withdrawn product is a 410 problem on both lookups.
    expect(Object.keys(doc.paths["/products/{id}"].get.responses)).toContain("410");
    expect(Object.keys(doc.paths["/products"].get.responses)).toContain("410");
    expect(params.limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(params.include_raw_data.schema).toMatchObject({ default: false });
    // Typo correction is on unless a client turns it off (issue 15).
    expect(params.typos.schema).toMatchObject({ default: true });
    expect(search.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "Authorization" });
    expect(search.responses["400"].content["application/problem+json"].schema.$ref).toBe("#/components/schemas/Problem");
    expect(doc.components.schemas.Problem.properties.code.enum).toContain("invalid_parameter");
  });

  it("documents the rate limit: 429 with Retry-After, and the RateLimit headers on every answer", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    for (const path of ["/products/search", "/products/{id}", "/products"]) {
      const responses = doc.paths[path].get.responses;
      expect(responses["429"].content["application/problem+json"].schema.$ref, path).toBe("#/components/schemas/Problem");
      expect(Object.keys(responses["429"].headers), path).toEqual(
        expect.arrayContaining(["RateLimit", "RateLimit-Policy", "Retry-After", "X-Request-Id", "Cache-Control"]),
      );
      expect(Object.keys(responses["200"].headers), path).toEqual(expect.arrayContaining(["RateLimit", "RateLimit-Policy", "X-Request-Id"]));
    }
  });

  it("serves exactly the documented paths, under every prefix", async () => {
    const doc = (await t.app.inject({ url: "/openapi.json" })).json();
    const documented = Object.entries(doc.paths)
      .filter(([path]) => path !== "/health")
      .map(([path, item]) => `${Object.keys(item as object).join()} ${path.replace(/\{(\w+)\}/g, ":$1")}`);
    expect(
      restRoutes([""])
        .map((route) => `${route.method.toLowerCase()} ${route.url}`)
        .sort(),
    ).toEqual(documented.sort());
    for (const prefix of ["/api/v1", "/v1"]) {
      const wrongMethod = await t.app.inject({ method: "POST", url: `${prefix}/products/search?q=tent`, headers: { authorization: t.key } });
      expect(wrongMethod.statusCode).toBe(405);
      expect(wrongMethod.headers.allow).toBe("GET, HEAD, OPTIONS");
      expect(wrongMethod.json()).toMatchObject({ code: "method_not_allowed", status: 405 });
    }
  });

  it("follows API_PREFIXES", async () => {
    const custom = await createTestApp({ config: { API_PREFIXES: ["/catalog/v2"] } });
    try {
      const doc = (await custom.app.inject({ url: "/openapi.json" })).json();
      expect(doc.servers).toEqual([{ url: "/catalog/v2", description: expect.stringContaining("/catalog/v2"), "x-internal": false }]);
      const ok = await custom.app.inject({ url: "/catalog/v2/products/search?q=tent", headers: { authorization: custom.key } });
      expect(ok.statusCode).toBe(200);
      expect((await custom.app.inject({ url: "/api/v1/products/search?q=tent", headers: { authorization: custom.key } })).statusCode).toBe(404);
    } finally {
      await custom.close();
    }
  });
});
