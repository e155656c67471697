/**
 * Issue 47, the crawler's findings from a hostile review, against real shops on loopback.
 *
 * Live lookup followed a listed merchant's redirects to any host, and to any port of a listed host, fetching
 * robots.txt and the page before it checked, then told the caller what that host answered: a blind SSRF and a
 * port-scan oracle for any key holder. Every hop (scheme, host and port) is now checked before it is requested,
 * robots.txt's redirects too, and a client's problem says nothing a foreign host answered.
 *
 * FETCH_ALLOW_PRIVATE=true lifted every address refusal; it now lifts loopback's only (the guard's ranges are
 * unit-tested in tests/unit/issue-47-address.test.ts). Here, that the fetcher applies it: a literal private
 * address is refused before any connection, so this sends nothing off loopback.
 *
 * `catalog refresh --brand HOST` matched only the product's own site (its canonical URL's host), not the host its
 * page is fetched from, and said nothing when it matched no product; it now takes either, and says so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Root } from "../../server/compose.js";
import type { Config } from "../../server/config.js";
import { createFetcher } from "../../server/fetch/fetcher.js";
import { ProblemSchema } from "../../shared/schemas/index.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { runCli } from "../helpers/cli.js";
import { type MerchantServer, productPage, startMerchantServer } from "../helpers/merchant-server.js";

let t: TestApp;
/** Listed: the merchant, and a second merchant whose robots.txt redirects away. */
let shop: MerchantServer;
let robotsAway: MerchantServer;
/** Not listed: where a redirect tries to send us (another port of the same loopback host). */
let foreign: MerchantServer;
let root: Root;
let live: FastifyInstance;

function lookup(url: string) {
  return live.inject({ method: "GET", url: `/api/v1/products?url=${encodeURIComponent(url)}&fetch=true`, headers: { authorization: t.key } });
}

const problemOf = (answer: { json(): unknown }) => ProblemSchema.parse(answer.json());

/** A fetcher as FETCH_ALLOW_PRIVATE=true makes it, quick to give up: loopback shops only. */
const loopbackFetcher = () =>
  createFetcher({
    userAgent: "ProductCatalogBot/0.1 (+https://product-catalog.example/bot)",
    allowPrivate: true,
    hostDelayMs: 0,
    concurrency: 2,
    connectTimeoutMs: 1000,
    firstByteTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    maxRedirects: 5,
    retries: 0,
    retryBaseMs: 0,
    maxBytes: 1024 * 1024,
  });

beforeAll(async () => {
  t = await createTestApp({ records: [] });
  [shop, robotsAway, foreign] = await Promise.all([startMerchantServer(), startMerchantServer(), startMerchantServer()]);
  // What the foreign server would tell a prober: an answer of its own, to see whether it reaches the client.
  foreign.setStatus("/admin", 503);
  foreign.setPage("/p/planted", productPage(foreign.origin, "/p/planted", { name: "Planted Product", price: "1.00" }));
  const settings: Partial<Config> = {
    LIVE_LOOKUP_HOSTS: [shop.host, robotsAway.host],
    FETCH_ALLOW_PRIVATE: true,
    FETCH_HOST_DELAY_MS: 0,
    FETCH_RETRIES: 0,
  };
  root = await rootOn(t.database, { config: settings });
  live = await root.app();
  await live.ready();
});

afterAll(async () => {
  await root?.close();
  await Promise.all([shop?.close(), robotsAway?.close(), foreign?.close()]);
  await t?.close();
});

describe("issue 47: live lookup holds every hop to LIVE_LOOKUP_HOSTS", () => {
  it("refuses a redirect to another port of a listed host before requesting it, and says nothing it would answer", async () => {
    shop.setRedirect("/p/to-admin", `${foreign.origin}/admin`);
    const answer = await lookup(`${shop.origin}/p/to-admin`);
    expect(answer.statusCode).toBe(404);
    expect(problemOf(answer)).toMatchObject({
      code: "not_found",
      detail: "No product at that URL: the page was not fetched: redirected to a URL that is not on LIVE_LOOKUP_HOSTS (its scheme, host or port).",
    });
    // Neither its robots.txt nor the page was asked for.
    expect(foreign.log).toEqual([]);
  });

  it("refuses a redirect to an unlisted host, even one with a product to store", async () => {
    const port = new URL(foreign.origin).port;
    shop.setRedirect("/p/to-planted", `http://localhost:${port}/p/planted`);
    const answer = await lookup(`${shop.origin}/p/to-planted`);
    expect(answer.statusCode).toBe(404);
    expect(problemOf(answer).detail).toMatch(/redirected to a URL that is not on LIVE_LOOKUP_HOSTS/);
    expect(problemOf(answer).detail).not.toMatch(/localhost|Planted/);
    expect(foreign.log).toEqual([]);
  });

  it("refuses a listed host on a port not listed (400), without a request", async () => {
    const answer = await lookup(`http://127.0.0.1:${new URL(foreign.origin).port}/p/planted`);
    expect(answer.statusCode).toBe(400);
    expect(problemOf(answer)).toMatchObject({ code: "invalid_parameter" });
    expect(problemOf(answer).detail).toMatch(
      /^Fetching is not allowed for 127\.0\.0\.1 on port \d+: it is not one of the merchant hosts \(and ports\)/,
    );
    expect(foreign.log).toEqual([]);
  });

  it("does not follow robots.txt's redirect off the list: the origin is disallowed, and the other host asked nothing", async () => {
    robotsAway.setRedirect("/robots.txt", `${foreign.origin}/robots.txt`, 301);
    robotsAway.setPage("/p/stool", productPage(robotsAway.origin, "/p/stool", { name: "Oak Stool", price: "80.00" }));
    const answer = await lookup(`${robotsAway.origin}/p/stool`);
    expect(answer.statusCode).toBe(404);
    expect(problemOf(answer).detail).toBe(
      "No product at that URL: the page was not fetched: robots.txt redirects to a URL that is not on LIVE_LOOKUP_HOSTS (its scheme, host or port).",
    );
    expect(robotsAway.log.map((entry) => entry.path)).toEqual(["/robots.txt"]);
    expect(foreign.log).toEqual([]);
  });

  it("still follows a redirect that stays on a listed host and port", async () => {
    shop.setPage("/p/moved", productPage(shop.origin, "/p/moved", { name: "Moved Kettle", price: "25.00" }));
    shop.setRedirect("/p/old", `${shop.origin}/p/moved`, 301);
    const answer = await lookup(`${shop.origin}/p/old`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().pdp).toMatchObject({ name: "Moved Kettle" });
  });
});

describe("issue 47: FETCH_ALLOW_PRIVATE=true lets the fetcher reach loopback only", () => {
  it("fetches from the shop on loopback, and refuses a private address without connecting to it", async () => {
    shop.setPage("/p/lamp", productPage(shop.origin, "/p/lamp", { name: "Loopback Lamp", price: "12.00" }));
    const fetcher = loopbackFetcher();
    try {
      expect(await fetcher.get(`${shop.origin}/p/lamp`, { accept: "html" })).toMatchObject({ kind: "ok" });
      expect(await fetcher.get("http://10.0.0.5/p/lamp", { accept: "html" })).toEqual({
        kind: "refused",
        url: "http://10.0.0.5/p/lamp",
        reason: "10.0.0.5 is a private address; fetching it is refused unless FETCH_ALLOW_NETWORKS includes it",
      });
    } finally {
      fetcher.close();
    }
  });
});

describe("issue 47: a robots.txt Crawl-delay is waited for up to 5 minutes, no longer", () => {
  it("fails the host's pages at once, naming the delay, rather than holding the crawl for hours a page", async () => {
    const slow = await startMerchantServer();
    slow.setRobots("User-agent: *\nCrawl-delay: 86400\n");
    slow.setPage("/p/a", productPage(slow.origin, "/p/a", { name: "Slow A", price: "1.00" }));
    const fetcher = loopbackFetcher();
    try {
      const started = performance.now();
      const [first, second] = await Promise.all(["/p/a", "/p/a?again"].map((path) => fetcher.get(`${slow.origin}${path}`, { accept: "html" })));
      expect(first).toMatchObject({
        kind: "failed",
        reason: `robots.txt of ${slow.origin} asks for 86400 s between requests, more than the 300 s waited for`,
      });
      expect(second).toMatchObject({ kind: "failed" });
      expect(performance.now() - started).toBeLessThan(30_000);
      expect(slow.log.map((entry) => entry.path)).toEqual(["/robots.txt"]);
    } finally {
      fetcher.close();
      await slow.close();
    }
  });
});

describe("issue 47: catalog refresh --brand HOST", () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "catalog-issue-47-"));
    env = { DATA_DIR: join(dir, "data"), FETCH_HOST_DELAY_MS: "0", FETCH_ALLOW_PRIVATE: "true", SAMPLE_CATALOG: "false" };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("takes the host a page is fetched from as well as the product's own site, and says when nothing matched", async () => {
    // A shop whose pages name their canonical site, another host than the one they are served from.
    const html = productPage("https://kettles.example", "/p/kettle-away", { name: "Away Kettle", price: "31.00" });
    shop.setPage("/p/kettle-away", html);
    const fetched = await runCli(["fetch", `${shop.origin}/p/kettle-away`], env);
    expect(fetched.out.at(-1)).toBe("imported 1, updated 0, unchanged 0, not modified 0, gone 0, skipped 0, failed 0");

    const byPageHost = await runCli(["refresh", "--older-than", "0s", "--brand", "127.0.0.1"], env);
    expect(byPageHost.out.at(-1)).toBe("imported 0, updated 0, unchanged 0, not modified 1, gone 0, skipped 0, failed 0");
    expect(byPageHost.code).toBe(0);
    const bySite = await runCli(["refresh", "--older-than", "0s", "--brand", "www.Kettles.example"], env);
    expect(bySite.out.at(-1)).toBe("imported 0, updated 0, unchanged 0, not modified 1, gone 0, skipped 0, failed 0");

    const nowhere = await runCli(["refresh", "--older-than", "0s", "--brand", "nowhere.example"], env);
    expect(nowhere.err).toEqual(["No product's site or page host is nowhere.example (--brand): nothing was refreshed."]);
    expect(nowhere.code).toBe(1);
    const fresh = await runCli(["refresh", "--older-than", "1d", "--brand", "127.0.0.1"], env);
    expect(fresh.err).toEqual(["None of the 1 products at 127.0.0.1 was last checked before 1d ago: nothing to refresh."]);
    expect(fresh.code).toBe(0);
  });
});
