/**
 * Issue 18, item 5: live lookup. `GET /products?url=…&fetch=true` fetches a page of an allowed merchant host that the
 * catalog does not hold (from a shop on loopback that logs every request), stores it and answers it; the next lookup
 * is answered from the catalog without a request. Off by default; other hosts, failures and the deadline each get
 * their own problem, never a 500; a fetch costs its surcharge, charged before the request is made.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Root } from "../../server/compose.js";
import type { Config } from "../../server/config.js";
import { openPostgres } from "../../server/db/open.js";
import { ProblemSchema } from "../../shared/schemas/index.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { type MerchantServer, productPage, startMerchantServer } from "../helpers/merchant-server.js";
import { type SocketPostgres, startSocketPostgres } from "../helpers/pgsocket.js";

/** Mid-window, and never moving: the rate-limit counters of a test stay in one window. */
const T0 = Date.UTC(2026, 10, 24, 12, 0, 30);
const LIMIT = 1000;
const TIMEOUT_MS = 3000;
/** Far longer than the deadline: a lookup answered before this was cut off by the deadline, not by the page. */
const SLOW_BODY_MS = 60_000;

/**
 * Live lookup on for the shop's host and port (loopback, so FETCH_ALLOW_PRIVATE), without politeness delays or
 * retries to wait out; LIVE_LOOKUP_HOSTS is the shop's, set once it listens.
 */
const LIVE: Partial<Config> = {
  LIVE_LOOKUP_TIMEOUT_MS: TIMEOUT_MS,
  FETCH_ALLOW_PRIVATE: true,
  FETCH_HOST_DELAY_MS: 0,
  FETCH_RETRIES: 0,
  RATE_LIMIT_PER_MINUTE: LIMIT,
};

let t: TestApp;
let shop: MerchantServer;
const roots: Root[] = [];
let live: FastifyInstance;

async function appOn(settings: Partial<Config>, database = t.database): Promise<FastifyInstance> {
  const root = await rootOn(database, { config: settings, clock: () => new Date(T0) });
  roots.push(root);
  const app = await root.app();
  await app.ready();
  return app;
}

/** A product page on the shop at `path`; returns its URL. */
function page(path: string, name: string, price = "42.00"): string {
  shop.setPage(path, productPage(shop.origin, path, { name, price }));
  return `${shop.origin}${path}`;
}

function lookup(app: FastifyInstance, url: string, options: { fetch?: boolean; key?: string } = {}) {
  const query = `url=${encodeURIComponent(url)}${options.fetch ? "&fetch=true" : ""}`;
  return app.inject({ method: "GET", url: `/api/v1/products?${query}`, headers: { authorization: options.key ?? t.key } });
}

/** Requests the shop received for a path. */
const requestsFor = (path: string) => shop.log.filter((entry) => entry.path === path).length;

/** Units left in the key's window, from the `RateLimit` header. */
function remaining(answer: { headers: Record<string, unknown> }): number {
  const match = /;r=(\d+);/.exec(String(answer.headers.ratelimit));
  if (!match) throw new Error(`no RateLimit header: ${String(answer.headers.ratelimit)}`);
  return Number(match[1]);
}

function problemOf(answer: { json(): unknown }) {
  return ProblemSchema.parse(answer.json());
}

beforeAll(async () => {
  t = await createTestApp({ records: [] });
  shop = await startMerchantServer({ slowBodyMs: SLOW_BODY_MS });
  LIVE.LIVE_LOOKUP_HOSTS = [shop.host];
  live = await appOn(LIVE);
});

afterAll(async () => {
  for (const root of roots.splice(0)) await root.close();
  await shop?.close();
  await t?.close();
});

describe("live lookup, on for the shop's host", () => {
  it("fetches a page the catalog does not hold, stores it and answers it; the next lookup makes no request", async () => {
    const url = page("/p/kettle", "Copper Kettle", "39.00");
    expect((await lookup(live, url)).statusCode).toBe(404);

    const fetched = await lookup(live, url, { fetch: true });
    expect(fetched.statusCode).toBe(200);
    const { pdp } = fetched.json();
    expect(pdp).toMatchObject({ name: "Copper Kettle", url, offers: { price: "39.00", currency: "USD" } });
    expect(requestsFor("/p/kettle")).toBe(1);

    // Stored: found by a plain lookup, by search, and again with fetch=true, without another request.
    const plain = await lookup(live, url);
    expect(plain.statusCode).toBe(200);
    expect(plain.json().pdp.id).toBe(pdp.id);
    const again = await lookup(live, `${url}?utm_source=newsletter`, { fetch: true });
    expect(again.statusCode).toBe(200);
    expect(again.json().pdp.id).toBe(pdp.id);
    expect(requestsFor("/p/kettle")).toBe(1);
    const found = await live.inject({ method: "GET", url: "/api/v1/products/search?q=copper%20kettle", headers: { authorization: t.key } });
    expect(found.json().products.map((hit: { pdp: { id: string } }) => hit.pdp.id)).toContain(pdp.id);
  });

  it("costs 1 unit answered from the catalog and 10 when it fetches, in the same answer's RateLimit header", async () => {
    const { key } = await t.services.keys.issue({ name: "live-cost", environment: "dev" });
    const url = page("/p/teapot", "Iron Teapot");
    const first = await lookup(live, url, { fetch: true, key });
    expect(first.statusCode).toBe(200);
    expect(remaining(first)).toBe(LIMIT - 10);
    const held = await lookup(live, url, { fetch: true, key });
    expect(held.statusCode).toBe(200);
    expect(remaining(held)).toBe(LIMIT - 11);
    expect(requestsFor("/p/teapot")).toBe(1);
  });

  it("refuses a fetch the key cannot pay for (429) before making the request", async () => {
    const { key } = await t.services.keys.issue({ name: "live-poor", environment: "dev", rateLimitPerMinute: 5 });
    const url = page("/p/mug", "Stoneware Mug");
    const answer = await lookup(live, url, { fetch: true, key });
    expect(answer.statusCode).toBe(429);
    expect(problemOf(answer).code).toBe("rate_limited");
    expect(answer.headers["retry-after"]).toBeDefined();
    expect(requestsFor("/p/mug")).toBe(0);
  });

  it("fetches once for lookups of the same page at the same time", async () => {
    const url = page("/p/lantern", "Brass Lantern");
    const answers = await Promise.all([1, 2, 3, 4].map(() => lookup(live, url, { fetch: true })));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.json().pdp.id)).size).toBe(1);
    expect(requestsFor("/p/lantern")).toBe(1);
  });

  it("refuses a host not in LIVE_LOOKUP_HOSTS with a 400 that names it, and makes no request", async () => {
    page("/p/elsewhere", "Elsewhere Stool");
    const answer = await lookup(live, `http://localhost:${new URL(shop.origin).port}/p/elsewhere`, { fetch: true });
    expect(answer.statusCode).toBe(400);
    const problem = problemOf(answer);
    expect(problem.code).toBe("invalid_parameter");
    expect(problem.detail).toMatch(/^Fetching is not allowed for localhost/);
    expect(problem.errors?.[0]?.param).toBe("url");
    expect(requestsFor("/p/elsewhere")).toBe(0);
  });

  it("answers the merchant's 404 as not_found, saying so", async () => {
    const answer = await lookup(live, `${shop.origin}/p/never-there`, { fetch: true });
    expect(answer.statusCode).toBe(404);
    expect(problemOf(answer)).toMatchObject({ code: "not_found", detail: "No product at that URL: the merchant's page answered 404." });
    expect(requestsFor("/p/never-there")).toBe(1);
  });

  it("answers a page that is not HTML, one robots.txt disallows, or one without a product as not_found, with why", async () => {
    const image = await lookup(live, `${shop.origin}/image.png`, { fetch: true });
    expect(image.statusCode).toBe(404);
    expect(problemOf(image).detail).toMatch(/content type image\/png is not an HTML page/);

    page("/private/secret", "Secret Thing");
    const disallowed = await lookup(live, `${shop.origin}/private/secret`, { fetch: true });
    expect(disallowed.statusCode).toBe(404);
    expect(problemOf(disallowed).detail).toMatch(/robots\.txt of .* disallows \/private\/secret/);
    expect(requestsFor("/private/secret")).toBe(0);

    shop.setPage("/p/nameless", "<!doctype html><html><head></head><body><p>We love kettles.</p></body></html>");
    const noProduct = await lookup(live, `${shop.origin}/p/nameless`, { fetch: true });
    expect(noProduct.statusCode).toBe(404);
    expect(problemOf(noProduct).detail).toMatch(/^No product at that URL: the page holds no product that can be stored: no product name/);
  });

  it("answers a merchant's server error as 502 upstream_error", async () => {
    shop.setStatus("/p/broken", 500);
    const answer = await lookup(live, `${shop.origin}/p/broken`, { fetch: true });
    expect(answer.statusCode).toBe(502);
    expect(problemOf(answer)).toMatchObject({
      code: "upstream_error",
      detail: "The merchant's site failed: answered 500 Internal Server Error 1 time.",
    });
  });

  it("answers 504 upstream_timeout at the deadline, long before the page would have ended", async () => {
    const started = performance.now();
    const answer = await lookup(live, `${shop.origin}/slow`, { fetch: true });
    const elapsed = performance.now() - started;
    expect(answer.statusCode).toBe(504);
    expect(problemOf(answer).code).toBe("upstream_timeout");
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(SLOW_BODY_MS);
  });

  it("is the MCP tool get_product_by_url's `fetch` argument too, charged the same", async () => {
    const { key } = await t.services.keys.issue({ name: "live-mcp", environment: "dev" });
    const url = page("/p/whistle", "Tin Whistle");
    const answer = await live.inject({
      method: "POST",
      url: "/mcp",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: key },
      payload: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_product_by_url", arguments: { url, fetch: true } } },
    });
    expect(answer.statusCode).toBe(200);
    const { result } = answer.json();
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent.pdp).toMatchObject({ name: "Tin Whistle", url });
    expect(requestsFor("/p/whistle")).toBe(1);
    expect(remaining(answer)).toBe(LIMIT - 10);
  });

  it("is the /trpc procedure products.byUrl's `fetch` input too, charged the same", async () => {
    const { key } = await t.services.keys.issue({ name: "live-trpc", environment: "dev" });
    const url = page("/p/ladle", "Steel Ladle");
    const input = encodeURIComponent(JSON.stringify({ url, fetch: true }));
    const answer = await live.inject({ method: "GET", url: `/trpc/products.byUrl?input=${input}`, headers: { authorization: key } });
    expect(answer.statusCode).toBe(200);
    expect(answer.json().result.data.pdp).toMatchObject({ name: "Steel Ladle", url });
    expect(requestsFor("/p/ladle")).toBe(1);
    expect(remaining(answer)).toBe(LIMIT - 10);
  });

  it("is in the OpenAPI document, with its surcharge", async () => {
    const document = (await live.inject({ method: "GET", url: "/openapi.json" })).json();
    const operation = document.paths["/products"].get;
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toContain("fetch");
    expect(operation["x-rate-limit-cost"]).toBe(1);
    expect(operation["x-rate-limit-surcharge"]).toMatchObject({ units: 9 });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["502", "504"]));
  });
});

describe("live lookup, off or restricted", () => {
  it("is off by default: fetch=true is a 400 that says so, and nothing is fetched", async () => {
    const url = page("/p/off", "Off Switch");
    const answer = await lookup(t.app, url, { fetch: true });
    expect(answer.statusCode).toBe(400);
    const problem = problemOf(answer);
    expect(problem.code).toBe("invalid_parameter");
    expect(problem.detail).toMatch(/^Live lookup is off on this server \(LIVE_LOOKUP_HOSTS is not set\)/);
    expect(problem.errors?.[0]?.param).toBe("fetch");
    expect(requestsFor("/p/off")).toBe(0);
  });

  it("refuses fetch with a gtin (400): a GTIN names no page", async () => {
    const answer = await t.app.inject({ method: "GET", url: "/api/v1/products?gtin=012345678905&fetch=true", headers: { authorization: t.key } });
    expect(answer.statusCode).toBe(400);
    expect(problemOf(answer).errors?.[0]?.param).toBe("fetch");
  });

  it("without FETCH_ALLOW_PRIVATE, refuses the loopback address as not_found, naming the setting", async () => {
    const strict = await appOn({ ...LIVE, FETCH_ALLOW_PRIVATE: false });
    const url = page("/p/private-address", "Loopback Lamp");
    const answer = await lookup(strict, url, { fetch: true });
    expect(answer.statusCode).toBe(404);
    expect(problemOf(answer).detail).toMatch(/127\.0\.0\.1 is a loopback address; fetching it is refused unless FETCH_ALLOW_PRIVATE=true/);
    expect(requestsFor("/p/private-address")).toBe(0);
  });
});

describe("live lookup through postgres.js", () => {
  let pg: SocketPostgres;
  let test: TestApp;
  beforeAll(async () => {
    pg = await startSocketPostgres(4);
    test = await createTestApp({ records: [], database: openPostgres({ url: pg.url, max: 4 }) });
  });
  afterAll(async () => {
    await test?.close();
    await pg?.close();
  });

  it("stores the fetched page in Postgres and answers it from there next time", async () => {
    // Closed here, before its database is.
    const root = await rootOn(test.database, { config: LIVE, clock: () => new Date(T0) });
    try {
      const app = await root.app();
      await app.ready();
      const url = page("/p/pg-kettle", "Postgres Kettle");
      const first = await lookup(app, url, { fetch: true, key: test.key });
      expect(first.statusCode).toBe(200);
      const again = await lookup(app, url, { key: test.key });
      expect(again.statusCode).toBe(200);
      expect(again.json().pdp.id).toBe(first.json().pdp.id);
      expect(requestsFor("/p/pg-kettle")).toBe(1);
    } finally {
      await root.close();
    }
  });
});
