import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabase } from "../helpers/database.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";
import { ProblemSchema, ProductEnvelopeSchema, ProductSchema, SearchResponseSchema } from "../../shared/schemas/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const tentUrl = FIXTURE[0]!.url;
const tentId = productIdFromUrlKey(productUrlKey(tentUrl)!);

function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: "GET", url, headers: { authorization: t.key, ...headers } });
}

function expectProblem(response: Awaited<ReturnType<typeof get>>, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  const body = ProblemSchema.parse(response.json());
  expect(body).toMatchObject({ status, code });
  expect(body.request_id).toBe(response.headers["x-request-id"]);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|node_modules|TRPCError|ZodError/);
  return body;
}

describe.each(["/api/v1", "/v1"])("REST under %s", (prefix) => {
  it("searches and ranks the best match first", async () => {
    const response = await get(`${prefix}/products/search?q=backpacking%20tent`);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    const body = SearchResponseSchema.parse(response.json());
    expect(body.products[0]?.pdp.name).toBe("Alpine 2 Backpacking Tent");
    expect(body.products[0]?.pdp).not.toHaveProperty("raw_data");
  });

  it("answers only products that match: nothing is an answer, and limit is a maximum (issue 13)", async () => {
    const nothing = await get(`${prefix}/products/search?q=zzzz%20qqqq`);
    expect(nothing.statusCode).toBe(200);
    expect(nothing.json()).toEqual({ products: [] });
    const pans = SearchResponseSchema.parse((await get(`${prefix}/products/search?q=lid%20pan&limit=5`)).json());
    expect(pans.products.map((p) => p.pdp.name).sort()).toEqual(["Cast Iron Skillet 26 cm", "Stainless Steel Saucepan 2 L"]);
    const one = SearchResponseSchema.parse((await get(`${prefix}/products/search?q=lid%20pan&limit=1`)).json());
    expect(one.products).toHaveLength(1);
  });

  it("scopes search to a brand's host however brand_url is written", async () => {
    for (const brand of [
      "copperleafkitchen.example",
      "https://WWW.CopperleafKitchen.example:8443/any/path?x=1",
      "http://copperleafkitchen.example",
    ]) {
      const body = SearchResponseSchema.parse((await get(`${prefix}/products/search?q=lid%20pan&brand_url=${encodeURIComponent(brand)}`)).json());
      expect(body.products.map((p) => ProductSchema.parse(p.pdp).brands[0])).toEqual(["Copperleaf Kitchen", "Copperleaf Kitchen"]);
    }
    const unknown = await get(`${prefix}/products/search?q=lid%20pan&brand_url=nobody.example`);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual({ products: [] });
  });

  it("gets a product by id, with raw_data only when asked", async () => {
    const plain = await get(`${prefix}/products/${tentId}`);
    expect(plain.statusCode).toBe(200);
    const record = ProductSchema.parse(ProductEnvelopeSchema.parse(plain.json()).pdp);
    expect(record).toMatchObject({ id: tentId, url: tentUrl, name: "Alpine 2 Backpacking Tent", brands: ["NorthPeak"], price_label: "$349.00" });
    expect(record.media).toEqual([
      { url: "https://cdn.northpeak.example/alpine-2.jpg", type: "image" },
      { url: "https://cdn.northpeak.example/alpine-2.mp4", type: "video" },
    ]);
    expect(Object.keys(plain.json().pdp)).not.toContain("raw_data");

    for (const on of ["true", "1"]) {
      const raw = (await get(`${prefix}/products/${tentId}?include_raw_data=${on}`)).json();
      expect(raw.pdp.raw_data).toEqual(FIXTURE[0]!.raw_data);
    }
    for (const off of ["false", "0"]) {
      expect(Object.keys((await get(`${prefix}/products/${tentId}?include_raw_data=${off}`)).json().pdp)).not.toContain("raw_data");
    }
  });

  it("fills raw_data members with null for a product imported without them", async () => {
    const id = productIdFromUrlKey(productUrlKey(FIXTURE[1]!.url)!);
    const body = (await get(`${prefix}/products/${id}?include_raw_data=true`)).json();
    expect(body.pdp.raw_data).toEqual({ strippedHtml: null, jsons: { ld_json: null, props_data: null } });
  });

  it("answers 404 for an unknown id", async () => {
    expectProblem(await get(`${prefix}/products/pdp_nothing_here`), 404, "not_found");
  });

  it("finds a product by URL whatever its tracking parameters, scheme, www and trailing slash", async () => {
    for (const variant of [
      tentUrl,
      "http://northpeak.example/products/alpine-2-tent/",
      "https://WWW.NORTHPEAK.EXAMPLE:443/products/alpine-2-tent?utm_source=x&gclid=1#reviews",
    ]) {
      const response = await get(`${prefix}/products?url=${encodeURIComponent(variant)}`);
      expect(response.statusCode, variant).toBe(200);
      expect(response.json().pdp.id).toBe(tentId);
    }
    const bag = await get(
      `${prefix}/products?url=${encodeURIComponent("https://northpeak.example/products/down-sleeping-bag?variant=long&utm_medium=email")}`,
    );
    expect(bag.json().pdp.name).toBe("Summit Down Sleeping Bag, Long");
    expectProblem(
      await get(`${prefix}/products?url=${encodeURIComponent("https://northpeak.example/products/down-sleeping-bag?variant=short")}`),
      404,
      "not_found",
    );
  });

  it("matches /products/search before /products/{id}", async () => {
    const response = await get(`${prefix}/products/search?q=skillet`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveProperty("products");
  });
});

describe("bad input gets a 400 naming the parameter", () => {
  it.each([
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=101", "limit"],
    ["limit=2.5", "limit"],
    ["limit=abc", "limit"],
    ["include_raw_data=maybe", "include_raw_data"],
    ["", "q"],
    ["q=", "q"],
    ["q=%20%20", "q"],
    [`q=${"x".repeat(513)}`, "q"],
    ["q=a&q=b", "q"],
    ["brand_url=%25%25%25", "brand_url"],
  ])("search?q=tent&%s", async (query, param) => {
    const url = query.startsWith("q=") || query === "" ? `/api/v1/products/search?${query}` : `/api/v1/products/search?q=tent&${query}`;
    const body = expectProblem(await get(url), 400, "invalid_parameter");
    expect(body.errors?.map((e) => e.param)).toEqual([param]);
    expect(body.detail).toContain(param);
  });

  it("reports every bad parameter at once", async () => {
    const body = expectProblem(await get("/api/v1/products/search?limit=0&include_raw_data=maybe"), 400, "invalid_parameter");
    expect(body.errors?.map((e) => e.param).sort()).toEqual(["include_raw_data", "limit", "q"]);
  });

  it.each([
    ["", "url"],
    ["url=not-a-url", "url"],
    ["url=ftp%3A%2F%2Fx.example%2Fa", "url"],
    ["url=%2Frelative", "url"],
    [`url=${encodeURIComponent(`https://a.example/${"x".repeat(2100)}`)}`, "url"],
  ])("products?%s", async (query, param) => {
    const body = expectProblem(await get(`/api/v1/products?${query}`), 400, "invalid_parameter");
    expect(body.errors?.map((e) => e.param)).toEqual([param]);
  });

  it("rejects an id that can never exist and a bad include_raw_data on get-by-id", async () => {
    expect(expectProblem(await get(`/api/v1/products/${"x".repeat(200)}`), 400, "invalid_parameter").errors?.[0]?.param).toBe("id");
    expect(expectProblem(await get(`/api/v1/products/${tentId}?include_raw_data=yes`), 400, "invalid_parameter").errors?.[0]?.param).toBe(
      "include_raw_data",
    );
  });

  it("answers unknown paths and malformed URLs with problems, never 500", async () => {
    expectProblem(await get("/api/v1/nothing"), 404, "not_found");
    expectProblem(await get("/nothing"), 404, "not_found");
    const bad = await get("/api/v1/products/%E0%A4%A");
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.statusCode).toBeLessThan(500);
  });
});

describe("request ids", () => {
  it("echoes a sane incoming X-Request-Id and replaces an unsafe one", async () => {
    expect((await get("/api/v1/products/search?q=tent", { "x-request-id": "abc-123" })).headers["x-request-id"]).toBe("abc-123");
    const replaced = (await get("/api/v1/products/search?q=tent", { "x-request-id": "bad id\u0007" })).headers["x-request-id"];
    expect(replaced).toMatch(/^req_[0-9a-f]{32}$/);
  });
});

describe("/health", () => {
  it("reports the database and product count", async () => {
    const response = await get("/health");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: "ok", database: { kind: testDatabase().kind, ok: true }, products: FIXTURE.length });
  });
});
