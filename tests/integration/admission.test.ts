/**
 * Search admission through the real API (issue 16): a server saturated with
 * searches answers the excess at once with 503 `overloaded` and Retry-After,
 * keeps answering lookups and /health, and lets a second client's search in
 * ahead of the first client's backlog.
 *
 * A search is held in progress by the `llm` reranker waiting on a loopback
 * OpenAI-compatible server that answers only when the test says so.
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { rankedReply, startOpenAiServer, type OpenAiServer } from "../helpers/openai-server.js";
import { createLlmReranker } from "../../server/search/rerankers/llm.js";

let server: OpenAiServer;
let t: TestApp;
let release: () => void = () => undefined;
let held: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = await startOpenAiServer();
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: "sk-test", maxRetries: 0 });
  server.onChat(async () => {
    await held;
    return rankedReply([]);
  });
  t = await createTestApp({
    reranker: () => createLlmReranker({ client, model: "test-model", timeoutMs: 60_000, cacheSize: 0 }),
    config: { SEARCH_CONCURRENCY: 1, SEARCH_QUEUE_LENGTH: 2, SEARCH_QUEUE_TIMEOUT_MS: 60_000 },
  });
});
afterAll(async () => {
  release();
  await t?.close();
  await server?.close();
});

/** Holds every search at its reranker until `release()`. */
function hold(): void {
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await condition()).toBe(true);
}

function search(key: string, q: string) {
  return t.app.inject({ url: `/api/v1/products/search?q=${encodeURIComponent(q)}`, headers: { authorization: key } });
}

/** The value of one series on /metrics. */
async function sample(series: string): Promise<number | undefined> {
  const text = (await t.app.inject({ url: "/metrics", headers: { authorization: t.key } })).body;
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("search admission under saturation", () => {
  it("answers searches past the slots and the queue at once with 503 overloaded and Retry-After, while lookups and /health answer", async () => {
    const id = (await search(t.key, "tent")).json().products[0].pdp.id as string;
    const before = server.chatRequests().length;
    hold();
    // Two products match: the reranker is asked, and holds it.
    const running = search(t.key, "sleeping bag tent");
    await until(() => server.chatRequests().length === before + 1);
    const queued = [search(t.key, "skillet"), search(t.key, "kettle")];
    await until(async () => (await sample("catalog_search_queue_depth")) === 2);

    // The held search has not finished, so these were refused without waiting for it.
    const refused = await Promise.all([search(t.key, "lamp"), search(t.key, "boots")]);
    for (const response of refused) {
      expect(response.statusCode).toBe(503);
      expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ code: "overloaded", status: 503 });
      expect(String(response.headers["retry-after"])).toMatch(/^[1-9][0-9]*$/);
    }
    // tRPC says the same, with the same header.
    const trpc = await t.app.inject({
      url: `/trpc/products.search?input=${encodeURIComponent(JSON.stringify({ q: "lamp" }))}`,
      headers: { authorization: t.key },
    });
    expect(trpc.statusCode).toBe(503);
    expect(trpc.headers["retry-after"]).toBeDefined();
    // So does the UCP binding's search (declared with the same admission), in the protocol's error envelope.
    const ucp = await t.app.inject({
      method: "POST",
      url: "/ucp/catalog/search",
      headers: { authorization: t.key, "ucp-agent": 'profile="https://platform.example/.well-known/ucp"', "content-type": "application/json" },
      payload: { query: "lamp" },
    });
    expect(ucp.statusCode).toBe(503);
    expect(ucp.headers["retry-after"]).toBeDefined();
    expect(ucp.json()).toMatchObject({ ucp: { status: "error" }, messages: [{ type: "error", code: "overloaded" }] });

    // Lookups and /health never queue behind searches.
    const lookup = await t.app.inject({ url: `/api/v1/products/${id}`, headers: { authorization: t.key } });
    expect(lookup.statusCode).toBe(200);
    const health = await t.app.inject({ url: "/health", headers: { authorization: t.key } });
    expect(health.statusCode).toBe(200);
    expect(server.chatRequests()).toHaveLength(before + 1);

    release();
    const answered = await Promise.all([running, ...queued]);
    expect(answered.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect(await sample('catalog_search_rejected_total{reason="queue_full"}')).toBe(4);
    expect(await sample("catalog_search_queue_depth")).toBe(0);
  });

  it("lets a second client's search in when the first client has filled the queue: the first client's newest waiter is refused instead", async () => {
    const other = (await t.services.keys.issue({ name: "other", environment: "dev" })).key;
    const before = server.chatRequests().length;
    hold();
    const running = search(t.key, "kitchen");
    await until(() => server.chatRequests().length === before + 1);
    const first = [search(t.key, "skillet"), search(t.key, "kettle")];
    await until(async () => (await sample("catalog_search_queue_depth")) === 2);
    const theirs = search(other, "lamp");
    // The first client's newest waiter gives up its place, at once.
    const evicted = await first[1]!;
    expect(evicted.statusCode).toBe(503);
    expect(evicted.json()).toMatchObject({ code: "overloaded" });
    expect(evicted.headers["retry-after"]).toBeDefined();
    release();
    expect((await theirs).statusCode).toBe(200);
    expect((await running).statusCode).toBe(200);
    expect((await first[0]!).statusCode).toBe(200);
  });
});
