/**
 * Issue 12, item 13: CORS_ORIGINS lets pages on the listed origins call the
 * API (REST, /trpc, /mcp) with a key; preflights are answered before the key
 * check; unset, no answer carries Access-Control-*. The browser's view of the
 * same is tests/e2e/cors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

const FRONT = "https://shop.example";
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { CORS_ORIGINS: [FRONT, "http://127.0.0.1:5173"] } });
});
afterAll(() => t.close());

function preflight(url: string, origin: string, method = "GET") {
  return t.app.inject({
    method: "OPTIONS",
    url,
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization, content-type" },
  });
}

describe("issue 12, item 13: CORS_ORIGINS", () => {
  it("answers preflights from a listed origin for REST, /trpc and /mcp, allowing Authorization", async () => {
    for (const [url, method] of [
      ["/api/v1/products/search?q=tent", "GET"],
      ["/v1/products/p1", "GET"],
      ["/trpc/products.search", "POST"],
      ["/mcp", "POST"],
      ["/api/v1/health", "GET"],
    ] as const) {
      const answer = await preflight(url, FRONT, method);
      expect(answer.statusCode, url).toBe(204);
      expect(answer.headers["access-control-allow-origin"], url).toBe(FRONT);
      expect(answer.headers["access-control-allow-methods"], url).toContain(method);
      expect(String(answer.headers["access-control-allow-headers"]).split(", "), url).toEqual(
        expect.arrayContaining(["authorization", "content-type"]),
      );
      expect(answer.headers.vary, url).toContain("origin");
    }
  });

  it("exposes the request id, ETag, X-Rerank and the rate-limit headers on answers and refusals", async () => {
    const answer = await t.app.inject({ url: "/api/v1/products/search?q=tent", headers: { origin: FRONT, authorization: t.key } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["access-control-allow-origin"]).toBe(FRONT);
    const exposed = String(answer.headers["access-control-expose-headers"]).split(", ");
    expect(exposed).toEqual(expect.arrayContaining(["x-request-id", "etag", "x-rerank", "ratelimit", "ratelimit-policy", "retry-after"]));
    for (const header of ["x-request-id", "etag", "x-rerank", "ratelimit"]) expect(answer.headers[header], header).toBeDefined();
    const refused = await t.app.inject({ url: "/api/v1/products/search?q=tent", headers: { origin: FRONT } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers["access-control-allow-origin"]).toBe(FRONT);
  });

  it("gives an origin that is not listed no Access-Control-* at all", async () => {
    const answer = await preflight("/api/v1/products/search", "https://evil.example");
    expect(answer.statusCode).toBe(204);
    expect(Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
    const get = await t.app.inject({ url: "/api/v1/products/search?q=tent", headers: { origin: "https://evil.example", authorization: t.key } });
    expect(Object.keys(get.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });

  it("allows any origin with *, and none when unset (the default)", async () => {
    expect(loadConfig({}).CORS_ORIGINS).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: "*" }).CORS_ORIGINS).toBe("*");
    expect(() => loadConfig({ CORS_ORIGINS: "https://shop.example/" })).toThrow(/CORS_ORIGINS/);
    const open = await createTestApp({ config: { CORS_ORIGINS: "*" } });
    const closed = await createTestApp();
    try {
      const headers = { origin: "https://anywhere.example", authorization: open.key };
      expect((await open.app.inject({ url: "/api/v1/products/search?q=tent", headers })).headers["access-control-allow-origin"]).toBe("*");
      const none = await closed.app.inject({ url: "/api/v1/products/search?q=tent", headers: { ...headers, authorization: closed.key } });
      expect(none.statusCode).toBe(200);
      expect(Object.keys(none.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
    } finally {
      await open.close();
      await closed.close();
    }
  });
});
