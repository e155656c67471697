/** Odd and hostile input gets a clear 4xx or a normal answer, never a 500; a lost database gets 503. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProblemSchema } from "../../shared/schemas/index.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const NASTY = [
  "%00",
  "a%00b",
  "%E2%80%8B",
  "%F0%9F%91%9F%20shoes",
  "'%3B%20DROP%20TABLE%20products%3B--",
  "%22%7D%5D%7D",
  "%26%7C!%3A*()",
  "%5C",
  encodeURIComponent("<script>alert(1)</script>"),
  encodeURIComponent("tent & | ! ( ) : * <-> '"),
  encodeURIComponent("\u0001\u0002\u001f\u007f"),
  encodeURIComponent("ﬁ ǅ İ ß 東京 مرحبا"),
  "%ff%fe",
];

function get(url: string) {
  return t.app.inject({ url, headers: { authorization: t.key } });
}

describe("hostile input never reaches a 500", () => {
  it.each(NASTY)("q=%s", async (value) => {
    const response = await get(`/api/v1/products/search?q=${value}`);
    expect(response.statusCode, response.body).toBeLessThan(500);
  });

  // Filters match stored names exactly; NUL, which Postgres text cannot hold, once reached Postgres from these (a 500).
  it.each(NASTY.flatMap((value) => ["category", "brand"].map((name) => [name, value])))("%s=%s", async (name, value) => {
    const response = await get(`/api/v1/products/search?q=tent&${name}=${value}`);
    expect(response.statusCode, response.body).toBeLessThan(500);
    if (value.includes("%00"))
      expect(ProblemSchema.parse(response.json()).errors?.[0]).toEqual({ param: name, message: "must not contain the character U+0000" });
  });

  it.each(NASTY)("brand_url=%s", async (value) => {
    expect((await get(`/api/v1/products/search?q=tent&brand_url=${value}`)).statusCode).toBeLessThan(500);
  });

  it.each(NASTY)("url=https://a.example/%s", async (value) => {
    expect((await get(`/api/v1/products?url=${encodeURIComponent(`https://a.example/`)}${value}`)).statusCode).toBeLessThan(500);
  });

  it.each(NASTY)("id=%s", async (value) => {
    expect((await get(`/api/v1/products/${value}`)).statusCode).toBeLessThan(500);
  });

  it("answers arrays and objects in the query string with 400", async () => {
    for (const query of ["q[]=a", "q[a]=b", "limit=1&limit=2&q=x", "include_raw_data=true&include_raw_data=false&q=x"]) {
      const response = await get(`/api/v1/products/search?${query}`);
      expect(response.statusCode, query).toBe(400);
    }
  });

  it("ignores parameters it does not know (forward compatible)", async () => {
    expect((await get("/api/v1/products/search?q=tent&limit[]=1&colour=red")).statusCode).toBe(200);
  });

  it("answers other methods with a problem, not a 500", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"] as const) {
      const response = await t.app.inject({ method, url: "/api/v1/products/search?q=x", headers: { authorization: t.key } });
      expect(response.statusCode, method).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, method).toBeLessThan(500);
    }
  });
});

describe("when the database stops answering", () => {
  it("answers /health 503 in the health shape and the API 503 unavailable", async () => {
    const lost = await createTestApp();
    await lost.database.close();
    const health = await lost.app.inject({ url: "/health", headers: { authorization: lost.key } });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ status: "unavailable", database: { ok: false }, products: null });
    for (const url of ["/api/v1/products/search?q=tent", "/v1/products/pdp_x", "/api/v1/products?url=https%3A%2F%2Fa.example%2F"]) {
      const response = await lost.app.inject({ url, headers: { authorization: lost.key } });
      expect(response.statusCode, url).toBe(503);
      expect(response.json()).toMatchObject({ code: "unavailable", status: 503 });
    }
    await lost.app.close();
  });
});
