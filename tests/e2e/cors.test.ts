/**
 * Issue 12, item 13, in a real browser: a page served from another origin
 * (another port on loopback) calls the API with a key in Authorization (so the
 * browser sends a preflight first) on REST, /trpc and /mcp, and reads the
 * exposed headers; a page on an origin CORS_ORIGINS does not list is refused
 * by the browser. Debian's chromium, driven by playwright-core, as in docs.test.ts.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { CHROMIUM, chromiumAvailable as available, chromiumMustRun as mustRun, launchChromium } from "../helpers/chromium.js";

let t: TestApp;
let browser: Browser;
let pages: Server;
let pagePort: number;
let api: string;

interface Seen {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

/** What a page on `origin` gets back from the API, or the browser's error. */
async function fetchFrom(origin: string, request: { path: string; method?: string; body?: string; headers?: Record<string, string> }) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(
      async ({ url, init }): Promise<Seen | { error: string }> => {
        try {
          const response = await fetch(url, init);
          const names = ["x-request-id", "etag", "x-rerank", "ratelimit", "ratelimit-policy"];
          return {
            status: response.status,
            headers: Object.fromEntries(names.map((name) => [name, response.headers.get(name)])),
            body: await response.text(),
          };
        } catch (error) {
          return { error: String(error) };
        }
      },
      {
        url: `${api}${request.path}`,
        init: {
          method: request.method ?? "GET",
          headers: { authorization: t.key, ...request.headers },
          ...(request.body ? { body: request.body } : {}),
        },
      },
    );
  } finally {
    await page.close();
  }
}

describe("issue 12, item 13: CORS from a page on another origin, in chromium", () => {
  beforeAll(async () => {
    if (!available) return;
    pages = createServer((_request, response) =>
      response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>front-end</title>"),
    );
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    pagePort = (pages.address() as AddressInfo).port;
    t = await createTestApp({ config: { CORS_ORIGINS: [`http://127.0.0.1:${pagePort}`] } });
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    pages?.close();
  });

  it("lets a listed origin search over REST, /trpc and /mcp with a key, and read the exposed headers", async (context) => {
    if (!available) {
      if (mustRun) throw new Error(`${CHROMIUM} is missing; CI must install it (apt-get install chromium, see .ci/run)`);
      context.skip(`${CHROMIUM} is not installed (apt-get install chromium); CI=1 makes this a failure`);
    }
    const origin = `http://127.0.0.1:${pagePort}`;
    const rest = await fetchFrom(origin, { path: "/api/v1/products/search?q=tent" });
    expect(rest).not.toHaveProperty("error");
    const seen = rest as Seen;
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.body).products[0].pdp.name).toBe("Alpine 2 Backpacking Tent");
    expect(seen.headers["x-request-id"]).toMatch(/^req_/);
    expect(seen.headers.etag).toMatch(/^"/);
    expect(seen.headers["x-rerank"]).toBe("local");
    expect(seen.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(seen.headers["ratelimit-policy"]).toMatch(/^"default";q=\d+;w=60$/);

    const input = encodeURIComponent(JSON.stringify({ q: "tent" }));
    const trpc = (await fetchFrom(origin, { path: `/trpc/products.search?input=${input}` })) as Seen;
    expect(trpc.status).toBe(200);
    expect(JSON.parse(trpc.body).result.data.products.length).toBeGreaterThan(0);

    const mcp = (await fetchFrom(origin, {
      path: "/mcp",
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    })) as Seen;
    expect(mcp.status).toBe(200);
    expect(JSON.parse(mcp.body).result.tools.map((tool: { name: string }) => tool.name)).toContain("search_products");
  });

  it("is refused by the browser for an origin CORS_ORIGINS does not list", async (context) => {
    if (!available) context.skip(`${CHROMIUM} is not installed`);
    // localhost and 127.0.0.1 are different origins: this one is not listed.
    const refused = await fetchFrom(`http://localhost:${pagePort}`, { path: "/api/v1/products/search?q=tent" });
    expect(refused).toEqual({ error: expect.stringMatching(/TypeError: Failed to fetch/) });
  });
});
