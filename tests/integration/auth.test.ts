import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { generateKey } from "../../server/auth/keys.js";
import { createKeyService } from "../../server/auth/service.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ config: { KEY_CACHE_TTL_SECONDS: 0 } });
});
afterAll(() => t.close());

const ENDPOINTS = ["/api/v1/products/search?q=tent", "/v1/products/pdp_x", "/api/v1/products?url=https%3A%2F%2Fa.example%2Fx", "/health"];

function get(url: string, authorization?: string) {
  return t.app.inject({ method: "GET", url, headers: authorization === undefined ? {} : { authorization } });
}

async function expectUnauthorized(url: string, authorization: string | undefined, detail: RegExp) {
  const response = await get(url, authorization);
  expect(response.statusCode, url).toBe(401);
  expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm=/);
  expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(response.json()).toMatchObject({ status: 401, code: "unauthorized" });
  expect(response.json().detail).toMatch(detail);
}

describe("every endpoint needs a key", () => {
  it.each(ENDPOINTS)("%s: missing key → 401", async (url) => {
    await expectUnauthorized(url, undefined, /required/);
  });

  it.each(ENDPOINTS)("%s: unknown and malformed keys → 401", async (url) => {
    await expectUnauthorized(url, generateKey("dev").key, /not valid/);
    await expectUnauthorized(url, "hunter2", /not valid/);
    await expectUnauthorized(url, "Bearer ", /required/);
  });

  it.each(ENDPOINTS)("%s: the key itself and Bearer <key> are both accepted", async (url) => {
    expect((await get(url, t.key)).statusCode).not.toBe(401);
    expect((await get(url, `Bearer ${t.key}`)).statusCode).not.toBe(401);
  });

  it("keeps the OpenAPI document and the docs page public", async () => {
    expect((await get("/openapi.json")).statusCode).toBe(200);
    expect((await get("/docs")).statusCode).toBeLessThan(400);
  });
});

describe("key lifecycle", () => {
  it("refuses a revoked key (revoked by id or by the key itself)", async () => {
    const a = await t.services.keys.issue({ name: "a", environment: "prod" });
    expect(a.key).toMatch(/^pcl_live_/);
    expect((await get(ENDPOINTS[0]!, a.key)).statusCode).toBe(200);
    await t.services.keys.revoke(a.record.id);
    await expectUnauthorized(ENDPOINTS[0]!, a.key, /revoked/);

    const b = await t.services.keys.issue({ name: "b", environment: "dev" });
    await t.services.keys.revoke(b.key);
    await expectUnauthorized(ENDPOINTS[0]!, b.key, /revoked/);
  });

  it("refuses an expired key", async () => {
    const { key } = await t.services.keys.issue({ name: "short", environment: "dev", expiresInDays: 1 });
    expect((await get(ENDPOINTS[0]!, key)).statusCode).toBe(200);
    t.advance(2 * 86_400_000);
    await expectUnauthorized(ENDPOINTS[0]!, key, /expired/);
  });

  it("keeps a rotated key working for the grace period, then refuses it", async () => {
    const old = await t.services.keys.issue({ name: "rotating", environment: "prod" });
    const rotated = await t.services.keys.rotate(old.record.id, 3);
    expect(rotated).not.toBeNull();
    expect((await get(ENDPOINTS[0]!, old.key)).statusCode).toBe(200);
    expect((await get(ENDPOINTS[0]!, rotated!.key)).statusCode).toBe(200);
    t.advance(4 * 86_400_000);
    await expectUnauthorized(ENDPOINTS[0]!, old.key, /expired/);
    expect((await get(ENDPOINTS[0]!, rotated!.key)).statusCode).toBe(200);
    const listed = await t.services.keys.list();
    expect(listed.find((k) => k.id === old.record.id)?.replacedBy).toBe(rotated!.record.id);
  });

  it("never stores or lists the key itself", async () => {
    const { key } = await t.services.keys.issue({ name: "secret", environment: "dev" });
    expect(JSON.stringify(await t.services.keys.list())).not.toContain(key);
  });
});

describe("revocation by another process reaches a server that caches keys", () => {
  it("is refused once the cache entry is older than its TTL", async () => {
    const cached = await createTestApp({ config: { KEY_CACHE_TTL_SECONDS: 1 } });
    try {
      const url = "/api/v1/products/search?q=tent";
      const call = () => cached.app.inject({ url, headers: { authorization: cached.key } });
      expect((await call()).statusCode).toBe(200);
      // As the CLI does: its own key service on the same database.
      const operator = createKeyService({ db: cached.database.db, clock: () => new Date(), cacheTtlMs: 0 });
      expect(await operator.revoke(cached.key)).not.toBeNull();
      expect((await call()).statusCode).toBe(200);
      cached.advance(1_100);
      expect((await call()).statusCode).toBe(401);
    } finally {
      await cached.close();
    }
  });
});
