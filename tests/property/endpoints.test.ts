/**
 * Property-based: every parameter of every endpoint, REST and /trpc, with
 * generated hostile input (huge, empty, unicode, control characters, repeated
 * parameters, arrays, SQL and JSON injection, encoded path tricks, a 10 kB q,
 * 100 kB headers). None gets a 5xx, the server stays up, and no input costs
 * much more than a normal search: medians are compared, not single samples.
 */
import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";

let t: TestApp;
let baseUrl: string;

const RECORDS = [
  ...FIXTURE,
  ...Array.from({ length: 60 }, (_, i) => ({
    url: `https://prop.example/p/${i}`,
    name: `${["Waterproof", "Insulated", "Trail", "Compact", "Classic"][i % 5]} ${["jacket", "kettle", "tent", "lamp", "boots", "headphones"][i % 6]} ${i}`,
    desc: "A product made up for property tests, with an ordinary description of a few words.",
    brands: [["NorthPeak", "Copperleaf Kitchen", "Halden Audio"][i % 3]!],
  })),
];

beforeAll(async () => {
  t = await createTestApp({ records: RECORDS });
  baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(() => t?.close());

/** Fresh keys now and then, so per-key rate limits never turn the answers into 429s. */
let keyUses = 0;
let currentKey: string | null = null;
async function key(): Promise<string> {
  if (!currentKey || keyUses++ >= 20) {
    currentKey = (await t.services.keys.issue({ name: "property", environment: "dev" })).key;
    keyUses = 1;
  }
  return currentKey;
}

async function get(url: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: "GET", url, headers: { authorization: await key(), ...headers } });
}

/** A 4xx answer is a problem document; a 200 is JSON. Never a 5xx. */
function expectSane(response: Awaited<ReturnType<typeof get>>, what: string) {
  expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`).toBeLessThan(500);
  if (response.statusCode >= 400 && !what.startsWith("/trpc")) {
    expect(response.headers["content-type"], what).toMatch(/^application\/problem\+json/);
  }
}

// ---------------------------------------------------------------- generators

const SQL = [
  "' OR '1'='1",
  "'; DROP TABLE products; --",
  "1; select pg_sleep(10)",
  "\\'; select 1; --",
  "$$; select 1; $$",
  "%' AND 1=1 --",
  "') OR true --",
  "tent:* & !boots | (a <-> b)",
  "'::regclass",
  "E'\\x00'",
];
const JSONISH = ['{"$gt":""}', '{"q":{"$ne":null}}', "[]", "{}", "null", "true", '{"__proto__":{"x":1}}', '"}]}', "\\u0000"];
const PATHISH = ["../", "..%2F..%2Fetc%2Fpasswd", "%2e%2e/", "/./", "//", "%00", "%", "%zz", "%ff%fe", "%c0%af", "?", "#", ";", "&", "+", "\\"];
const HUGE = ["a".repeat(10_240), "ü".repeat(5_000), "東".repeat(4_000), "🧗".repeat(2_600), "a ".repeat(5_000), "%".repeat(3_000)];

const controlChars = fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), maxLength: 40 });
const hostileString = fc.oneof(
  fc.constantFrom("", " ", "\t", "\n", "\u00a0", "\u200b", "\ufeff", "\u202e", "\ud800", "\udfff"),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  controlChars,
  fc.constantFrom(...SQL, ...JSONISH, ...PATHISH),
  fc.constantFrom(...HUGE),
  fc.integer().map(String),
  fc.double().map(String),
);

/** How a value goes into a query string: encoded, raw, or with its own encoding tricks. */
function querySafe(value: string): string {
  // Lone surrogates cannot be percent-encoded; a client sends U+FFFD for them, as a UTF-8 round trip does.
  return Buffer.from(value, "utf8").toString("utf8");
}
const encodedValue = fc.tuple(hostileString, fc.constantFrom("encoded", "double", "raw-ascii")).map(([value, how]) => {
  const safe = querySafe(value);
  if (how === "encoded") return encodeURIComponent(safe);
  if (how === "double") return encodeURIComponent(encodeURIComponent(safe));
  // Raw: whatever the URL can carry verbatim (inject rejects some bytes in a URL; keep printable ASCII).
  return safe.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
});

/** A parameter that may be absent, present once, repeated, an array or an object. */
function param(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<string[]>([]) },
    { weight: 5, arbitrary: value.map((v) => [`${name}=${v}`]) },
    { weight: 1, arbitrary: fc.tuple(value, value).map(([a, b]) => [`${name}=${a}`, `${name}=${b}`]) },
    { weight: 1, arbitrary: value.map((v) => [`${name}[]=${v}`]) },
    { weight: 1, arbitrary: value.map((v) => [`${name}[x]=${v}`]) },
    { weight: 1, arbitrary: fc.constant<string[]>([name]) },
  );
}

const normalQ = fc.constantFrom("tent", "waterproof jacket", "cast iron pan", "headphones", "running shoes").map(encodeURIComponent);
const qValue = fc.oneof(normalQ, encodedValue);
const limitValue = fc.oneof(fc.constantFrom("1", "20", "100", "0", "101", "-1", "1e2", "0x10", "NaN", "Infinity", "1.5", " 5", "٣"), encodedValue);
const boolValue = fc.oneof(fc.constantFrom("true", "false", "1", "0", "TRUE", "yes", ""), encodedValue);
const brandValue = fc.oneof(
  fc.constantFrom("northpeak.example", "https://www.NorthPeak.example:443/x?y#z", "localhost", "127.0.0.1", "[::1]"),
  encodedValue,
);
const urlValue = fc.oneof(
  fc.constantFrom(...FIXTURE.map((record) => encodeURIComponent(record.url))),
  encodedValue.map((v) => encodeURIComponent("https://a.example/") + v),
  encodedValue,
  fc
    .constantFrom("javascript:alert(1)", "file:///etc/passwd", "http://[::1]:99999/", `https://a.example/${"x".repeat(3000)}`)
    .map(encodeURIComponent),
);

function queryString(parts: string[][]): string {
  return parts.flat().join("&");
}

const RUNS = { numRuns: 100 };

// ---------------------------------------------------------------- properties

describe("REST: no input reaches a 5xx", () => {
  it("search: q, brand_url, limit, include_raw_data, in any combination and shape", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .tuple(
            param("q", qValue),
            param("brand_url", brandValue),
            param("limit", limitValue),
            param("include_raw_data", boolValue),
            param("zz", encodedValue),
          )
          .chain((parts) => fc.shuffledSubarray(parts, { minLength: parts.length })),
        fc.constantFrom("/api/v1", "/v1"),
        async (parts, prefix) => {
          const url = `${prefix}/products/search?${queryString(parts)}`;
          expectSane(await get(url), url);
        },
      ),
      RUNS,
    );
  });

  it("by id: the path segment, encoded or raw, and include_raw_data", async () => {
    const idValue = fc.oneof(fc.constantFrom("pdp_missing", "a".repeat(129), "a".repeat(3000)), encodedValue);
    await fc.assert(
      fc.asyncProperty(idValue, param("include_raw_data", boolValue), async (id, raw) => {
        const url = `/api/v1/products/${id}${raw.length ? `?${raw.join("&")}` : ""}`;
        expectSane(await get(url), url);
      }),
      RUNS,
    );
  });

  it("by URL: url and include_raw_data", async () => {
    await fc.assert(
      fc.asyncProperty(param("url", urlValue), param("include_raw_data", boolValue), async (url, raw) => {
        const path = `/v1/products?${queryString([url, raw])}`;
        expectSane(await get(path), path);
      }),
      RUNS,
    );
  });

  it("headers: Authorization, X-Request-Id and Accept of any shape", async () => {
    const latin1 = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 300 });
    const headerValue = fc.oneof(
      latin1,
      fc.constantFrom(
        "Bearer",
        "Bearer ",
        "bearer  x",
        "Basic dXNlcjpwdw==",
        `Bearer ${"A".repeat(60)}`,
        `pcl_test_${"1".repeat(45)}`,
        "x".repeat(20_000),
      ),
    );
    await fc.assert(
      fc.asyncProperty(headerValue, headerValue, headerValue, async (authorization, requestId, accept) => {
        const response = await t.app.inject({ url: "/api/v1/products/search?q=tent", headers: { authorization, "x-request-id": requestId, accept } });
        expectSane(response, `authorization=${JSON.stringify(authorization.slice(0, 40))}`);
        expect(response.headers["x-request-id"]).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      }),
      RUNS,
    );
  });
});

describe("UCP: no body reaches a 5xx, and every refusal is the protocol's error envelope", () => {
  const member = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }));
  const some = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(member, arbitrary);
  // Shaped like the protocol's requests often enough to get past the first member, hostile anywhere.
  const body = fc.oneof(
    member,
    fc.record(
      {
        query: member,
        filters: some(
          fc.record(
            {
              price: some(fc.record({ min: member, max: member }, { requiredKeys: [] })),
              categories: some(fc.array(hostileString, { maxLength: 12 })),
              brands: some(fc.array(hostileString, { maxLength: 22 })),
              availability: some(fc.array(fc.oneof(fc.constantFrom("in_stock", "preorder"), hostileString), { maxLength: 3 })),
            },
            { requiredKeys: [] },
          ),
        ),
        context: some(fc.record({ currency: some(fc.constantFrom("USD", "EUR", "JPY", "usd", "XXX")) }, { requiredKeys: [] })),
        pagination: some(fc.record({ cursor: member, limit: some(fc.constantFrom(0, 1, 10, 101, -1, 1.5, 1e21)) }, { requiredKeys: [] })),
        ids: some(fc.array(fc.oneof(hostileString, fc.constantFrom(...FIXTURE.map((record) => record.url))), { maxLength: 60 })),
        id: member,
        selected: some(fc.array(fc.record({ name: member, label: member }, { requiredKeys: [] }), { maxLength: 4 })),
        preferences: member,
      },
      { requiredKeys: [] },
    ),
  );
  const agent = fc.constantFrom(
    'profile="https://platform.example/.well-known/ucp"',
    "",
    "profile=1",
    'profile="javascript:alert(1)"',
    "a=b, c",
    '"',
  );

  it("search, lookup and product, with any JSON body and UCP-Agent", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("search", "lookup", "product"), body, agent, async (operation, value, ucpAgent) => {
        const response = await t.app.inject({
          method: "POST",
          url: `/ucp/catalog/${operation}`,
          headers: { authorization: await key(), "ucp-agent": ucpAgent, "content-type": "application/json" },
          payload: JSON.stringify(value) ?? "null",
        });
        const what = `${operation} ${ucpAgent} ${JSON.stringify(value)?.slice(0, 300)}`;
        expect(response.statusCode, `${what} → ${response.statusCode} ${response.body.slice(0, 300)}`).toBeLessThan(500);
        if (response.statusCode >= 400)
          expect(response.json(), what).toMatchObject({
            ucp: { status: "error" },
            messages: expect.arrayContaining([expect.objectContaining({ type: "error", code: expect.any(String) })]),
          });
      }),
      RUNS,
    );
  });
});

describe("/trpc: no input reaches a 5xx", () => {
  const procedures = ["products.search", "products.byId", "products.byUrl", "products", "nope", "products.search,products.byId"];
  const input = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((value) => encodeURIComponent(querySafe(JSON.stringify(value)))),
    fc
      .record(
        {
          q: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 2 })),
          limit: fc.oneof(fc.integer(), fc.double(), hostileString, fc.jsonValue({ maxDepth: 1 })),
          brand_url: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 1 })),
          include_raw_data: fc.oneof(fc.boolean(), hostileString, fc.jsonValue({ maxDepth: 1 })),
          id: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 1 })),
          url: fc.oneof(hostileString, fc.jsonValue({ maxDepth: 1 })),
        },
        { requiredKeys: [] },
      )
      .map((value) => encodeURIComponent(querySafe(JSON.stringify(value)))),
    encodedValue,
  );
  it("every procedure, plain and batched, with any input", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...procedures), input, fc.boolean(), async (procedure, value, batch) => {
        const url = batch
          ? `/trpc/${procedure}?batch=1&input=${encodeURIComponent(`{"0":`)}${value}${encodeURIComponent("}")}`
          : `/trpc/${procedure}?input=${value}`;
        expectSane(await get(url), `/trpc ${url.slice(0, 200)}`);
      }),
      RUNS,
    );
  });

  // KNOWN BUG, found by the property above with POST: tRPC's METHOD_NOT_SUPPORTED (and
  // UNSUPPORTED_MEDIA_TYPE) have no entry in server/api/problems.ts's CODE_BY_TRPC, so they
  // become `internal`, and the error formatter turns the answer into a 500. When that is fixed,
  // this test fails: make it a plain `it`.
  it("POST to a query procedure, with any body, is a 4xx", async () => {
    for (const payload of ["", "aaaa", "{}", '{"q":"tent"}']) {
      for (const contentType of ["application/json", "text/plain"]) {
        const response = await t.app.inject({
          method: "POST",
          url: "/trpc/products.search",
          payload,
          headers: { authorization: await key(), "content-type": contentType },
        });
        expect(response.statusCode, `${contentType} ${payload}`).toBeLessThan(500);
      }
    }
  });
});

// ---------------------------------------------------------------- real HTTP: what inject cannot send

function rawHttp(path: string, headers: Record<string, string>): Promise<{ status: number | string; body: string }> {
  return new Promise((resolve) => {
    const request = httpRequest(`${baseUrl}${path}`, { method: "GET", headers, agent: false }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? "error", body: "" }));
    request.end();
  });
}

describe("real HTTP: huge headers and URLs", () => {
  it("answers a 100 kB header, a 100 kB Authorization and a 100 kB URL with a 4xx (431), then serves normally", async () => {
    const authorization = await key();
    const answers = [
      await rawHttp("/api/v1/products/search?q=tent", { authorization, "x-padding": "a".repeat(100_000) }),
      await rawHttp("/api/v1/products/search?q=tent", { authorization: `Bearer ${"A".repeat(100_000)}` }),
      await rawHttp(`/api/v1/products/search?q=${"a".repeat(100_000)}`, { authorization }),
      await rawHttp("/health", Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`x-h${i}`, "y".repeat(50)]))),
    ];
    for (const answer of answers) {
      // Node refuses oversized heads with 431 before any of our code runs; a reset is acceptable too, a 5xx is not.
      expect(answer.status === 431 || answer.status === 400 || answer.status === "ECONNRESET", `got ${answer.status}`).toBe(true);
    }
    expect((await rawHttp("/api/v1/products/search?q=tent", { authorization })).status).toBe(200);
  });

  it("answers a 10 kB q over HTTP with 400 invalid_parameter", async () => {
    const answer = await rawHttp(`/api/v1/products/search?q=${"a".repeat(10_240)}`, { authorization: await key() });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "invalid_parameter", errors: [{ param: "q" }] });
  });
});

// ---------------------------------------------------------------- cost

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

describe("no input is much slower than a normal search", () => {
  it("each family of hostile but valid input stays within a small factor of the median normal search", async () => {
    const normal = ["waterproof jacket", "cast iron pan", "headphones", "trail running shoes", "insulated kettle", "tent"];
    // Valid inputs that make the most work: the longest q allowed, many words (many OR-ed terms), scripts, injection text.
    const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(" ");
    /**
     * The sentence encoder's time grows with the length of q (README, "The sentence encoder"):
     * a q of 400–512 characters measures 4–5× a three-word one, all of it in embedding. Those
     * families get 8× until the embedded query text is capped (see the report); the rest 5×.
     */
    const LONG_Q = 8;
    const families: Record<string, { make: (i: number) => string; factor: number }> = {
      "512 characters": { factor: LONG_Q, make: (i) => `q=${encodeURIComponent(`${"x".repeat(500)}${i}`.slice(0, 512))}` },
      "many words": { factor: LONG_Q, make: (i) => `q=${encodeURIComponent(`${i} ${words}`.slice(0, 512))}&limit=100` },
      unicode: { factor: LONG_Q, make: (i) => `q=${encodeURIComponent(`${i}${"東京🧗ﬁǅİßمرحبا".repeat(40)}`.slice(0, 500))}` },
      sql: { factor: LONG_Q, make: (i) => `q=${encodeURIComponent(`${SQL[i % SQL.length]} ${"' OR 1=1 -- ".repeat(30)}`.slice(0, 512))}` },
      "tsquery syntax": { factor: LONG_Q, make: (i) => `q=${encodeURIComponent(`${i} ${"a:* & !b | (c <-> d) ".repeat(20)}`.slice(0, 512))}` },
      // A long run of spaces inside q: a regular expression tried at each of its positions costs its square.
      "runs of spaces": { factor: 5, make: (i) => `q=${encodeURIComponent(`a${" ".repeat(505)}b${i}`)}` },
      "control characters": { factor: 5, make: (i) => `q=${encodeURIComponent(`${i}\u0000\u0001${"\u001f\u007f".repeat(200)}`)}` },
      "short injection": { factor: 5, make: (i) => `q=${encodeURIComponent(SQL[i % SQL.length]!)}` },
      "brand scope": {
        factor: 5,
        make: (i) => `q=tent&brand_url=${encodeURIComponent(`https://${"sub.".repeat(60)}northpeak${i}.example/${"p/".repeat(300)}`)}`,
      },
      "limit 100 with raw data": { factor: 5, make: (i) => `q=${normal[i % normal.length]}&limit=100&include_raw_data=true` },
      "rejected: 10 kB": { factor: 5, make: (i) => `q=${"a".repeat(10_240)}${i}` },
      "rejected: arrays": { factor: 5, make: (i) => `q[]=${i}&q[x]=1&limit=1&limit=2` },
    };
    const rounds = 6;
    const times: Record<string, number[]> = { normal: [] };
    for (const name of Object.keys(families)) times[name] = [];
    const timed = async (query: string) => {
      const started = performance.now();
      const response = await get(`/api/v1/products/search?${query}`);
      const ms = performance.now() - started;
      expect(response.statusCode, query.slice(0, 80)).toBeLessThan(500);
      return ms;
    };
    for (let i = 0; i < 3; i++) await timed(`q=${encodeURIComponent(normal[i]!)}`); // warm up
    // Interleaved, so drift on a busy machine hits every family alike.
    for (let round = 0; round < rounds; round++) {
      for (const [name, family] of Object.entries(families)) {
        times.normal!.push(await timed(`q=${encodeURIComponent(`${normal[(round * 7 + name.length) % normal.length]} ${round}`)}`));
        times[name]!.push(await timed(family.make(round)));
      }
    }
    const baseline = median(times.normal!);
    const report = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, Math.round(median(values) * 10) / 10]));
    console.log(`median ms: ${JSON.stringify(report)}`);
    for (const [name, family] of Object.entries(families)) {
      expect(median(times[name]!), `${name}: ${report[name]} ms against ${report.normal} ms`).toBeLessThan(family.factor * Math.max(baseline, 5));
    }
  });
});

describe("after all of the above", () => {
  it("the server is still up and answers normally", async () => {
    expect((await get("/health")).json()).toMatchObject({ status: "ok", products: RECORDS.length });
    const search = await get("/api/v1/products/search?q=cast%20iron%20pan&limit=1");
    expect(search.statusCode).toBe(200);
    expect(search.json().products[0].pdp.name).toBe("Cast Iron Skillet 26 cm");
  });
});
