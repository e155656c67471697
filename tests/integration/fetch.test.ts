/**
 * The fetcher against a real shop on loopback (issue 18): robots.txt, politeness, redirects, retries, timeouts,
 * caps, content types, and the address policy.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFetcher, type FetchSettings } from "../../server/fetch/fetcher.js";
import { refusedKind } from "../../server/fetch/address.js";
import { type MerchantServer, overlapping, productPage, startMerchantServer } from "../helpers/merchant-server.js";

const SETTINGS: FetchSettings = {
  userAgent: "ProductCatalogBot/0.1 (+https://product-catalog.example/bot)",
  allowPrivate: true,
  hostDelayMs: 0,
  concurrency: 8,
  connectTimeoutMs: 2000,
  firstByteTimeoutMs: 2000,
  bodyTimeoutMs: 500,
  maxRedirects: 5,
  retries: 2,
  retryBaseMs: 50,
  maxBytes: 1024 * 1024,
};

let shop: MerchantServer;
beforeAll(async () => {
  shop = await startMerchantServer({ slowBodyMs: 2000 });
  for (const name of ["a", "b", "c", "redirected", "busy"])
    shop.setPage(`/p/${name}`, productPage(shop.origin, `/p/${name}`, { name: `Item ${name}`, price: "10.00" }));
  shop.setPage("/private/secret", productPage(shop.origin, "/private/secret", { name: "Secret", price: "1.00" }));
});
afterAll(() => shop.close());

const fetcher = (settings: Partial<FetchSettings> = {}) => createFetcher({ ...SETTINGS, ...settings });

describe("the address policy", () => {
  it("refuses loopback, private, link-local and mapped addresses, and allows public ones", () => {
    expect(refusedKind("127.0.0.1")).toBe("loopback");
    expect(refusedKind("::1")).toBe("loopback");
    expect(refusedKind("10.1.2.3")).toBe("private");
    expect(refusedKind("192.168.0.1")).toBe("private");
    expect(refusedKind("169.254.169.254")).toBe("link-local");
    expect(refusedKind("fe80::1")).toBe("link-local");
    expect(refusedKind("::ffff:127.0.0.1")).toBe("loopback");
    expect(refusedKind("::ffff:7f00:1")).toBe("loopback");
    expect(refusedKind("93.184.216.34")).toBeUndefined();
    expect(refusedKind("2606:4700::1111")).toBeUndefined();
  });

  it("refuses a loopback target without FETCH_ALLOW_PRIVATE, by address and by name, and sends it nothing", async () => {
    const before = shop.log.length;
    const strict = fetcher({ allowPrivate: false });
    try {
      const byAddress = await strict.get(`${shop.origin}/p/a`, { accept: "html" });
      expect(byAddress).toMatchObject({ kind: "refused" });
      expect(byAddress.kind === "refused" && byAddress.reason).toBe(
        "127.0.0.1 is a loopback address; fetching it is refused unless FETCH_ALLOW_PRIVATE=true",
      );
      const byName = await strict.get(`http://localhost:${shop.origin.split(":")[2]}/p/a`, { accept: "html" });
      expect(byName).toMatchObject({ kind: "refused" });
      expect(byName.kind === "refused" && byName.reason).toMatch(
        /^localhost \((127\.0\.0\.1|::1)\) is a loopback address; fetching it is refused unless FETCH_ALLOW_PRIVATE=true$/,
      );
      const metadata = await strict.get("http://169.254.169.254/latest/meta-data/", { accept: "html" });
      expect(metadata).toMatchObject({ kind: "refused" });
      expect(shop.log.length).toBe(before);
    } finally {
      strict.close();
    }
  });
});

describe("fetching as a well-behaved crawler", () => {
  it("fetches a page, never requests what robots.txt disallows, and names the rule", async () => {
    const f = fetcher();
    try {
      const ok = await f.get(`${shop.origin}/p/a`, { accept: "html" });
      expect(ok.kind).toBe("ok");
      expect(shop.log.some((entry) => entry.path === "/robots.txt" && entry.headers["user-agent"] === SETTINGS.userAgent)).toBe(true);
      const refused = await f.get(`${shop.origin}/private/secret`, { accept: "html" });
      expect(refused).toEqual({
        kind: "refused",
        url: `${shop.origin}/private/secret`,
        reason: `robots.txt of ${shop.origin} disallows /private/secret`,
      });
      expect(shop.log.filter((entry) => entry.path.startsWith("/private/"))).toEqual([]);
    } finally {
      f.close();
    }
  });

  it("follows a redirect chain to the final URL, and names a loop and too many hops", async () => {
    const f = fetcher();
    try {
      const chain = await f.get(`${shop.origin}/redirect/1`, { accept: "html" });
      expect(chain).toMatchObject({ kind: "ok", url: `${shop.origin}/p/redirected` });
      const loop = await f.get(`${shop.origin}/loop/a`, { accept: "html" });
      expect(loop.kind).toBe("failed");
      expect(loop.kind === "failed" && loop.reason).toMatch(/^redirect loop: .*\/loop\/a → .*\/loop\/b → .*\/loop\/a$/);
      const short = fetcher({ maxRedirects: 1 });
      const tooMany = await short.get(`${shop.origin}/redirect/1`, { accept: "html" });
      short.close();
      expect(tooMany).toMatchObject({ kind: "failed", reason: "more than FETCH_MAX_REDIRECTS (1) redirects" });
    } finally {
      f.close();
    }
  });

  it("retries a 429 after its Retry-After, and never retries a 4xx", async () => {
    const f = fetcher();
    try {
      shop.throttle("/p/busy", 1, 1);
      const busy = await f.get(`${shop.origin}/p/busy`, { accept: "html" });
      expect(busy.kind).toBe("ok");
      const tries = shop.log.filter((entry) => entry.path === "/p/busy");
      expect(tries.map((entry) => entry.status)).toEqual([429, 200]);
      expect(tries[1]!.start - tries[0]!.end).toBeGreaterThanOrEqual(1000);

      shop.setStatus("/p/forbidden", 403);
      const forbidden = await f.get(`${shop.origin}/p/forbidden`, { accept: "html" });
      expect(forbidden).toMatchObject({ kind: "failed", reason: "answered 403 Forbidden" });
      expect(shop.log.filter((entry) => entry.path === "/p/forbidden")).toHaveLength(1);

      shop.setStatus("/p/broken", 500);
      const broken = await f.get(`${shop.origin}/p/broken`, { accept: "html" });
      expect(broken).toMatchObject({ kind: "failed", reason: "answered 500 Internal Server Error 3 times" });
      expect(shop.log.filter((entry) => entry.path === "/p/broken")).toHaveLength(3);
    } finally {
      f.close();
    }
  });

  it("answers gone for 404 and 410, and refuses a slow body, an oversized one and a non-HTML type", async () => {
    const f = fetcher();
    try {
      shop.setStatus("/p/withdrawn", 410);
      expect(await f.get(`${shop.origin}/p/never`, { accept: "html" })).toMatchObject({ kind: "gone", status: 404 });
      expect(await f.get(`${shop.origin}/p/withdrawn`, { accept: "html" })).toMatchObject({ kind: "gone", status: 410 });
      expect(await f.get(`${shop.origin}/slow`, { accept: "html" })).toMatchObject({
        kind: "failed",
        reason: "body not received in full within 500 ms",
      });
      const huge = await f.get(`${shop.origin}/huge`, { accept: "html" });
      expect(huge.kind === "failed" && huge.reason).toMatch(/IMPORT_MAX_PAGE_BYTES/);
      expect(await f.get(`${shop.origin}/image.png`, { accept: "html" })).toMatchObject({
        kind: "failed",
        reason: "content type image/png is not an HTML page",
      });
    } finally {
      f.close();
    }
  });

  it("sends the stored validators back and answers not modified on a 304", async () => {
    const f = fetcher();
    try {
      const first = await f.get(`${shop.origin}/p/b`, { accept: "html" });
      if (first.kind !== "ok") throw new Error(`expected a page, got ${first.kind}`);
      const conditional = { url: `${shop.origin}/p/b`, etag: String(first.headers.etag), lastModified: String(first.headers["last-modified"]) };
      expect(await f.get(`${shop.origin}/p/b`, { accept: "html", conditional })).toEqual({ kind: "not_modified", url: `${shop.origin}/p/b` });
      expect(shop.log.filter((entry) => entry.path === "/p/b").at(-1)?.headers["if-none-match"]).toBe(conditional.etag);
    } finally {
      f.close();
    }
  });

  it("never has two requests in flight to one host, and keeps the configured delay between them", async () => {
    const f = fetcher({ hostDelayMs: 50 });
    const from = shop.log.length;
    try {
      const paths = ["a", "b", "c", "redirected", "a", "b", "c", "redirected"].map((name) => `${shop.origin}/p/${name}`);
      const results = await Promise.all(paths.map((url) => f.get(url, { accept: "html" })));
      expect(results.map((result) => result.kind)).toEqual(paths.map(() => "ok"));
      const requests = shop.log.slice(from);
      expect(overlapping(requests)).toBeUndefined();
      const sorted = [...requests].sort((a, b) => a.start - b.start);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start - sorted[i - 1]!.end).toBeGreaterThanOrEqual(45);
    } finally {
      f.close();
    }
  });
});
