/**
 * Per-key rate limits on a real database: the counters live in `rate_limits`,
 * time comes from a fake clock handed to the composition root (no sleeps).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { Root } from "../../server/compose.js";
import type { Config } from "../../server/config.js";
import { openPostgres } from "../../server/db/open.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { startSocketPostgres, type SocketPostgres } from "../helpers/pgsocket.js";
import { FIXTURE } from "../helpers/catalog.js";
import { rateLimits } from "../../server/db/schema.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";
import { ProblemSchema } from "../../shared/schemas/index.js";
import { resolveRateLimitStore } from "../../server/api/http/ratelimit.js";
import { run } from "../../server/cli/run.js";

const PREFIXES = ["/api/v1", "/v1"];
const tentId = productIdFromUrlKey(productUrlKey(FIXTURE[0]!.url)!);
/** 12:00:00 on some day: window boundaries fall on whole minutes. */
const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

let t: TestApp;
let clock = T0;
const roots: Root[] = [];

/** A server instance on `database` (its own services and key cache), counting in the database unless told otherwise. */
async function app(settings: Partial<Config> = {}, database = t.database): Promise<FastifyInstance> {
  const root = await rootOn(database, {
    config: { API_PREFIXES: PREFIXES, RATE_LIMIT_STORE: "database", ...settings },
    clock: () => new Date(clock),
  });
  roots.push(root);
  const built = await root.app();
  await built.ready();
  return built;
}

async function closeApps(): Promise<void> {
  for (const root of roots.splice(0)) await root.close();
}

async function newKey(rateLimitPerMinute?: number): Promise<string> {
  const { key } = await t.services.keys.issue({ name: "rl", environment: "dev", ...(rateLimitPerMinute ? { rateLimitPerMinute } : {}) });
  return key;
}

function get(target: FastifyInstance, url: string, key: string, headers: Record<string, string> = {}) {
  return target.inject({ method: "GET", url, headers: { authorization: key, ...headers } });
}

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await closeApps();
  await t.close();
});

describe("rate limits", () => {
  it("answers 429 in the problem shape with Retry-After once the limit is spent, and resets with the window", async () => {
    clock = T0 + 18_000; // 42 s left in the window
    const a = await app({ RATE_LIMIT_PER_MINUTE: 3 });
    const key = await newKey();
    for (const remaining of [2, 1, 0]) {
      const ok = await get(a, `/api/v1/products/${tentId}`, key);
      expect(ok.statusCode).toBe(200);
      expect(ok.headers["ratelimit-policy"]).toBe('"default";q=3;w=60');
      expect(ok.headers.ratelimit).toBe(`"default";r=${remaining};t=42`);
    }
    const limited = await get(a, `/api/v1/products/${tentId}`, key);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(limited.headers["retry-after"]).toBe("42");
    expect(limited.headers["ratelimit-policy"]).toBe('"default";q=3;w=60');
    expect(limited.headers.ratelimit).toBe('"default";r=0;t=42');
    const body = ProblemSchema.parse(limited.json());
    expect(body).toMatchObject({ status: 429, code: "rate_limited", title: "Too many requests" });
    expect(body.request_id).toBe(limited.headers["x-request-id"]);

    clock = T0 + 59_500;
    expect((await get(a, "/health", key)).headers["retry-after"]).toBe("1");
    clock = T0 + 60_000; // the next window
    const again = await get(a, `/api/v1/products/${tentId}`, key);
    expect(again.statusCode).toBe(200);
    expect(again.headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it("uses the limit a key was issued with over the server's default", async () => {
    clock = T0;
    const a = await app({ RATE_LIMIT_PER_MINUTE: 100 });
    const own = await newKey(2);
    const first = await get(a, `/v1/products/${tentId}`, own);
    expect(first.headers["ratelimit-policy"]).toBe('"default";q=2;w=60');
    await get(a, `/v1/products/${tentId}`, own);
    expect((await get(a, `/v1/products/${tentId}`, own)).statusCode).toBe(429);
    // Another key is untouched by the first one's spending.
    const other = await get(a, `/v1/products/${tentId}`, await newKey());
    expect(other.statusCode).toBe(200);
    expect(other.headers.ratelimit).toBe('"default";r=99;t=60');
  });

  it("charges a search 5 units and a lookup 1, on REST and tRPC alike (a batch costs the sum)", async () => {
    clock = T0;
    const a = await app({ RATE_LIMIT_PER_MINUTE: 20 });
    const key = await newKey();
    expect((await get(a, "/api/v1/products/search?q=tent", key)).headers.ratelimit).toBe('"default";r=15;t=60');
    expect((await get(a, `/api/v1/products?url=${encodeURIComponent(FIXTURE[0]!.url)}`, key)).headers.ratelimit).toBe('"default";r=14;t=60');
    const input = encodeURIComponent(JSON.stringify({ q: "tent" }));
    const trpc = await get(a, `/trpc/products.search?input=${input}`, key);
    expect(trpc.statusCode).toBe(200);
    expect(trpc.headers.ratelimit).toBe('"default";r=9;t=60');
    const batchInput = encodeURIComponent(JSON.stringify({ 0: { q: "pan" }, 1: { id: tentId } }));
    const batch = await get(a, `/trpc/products.search,products.byId?batch=1&input=${batchInput}`, key);
    expect(batch.statusCode).toBe(200);
    expect(batch.headers.ratelimit).toBe('"default";r=3;t=60');
    // 3 left: a search does not fit, a lookup does.
    expect((await get(a, "/api/v1/products/search?q=tent", key)).statusCode).toBe(429);
    const trpcLimited = await get(a, `/trpc/products.byId?input=${encodeURIComponent(JSON.stringify({ id: tentId }))}`, key);
    expect(trpcLimited.statusCode).toBe(429);
    expect(trpcLimited.headers["retry-after"]).toBe("60");
    // In tRPC's own error shape, so tRPC clients see the machine code.
    expect(trpcLimited.json()).toMatchObject({ error: { data: { code: "rate_limited", httpStatus: 429 } } });
  });

  it("puts the headers on every answer for a valid key, errors included, and none on 401s", async () => {
    clock = T0;
    const a = await app({ RATE_LIMIT_PER_MINUTE: 50 });
    const key = await newKey();
    const answers = [
      await get(a, "/api/v1/products/search?q=tent", key),
      await get(a, "/api/v1/products/search?limit=0", key), // 400
      await get(a, "/api/v1/products/pdp_nothing_here", key), // 404
      await get(a, "/health", key),
      await get(a, `/trpc/products.byId?input=${encodeURIComponent(JSON.stringify({ id: "pdp_none" }))}`, key),
    ];
    expect(answers.map((r) => r.statusCode)).toEqual([200, 400, 404, 200, 404]);
    for (const answer of answers) {
      expect(answer.headers["ratelimit-policy"]).toBe('"default";q=50;w=60');
      expect(answer.headers.ratelimit).toMatch(/^"default";r=\d+;t=60$/);
    }
    const anonymous = await a.inject({ method: "GET", url: "/api/v1/products/search?q=tent" });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers.ratelimit).toBeUndefined();
    // Public documents are not limited.
    expect((await a.inject({ method: "GET", url: "/openapi.json" })).headers.ratelimit).toBeUndefined();
  });

  it("holds one limit across two instances on the same database", async () => {
    clock = T0;
    // Two servers: separate services (separate key caches) over one PGlite handle.
    const a = await app({ RATE_LIMIT_PER_MINUTE: 4, RATE_LIMIT_SYNC_MS: 0 });
    const b = await app({ RATE_LIMIT_PER_MINUTE: 4, RATE_LIMIT_SYNC_MS: 0 });
    const key = await newKey();
    expect((await get(a, `/v1/products/${tentId}`, key)).headers.ratelimit).toBe('"default";r=3;t=60');
    expect((await get(b, `/v1/products/${tentId}`, key)).headers.ratelimit).toBe('"default";r=2;t=60');
    expect((await get(a, `/v1/products/${tentId}`, key)).headers.ratelimit).toBe('"default";r=1;t=60');
    expect((await get(b, `/v1/products/${tentId}`, key)).headers.ratelimit).toBe('"default";r=0;t=60');
    expect((await get(a, `/v1/products/${tentId}`, key)).statusCode).toBe(429);
    expect((await get(b, `/v1/products/${tentId}`, key)).statusCode).toBe(429);
    // Concurrent requests through both: each is counted exactly once.
    const other = await newKey(7);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => get(i % 2 ? a : b, `/v1/products/${tentId}`, other)));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(7);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(3);
  });

  it("by default writes the shared counter once per interval per key, learning the other instance's use", async () => {
    clock = T0;
    const a = await app({ RATE_LIMIT_PER_MINUTE: 10, RATE_LIMIT_SYNC_MS: 1000 });
    const b = await app({ RATE_LIMIT_PER_MINUTE: 10, RATE_LIMIT_SYNC_MS: 1000 });
    const key = await newKey();
    const verified = await t.services.keys.verify(key);
    if (verified.code !== "VALID") throw new Error(verified.code);
    const sharedCount = async () =>
      (await t.database.db.select({ used: rateLimits.used }).from(rateLimits).where(eq(rateLimits.keyId, verified.principal.keyId)))[0]?.used;
    const remaining = async (target: FastifyInstance) => (await get(target, `/v1/products/${tentId}`, key)).headers.ratelimit;
    // The shared row shows a sync once it commits, a moment before the sync's answer reaches its server (on a real
    // Postgres, a round trip later): the count, then time for that answer to arrive.
    const synced = async (count: number) => {
      await vi.waitFor(async () => expect(await sharedCount()).toBe(count));
      await new Promise((resolve) => setTimeout(resolve, 100));
    };

    expect(await remaining(a)).toBe('"default";r=9;t=60'); // a key's first request waits for the shared counter
    expect(await remaining(a)).toBe('"default";r=8;t=60');
    expect(await remaining(a)).toBe('"default";r=7;t=60'); // counted here only, so far
    expect(await sharedCount()).toBe(1);
    expect(await remaining(b)).toBe('"default";r=8;t=60'); // b sees a's first, not the two since
    clock = T0 + 1000;
    // The interval has passed: a sends its 3 behind this answer, which counts them already…
    expect(await remaining(a)).toBe('"default";r=6;t=59');
    await synced(5);
    // …and has learnt of b's 1 by its next answer.
    expect(await remaining(a)).toBe('"default";r=4;t=59');
    // a spends the rest; b refuses once its own sync has brought a's use over.
    for (let i = 0; i < 4; i++) await get(a, `/v1/products/${tentId}`, key);
    expect((await get(a, `/v1/products/${tentId}`, key)).statusCode).toBe(429);
    clock = T0 + 2000;
    await get(a, `/v1/products/${tentId}`, key); // sends a's 7 (refused requests count too)
    // Landed before b's is sent: on a pool of connections, two syncs behind their answers may commit in either order.
    await synced(12);
    await get(b, `/v1/products/${tentId}`, key); // sends b's 1, learns the rest
    await synced(13);
    expect((await get(b, `/v1/products/${tentId}`, key)).statusCode).toBe(429);
  });

  it("keeps counting in a window another instance's clock has already started", async () => {
    const a = await app({ RATE_LIMIT_PER_MINUTE: 10 });
    const key = await newKey();
    clock = T0 + 60_000;
    await get(a, `/v1/products/${tentId}`, key); // the newer window: 1 used
    clock = T0 + 59_000; // a server whose clock lags adds to the newer window rather than resetting it
    const late = await get(a, `/v1/products/${tentId}`, key);
    expect(late.headers.ratelimit).toBe('"default";r=8;t=61');
  });

  it("can count in memory instead, for a single instance", async () => {
    clock = T0;
    const a = await app({ RATE_LIMIT_PER_MINUTE: 1, RATE_LIMIT_STORE: "memory" });
    const key = await newKey();
    expect((await get(a, `/v1/products/${tentId}`, key)).statusCode).toBe(200);
    expect((await get(a, `/v1/products/${tentId}`, key)).statusCode).toBe(429);
    clock = T0 + 60_000;
    expect((await get(a, `/v1/products/${tentId}`, key)).statusCode).toBe(200);
  });
});

describe("rate-limit settings", () => {
  it("chooses the store for RATE_LIMIT_STORE=auto by whether the database can be shared", () => {
    expect(resolveRateLimitStore("auto", "postgres")).toBe("database");
    expect(resolveRateLimitStore("auto", "pglite")).toBe("memory");
    expect(resolveRateLimitStore("database", "pglite")).toBe("database");
    expect(resolveRateLimitStore("memory", "postgres")).toBe("memory");
  });
});

describe("rate limits through postgres.js", () => {
  let pg: SocketPostgres;
  let test: TestApp;
  beforeAll(async () => {
    pg = await startSocketPostgres(4);
    test = await createTestApp({ database: openPostgres({ url: pg.url, max: 4 }) });
  });
  afterAll(async () => {
    await test?.close();
    await pg?.close();
  });

  it("shares one limit between two instances, each with its own pool", async () => {
    clock = T0;
    const otherDb = openPostgres({ url: pg.url, max: 2 });
    try {
      const a = await app({ RATE_LIMIT_PER_MINUTE: 6, RATE_LIMIT_SYNC_MS: 0 }, test.database);
      const b = await app({ RATE_LIMIT_PER_MINUTE: 6, RATE_LIMIT_SYNC_MS: 0 }, otherDb);
      // One after the other: pglite-socket runs every connection in one session, so truly
      // concurrent extended-protocol queries from two pools would trip over each other there.
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await get(i % 2 ? a : b, `/v1/products/${tentId}`, test.key)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
      const search = await get(a, "/v1/products/search?q=tent", test.key);
      expect(search.statusCode).toBe(429);
    } finally {
      await closeApps();
      await otherDb.close();
    }
  });

  it("takes a key's own limit from `catalog keys issue --rate-limit N`", async () => {
    clock = T0;
    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), err: () => undefined };
    const env = { DATABASE_URL: pg.url, LOG_LEVEL: "silent" };
    expect(await run(["keys", "issue", "--name", "metered", "--rate-limit", "7"], env, out)).toBe(0);
    const key = lines.at(-1)!;
    const a = await app({ RATE_LIMIT_PER_MINUTE: 100 }, test.database);
    try {
      const first = await get(a, "/v1/products/search?q=tent", key);
      expect(first.headers["ratelimit-policy"]).toBe('"default";q=7;w=60');
      expect(first.headers.ratelimit).toBe('"default";r=2;t=60');
      expect((await get(a, "/v1/products/search?q=tent", key)).statusCode).toBe(429);
      await expect(run(["keys", "issue", "--name", "bad", "--rate-limit", "0"], env, out)).rejects.toThrow(/--rate-limit/);
    } finally {
      await closeApps();
    }
  });
});
