/**
 * Issue 12, items 4, 8 and 16: the public documents are served from bodies
 * compressed once, with strong ETags and caching headers; /docs has a CSP and
 * the other browser protections; every keyed answer says it must not be stored;
 * `GET /` tells a newcomer where to read.
 */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The Scalar bundle's URL, as the /docs page names it. */
async function bundleUrl(): Promise<string> {
  const html = (await t.app.inject({ url: "/docs" })).body;
  const src = /<script src="(\/docs\/js\/scalar\.[\w-]+\.js)"><\/script>/.exec(html)?.[1];
  expect(src, html).toBeDefined();
  return src!;
}

describe("issue 12, item 4: static assets are compressed once and cached", () => {
  it("serves the Scalar bundle at a content-named URL, precompressed, with a strong ETag and a year's immutable caching", async () => {
    const url = await bundleUrl();
    const first = await t.app.inject({ url, headers: { "accept-encoding": "br, gzip" } });
    expect(first.statusCode).toBe(200);
    expect(first.headers["content-encoding"]).toBe("br");
    expect(first.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(first.headers.etag).toMatch(/^"[\w-]+-br"$/);
    expect(first.headers["content-type"]).toMatch(/^text\/javascript/);
    const script = brotliDecompressSync(first.rawPayload).toString();
    expect(script).toContain("createApiReference");
    // The same bytes every time: compressed once, not per request.
    const second = await t.app.inject({ url, headers: { "accept-encoding": "br" } });
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers.etag).toBe(first.headers.etag);

    const gzip = await t.app.inject({ url, headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.headers.etag).not.toBe(first.headers.etag);
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(script);
    const identity = await t.app.inject({ url });
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.body).toBe(script);

    const revalidated = await t.app.inject({ url, headers: { "accept-encoding": "br", "if-none-match": first.headers.etag as string } });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
  });

  it("tags /openapi.json, /llms.txt and /docs and answers 304 on a match", async () => {
    for (const url of ["/openapi.json", "/llms.txt", "/docs", "/"]) {
      const first = await t.app.inject({ url });
      expect(first.statusCode, url).toBe(200);
      expect(first.headers.etag, url).toMatch(/^"[\w-]+"$/);
      expect(first.headers["cache-control"], url).toBe("public, no-cache");
      const again = await t.app.inject({ url, headers: { "if-none-match": first.headers.etag as string } });
      expect(again.statusCode, url).toBe(304);
    }
  });
});

describe("issue 12, item 8: headers", () => {
  it("gives /docs a CSP, nosniff, frame protection and a referrer policy", async () => {
    const docs = await t.app.inject({ url: "/docs" });
    expect(docs.statusCode).toBe(200);
    const csp = docs.headers["content-security-policy"] as string;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self' 'sha256-[\w+/=]+'/);
    expect(csp).not.toContain("unsafe-eval");
    expect(docs.headers["x-content-type-options"]).toBe("nosniff");
    expect(docs.headers["x-frame-options"]).toBe("DENY");
    expect(docs.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("marks every keyed answer of /trpc, /mcp, /health and /metrics no-store, refusals included", async () => {
    const input = encodeURIComponent(JSON.stringify({ q: "tent" }));
    const mcp = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const requests = [
      { method: "GET" as const, url: `/trpc/products.search?input=${input}` },
      { method: "POST" as const, url: "/mcp", payload: mcp, headers: { accept: "application/json, text/event-stream" } },
      { method: "GET" as const, url: "/health" },
      { method: "GET" as const, url: "/api/v1/health" },
      { method: "GET" as const, url: "/metrics" },
      { method: "GET" as const, url: "/api/v1/products/nope" },
    ];
    for (const { headers, ...request } of requests) {
      const answer = await t.app.inject({ ...request, headers: { ...headers, authorization: t.key } });
      expect(answer.statusCode, request.url).toBeLessThan(500);
      expect(answer.headers["cache-control"], request.url).toBe("no-store");
      const refused = await t.app.inject({ ...request, headers: { ...headers } });
      expect(refused.statusCode, request.url).toBe(401);
      expect(refused.headers["cache-control"], request.url).toBe("no-store");
    }
    // A REST answer is revalidated by its ETag instead.
    const rest = await t.app.inject({ url: "/api/v1/products/search?q=tent", headers: { authorization: t.key } });
    expect(rest.headers["cache-control"]).toBe("private, max-age=0, must-revalidate");
  });
});

describe("issue 12, item 16: GET /", () => {
  it("answers a small index, without a key, linking the documents and /health", async () => {
    const index = await t.app.inject({ url: "/" });
    expect(index.statusCode).toBe(200);
    expect(index.json()).toMatchObject({
      links: { docs: "/docs", openapi: "/openapi.json", llms: "/llms.txt", health: "/health" },
      api: ["/api/v1", "/v1"],
    });
  });
});

describe("issue 52: /search", () => {
  it("serves the page under a strict CSP, its script and stylesheet at content-named URLs, and nothing else under /search/assets", async () => {
    const page = await t.app.inject({ url: "/search" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["cache-control"]).toBe("public, no-cache");
    const csp = page.headers["content-security-policy"] as string;
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) {
      expect(csp.split("; "), directive).toContain(directive);
    }
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    // No inline script or style: the CSP allows none.
    expect(page.body).not.toMatch(/<script>|<style|style="/);
    const urls = [...page.body.matchAll(/(?:src|href)="(\/search\/assets\/search\.[\w-]+\.(?:js|css))"/g)].map((match) => match[1]!);
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      const asset = await t.app.inject({ url, headers: { "accept-encoding": "br" } });
      expect(asset.statusCode, url).toBe(200);
      expect(asset.headers["cache-control"], url).toBe("public, max-age=31536000, immutable");
      expect(asset.headers["content-type"], url).toMatch(url.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
      expect(asset.headers["content-encoding"], url).toBe("br");
    }
    const unknown = await t.app.inject({ url: "/search/assets/search.0000000000000000.js" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect((await t.app.inject({ url: "/" })).json<{ links: { search: string } }>().links.search).toBe("/search");
  });
});
