/**
 * Issue 47 (operations): findings of a hostile review and a new integrator, each against the real app on a real
 * PGlite (app.inject), the real importer and the real logger.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { backfillStructured } from "../../server/catalog/backfill.js";
import { products } from "../../server/db/schema.js";
import type { UcpBusinessProfile } from "../../shared/schemas/index.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import type { TestRecord } from "../helpers/catalog.js";
import { RIDGE_TEE } from "../helpers/ucp.js";

/** Prices as feeds write them: no decimals, two, one, too many, a currency in lower case and one without minor units. */
const PRICED: TestRecord[] = (
  [
    ["kettle", "45", "60", "USD"],
    ["tent", "289.00", null, "USD"],
    ["scarf", "12.5", "15", "eur"],
    ["teapot", "1200.00", "1500.0", "JPY"],
    ["mug", "9.999", null, "GBP"],
  ] as const
).map(([slug, price, was, currency]) => ({
  url: `https://shop.example/p/${slug}`,
  name: `A ${slug}`,
  offers: { price, currency, availability: "InStock", ...(was ? { was_price: was } : {}) },
}));

/** Another shop's page whose own SKU is one of the tee's variants' (a shop that saves a page per size does this). */
const OWN_RED_M: TestRecord = { url: "https://other.example/p/red-m", name: "Red tee, M", identifiers: { sku: "RT-RED-M", gtin: null, mpn: null } };

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ records: [RIDGE_TEE, OWN_RED_M, ...PRICED] });
});
afterAll(() => t.close());

const endpoints = (profile: UcpBusinessProfile) => profile.ucp.services["dev.ucp.shopping"]?.map((service) => service.endpoint);

describe("issue 47, finding 1: /.well-known/ucp and the Host header", () => {
  it("names the Host it was asked at only privately, varying by Host: no shared cache keeps one client's Host for another", async () => {
    const answer = await t.app.inject({ url: "/.well-known/ucp", headers: { host: "evil.example:8443" } });
    expect(answer.statusCode).toBe(200);
    expect(endpoints(answer.json<UcpBusinessProfile>())).toEqual(["http://evil.example:8443/ucp", "http://evil.example:8443/mcp"]);
    expect(answer.headers["cache-control"]).toMatch(/\bprivate\b/);
    expect(answer.headers["cache-control"]).not.toMatch(/\bpublic\b/);
    expect(
      String(answer.headers.vary)
        .toLowerCase()
        .split(/\s*,\s*/),
    ).toContain("host");
  });

  it("refuses a Host that is not a host name with an optional port (400, never a 500, no endpoint named from it)", async () => {
    for (const host of ["evil.example/phish?x=", "evil.example@good.example", "a b", "evil.example:99999", "[::1", "evil.example#x"]) {
      const answer = await t.app.inject({ url: "/.well-known/ucp", headers: { host } });
      expect(answer.statusCode, host).toBe(400);
      expect(answer.body).not.toContain("evil");
      expect(answer.headers["cache-control"], host).not.toMatch(/\bpublic\b/);
    }
  });

  it("with PUBLIC_URL names it whatever the Host, and may be cached by anyone", async () => {
    const root = await rootOn(t.database, { config: { PUBLIC_URL: "https://catalog.example.com" } });
    try {
      const app = await root.app();
      for (const host of ["evil.example", "evil.example/phish?x="]) {
        const answer = await app.inject({ url: "/.well-known/ucp", headers: { host } });
        expect(answer.statusCode).toBe(200);
        expect(endpoints(answer.json<UcpBusinessProfile>())).toEqual(["https://catalog.example.com/ucp", "https://catalog.example.com/mcp"]);
        expect(answer.headers["cache-control"]).toBe("public, max-age=300");
        expect(String(answer.headers.vary ?? "").toLowerCase()).not.toContain("host");
      }
    } finally {
      await root.close();
    }
  });
});

describe("issue 47, finding 2: no key in any logged field, in any encoding", () => {
  it("redacts keys in the URL (prefix encoded, `_` double-encoded) and in the Host field of the access log", async () => {
    const root = await rootOn(t.database, { config: { LOG_LEVEL: "info" } });
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const app = await root.app();
      const body = t.key.slice("pcl_test_".length);
      for (const url of [`/health?key=%70cl_test_${body}`, `/health?key=pcl%255Ftest%255F${body}`, `/health?key=%70CL%5Ftest_${body}`]) {
        expect((await app.inject({ url })).statusCode).toBe(401);
      }
      expect((await app.inject({ url: "/health", headers: { host: t.key } })).statusCode).toBe(401);
    } finally {
      spy.mockRestore();
      await root.close();
    }
    const completed = lines.filter((line) => line.includes('"msg":"request completed"'));
    expect(completed).toHaveLength(4);
    for (const line of lines) expect(line).not.toContain(t.key.slice("pcl_test_".length, "pcl_test_".length + 12));
    expect(completed.map((line) => (JSON.parse(line) as { req: { url: string; host: string } }).req)).toEqual([
      expect.objectContaining({ url: "/health?key=[redacted]" }),
      expect.objectContaining({ url: "/health?key=[redacted]" }),
      expect.objectContaining({ url: "/health?key=[redacted]" }),
      expect.objectContaining({ url: "/health", host: "[redacted]" }),
    ]);
  });
});

describe("issue 47, finding 7: offers.price in one decimal form per currency", () => {
  const lookup = async (view: "standard" | "compact") => {
    const answer = await t.app.inject({
      method: "POST",
      url: "/api/v1/products/lookup",
      headers: { authorization: t.key },
      payload: { inputs: PRICED.map((record) => ({ url: record.url })), view },
    });
    expect(answer.statusCode).toBe(200);
    return answer.json<{ results: { pdp: Record<string, unknown> & { offers?: Record<string, unknown> } }[] }>().results.map((result) => result.pdp);
  };

  it("answers as many decimals as the currency's minor unit: 2 for USD, EUR and GBP, 0 for JPY; was_price too", async () => {
    const offers = (await lookup("standard")).map((pdp) => pdp.offers);
    expect(offers).toEqual([
      { price: "45.00", was_price: "60.00", currency: "USD", availability: "InStock" },
      { price: "289.00", currency: "USD", availability: "InStock" },
      { price: "12.50", was_price: "15.00", currency: "EUR", availability: "InStock" },
      { price: "1200", was_price: "1500", currency: "JPY", availability: "InStock" },
      // Rounded as price filters and sorts round it.
      { price: "10.00", currency: "GBP", availability: "InStock" },
    ]);
    expect((await lookup("compact")).map((pdp) => pdp.price)).toEqual(["45.00", "289.00", "12.50", "1200", "10.00"]);
  });
});

describe("issue 47, finding 6: the SKU of a variant the page does not select is found", () => {
  const AGENT = 'profile="https://platform.example/.well-known/ucp"';
  const idOf = async (url: string) =>
    (await t.app.inject({ url: `/api/v1/products?url=${encodeURIComponent(url)}`, headers: { authorization: t.key } })).json<{
      pdp: { id: string };
    }>().pdp.id;

  it("by the REST batch lookup, any case; a page's own SKU wins over another page's variant of it", async () => {
    const [tee, other] = [await idOf(RIDGE_TEE.url), await idOf(OWN_RED_M.url)];
    const answer = await t.app.inject({
      method: "POST",
      url: "/api/v1/products/lookup",
      headers: { authorization: t.key },
      payload: { inputs: [{ sku: "RT-RED-S" }, { sku: "rt-blu-l" }, { sku: "RT-BLU-M" }, { sku: "RT-RED-M" }, { sku: "RT-GREEN-S" }] },
    });
    expect(answer.statusCode).toBe(200);
    const results = answer.json<{ results: { pdp: { id: string } | null; match?: string; reason?: string }[] }>().results;
    expect(results.map((result) => [result.pdp?.id ?? null, result.match ?? result.reason])).toEqual([
      [tee, "sku"],
      [tee, "sku"],
      [tee, "sku"],
      [other, "sku"],
      [null, "not_found"],
    ]);
    // Scoped to the tee's shop, the other shop's page is out of the way and the variant answers.
    const scoped = await t.app.inject({
      method: "POST",
      url: "/api/v1/products/lookup",
      headers: { authorization: t.key },
      payload: { inputs: [{ sku: "RT-RED-M", brand_url: "northpeak.example" }] },
    });
    expect(scoped.json<{ results: { pdp: { id: string } | null }[] }>().results[0]?.pdp?.id).toBe(tee);
  });

  it("by UCP lookup, as the variant it names (exact)", async () => {
    const tee = await idOf(RIDGE_TEE.url);
    const answer = await t.app.inject({
      method: "POST",
      url: "/ucp/catalog/lookup",
      headers: { authorization: t.key, "ucp-agent": AGENT, "content-type": "application/json" },
      payload: { ids: ["RT-RED-S", "RT-BLU-L"] },
    });
    expect(answer.statusCode).toBe(200);
    const body = answer.json<{ products: { id: string; variants: { sku?: string; inputs: unknown[] }[] }[]; messages?: { code: string }[] }>();
    expect(body.messages?.filter((message) => message.code === "not_found") ?? []).toEqual([]);
    expect(body.products.map((product) => product.id)).toEqual([tee]);
    expect(body.products[0]?.variants.map((variant) => [variant.sku, variant.inputs])).toEqual([
      ["RT-BLU-L", [{ id: "RT-BLU-L", match: "exact" }]],
      ["RT-RED-S", [{ id: "RT-RED-S", match: "exact" }]],
    ]);
  });

  it("for rows stored before the column was: the start's backfill derives it", async () => {
    const tee = await idOf(RIDGE_TEE.url);
    await t.database.db.update(products).set({ variantSkuKeys: [], derivedVersion: 2 }).where(eq(products.id, tee));
    expect(await backfillStructured(t.database.db)).toBe(1);
    const [row] = await t.database.db.select({ keys: products.variantSkuKeys }).from(products).where(eq(products.id, tee));
    expect(row?.keys).toEqual(["rt-blu-s", "rt-blu-m", "rt-blu-l", "rt-red-s", "rt-red-m"]);
  });
});
