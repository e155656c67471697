/**
 * The analyser's language-model path (QUERY_ANALYSER=model) against a real OpenAI-compatible server on loopback: the
 * model's reading is searched (a paraphrase finds what the words alone name differently), and every failure — a
 * timeout, an HTTP error, an answer that is not JSON or does not fit the parsed query — leaves the rules' reading, said
 * in `interpretation.analyser`. Readings are kept per query; without the setting no request is made.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openPostgres } from "../../server/db/open.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import type { TestRecord } from "../helpers/catalog.js";
import { chatReply, errorReply, type OpenAiServer, slow, startOpenAiServer } from "../helpers/openai-server.js";
import { type SocketPostgres, startSocketPostgres } from "../helpers/pgsocket.js";

const RECORDS: TestRecord[] = [
  {
    url: "https://shop.haldenaudio.example/products/arc-soundbar",
    name: "Arc 2.1 Soundbar with Wireless Subwoofer",
    desc: "Dolby Atmos bar speaker for the living room.",
    brands: ["Halden Audio"],
    price_label: "$299.00",
  },
  {
    url: "https://shop.haldenaudio.example/products/studio-headphones",
    name: "Studio Over-Ear Headphones",
    desc: "Closed-back wired headphones.",
    brands: ["Halden Audio"],
    price_label: "$149.00",
  },
  {
    url: "https://stridewell.example/products/trail-runner-3",
    name: "Trail Runner 3 Running Shoes",
    desc: "Lightweight trail running shoes.",
    brands: ["Stridewell"],
    price_label: "$139.99",
  },
];

const reading = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    language: "en",
    searched: "soundbar",
    also: ["sound bar", "tv speaker"],
    kind: "soundbar",
    notWanted: [],
    constraints: { price_min: null, price_max: null, currency: null, in_stock: false, brand: null },
    ...over,
  });

let server: OpenAiServer;
beforeAll(async () => {
  server = await startOpenAiServer();
});
afterAll(async () => server.close());
beforeEach(() => server.reset());

const config = () => ({ QUERY_ANALYSER: "model" as const, OPENAI_BASE_URL: server.baseURL, QUERY_MODEL_TIMEOUT_MS: 400 });

async function search(t: TestApp, q: string) {
  const response = await t.app.inject({ url: `/v1/products/search?q=${encodeURIComponent(q)}`, headers: { authorization: `Bearer ${t.key}` } });
  expect(response.statusCode).toBe(200);
  return response.json() as { products: { pdp: { name: string } }[]; interpretation?: { analyser?: string; query: string; applied: unknown[] } };
}

describe.each(["PGlite", "postgres.js"])("on %s", (path) => {
  let t: TestApp;
  let pg: SocketPostgres | undefined;
  beforeAll(async () => {
    pg = path === "postgres.js" ? await startSocketPostgres(4) : undefined;
    t = await createTestApp({ records: RECORDS, config: config(), ...(pg ? { database: openPostgres({ url: pg.url, max: 1 }) } : {}) });
  });
  afterAll(async () => {
    await t.close();
    await pg?.close();
  });

  it("searches the model's reading: its words and other names", async () => {
    server.onChat(() => chatReply(reading()));
    const body = await search(t, "something to make the tv sound better");
    expect(body.interpretation?.analyser).toBe("model");
    expect(body.interpretation?.query).toBe("soundbar");
    expect(body.products[0]?.pdp.name).toContain("Soundbar");
    const sent = server.chatRequests()[0]!.body as { messages: { content: string }[] };
    expect(sent.messages.at(-1)?.content).toBe("something to make the tv sound better");
  });

  it("shows the parsed query with explain=true", async () => {
    server.onChat(() => chatReply(reading()));
    const response = await t.app.inject({
      url: "/v1/products/search?explain=true&q=tv%20sound%20system",
      headers: { authorization: `Bearer ${t.key}` },
    });
    const parsed = response.json().interpretation.parsed;
    expect(parsed).toMatchObject({ query: "soundbar", searched: "soundbar", language: "en", also: ["sound bar", "tv speaker"], kind: "soundbar" });
    expect(parsed.words[0]).toMatchObject({ text: "soundbar" });
  });
});

describe("when the model fails", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ records: RECORDS, config: config() });
  });
  afterAll(async () => t.close());

  it.each([
    ["a timeout", slow(2_000, chatReply(reading()))],
    ["an HTTP error", errorReply(500)],
    ["an answer that is not JSON", chatReply("soundbar, I think")],
    ["an answer that does not fit the parsed query", chatReply(reading({ constraints: { price_max: "cheap" } }))],
  ])("answers with the rules' reading after %s", async (_, reply) => {
    server.onChat(() => reply);
    const started = performance.now();
    const body = await search(t, `running shoes ${Math.random().toString(36).slice(2, 6)}`);
    expect(body.interpretation?.analyser).toBe("rules_fallback");
    expect(body.products[0]?.pdp.name).toContain("Running Shoes");
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("asks once for a query searched twice", async () => {
    server.onChat(() => chatReply(reading({ searched: "headphones", also: [] })));
    await search(t, "cans for music");
    const body = await search(t, "Cans  for music");
    expect(body.interpretation?.analyser).toBe("model");
    expect(server.chatRequests()).toHaveLength(1);
  });

  it("applies the model's constraints only as the catalog allows them", async () => {
    server.onChat(() =>
      chatReply(reading({ constraints: { price_min: null, price_max: 200, currency: "ZZZ", in_stock: false, brand: "Halden Audio" } })),
    );
    const body = await search(t, "a halden soundbar under 200 zorkmids");
    // No product is priced in ZZZ: no price filter; the brand the catalog has applies.
    expect(body.interpretation?.applied).toEqual([{ filter: "brand", value: "Halden Audio", text: "(read by the model)" }]);
  });
});

describe("by default", () => {
  it("asks no model", async () => {
    const t = await createTestApp({ records: RECORDS, config: { OPENAI_BASE_URL: server.baseURL } });
    await search(t, "tv sound system");
    expect(server.chatRequests()).toHaveLength(0);
    await t.close();
  });
});
