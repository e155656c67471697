/**
 * Issue 12, item 3 (the answer side): ANSWER_MAX_BYTES caps what one request's
 * answer may hold, a tRPC or JSON-RPC batch counted as one answer. Past it, the
 * call is refused with 400 `answer_too_large`, naming the cap and how to ask
 * for less, on every transport; never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { BIG, bigId, FIXTURE } from "../helpers/catalog.js";

/** 1 MiB: a product with 300 KB of raw page fits; four of them do not. */
const CAP = 1_048_576;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ records: [...FIXTURE, BIG], config: { ANSWER_MAX_BYTES: CAP } });
});
afterAll(() => t.close());

function get(url: string) {
  return t.app.inject({ url, headers: { authorization: t.key } });
}

describe("issue 12, item 3: ANSWER_MAX_BYTES", () => {
  it("serves a product with its raw data while the answer fits", async () => {
    const response = await get(`/api/v1/products/${bigId}?include_raw_data=1`);
    expect(response.statusCode).toBe(200);
    expect(response.body.length).toBeGreaterThan(300_000);
    expect(response.body.length).toBeLessThan(CAP);
  });

  it("refuses a tRPC batch whose answers together exceed the cap, call by call, and serves the calls that fit", async () => {
    const calls = 6;
    const input = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, { id: bigId, include_raw_data: true }]))),
    );
    const paths = Array.from({ length: calls }, () => "products.byId").join(",");
    const response = await get(`/trpc/${paths}?batch=1&input=${input}`);
    expect(response.statusCode).toBe(207);
    expect(response.body.length).toBeLessThan(CAP);
    const answers = response.json() as ({ result: unknown } | { error: { message: string; data: { code: string; httpStatus: number } } })[];
    const refused = answers.filter((answer) => "error" in answer);
    expect(answers.length - refused.length).toBe(3);
    for (const answer of refused) {
      expect(answer.error.data).toMatchObject({ code: "answer_too_large", httpStatus: 400 });
      expect(answer.error.message).toContain("ANSWER_MAX_BYTES");
      expect(answer.error.message).toContain("include_raw_data");
    }
  });

  it("refuses a REST search whose answer would exceed it with a 400 problem naming the cap and how to ask for less", async () => {
    const capped = await createTestApp({
      records: [BIG, ...Array.from({ length: 4 }, (_, i) => ({ ...BIG, url: `https://big.example/p/huge-tent-${i}` }))],
      config: { ANSWER_MAX_BYTES: CAP },
    });
    try {
      const search = (query: string) => capped.app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: capped.key } });
      const refused = await search("q=tent&include_raw_data=true");
      expect(refused.statusCode).toBe(400);
      expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(refused.json()).toMatchObject({ code: "answer_too_large", status: 400 });
      expect(refused.json().detail).toMatch(/ANSWER_MAX_BYTES.*include_raw_data.*limit/);
      expect((await search("q=tent&include_raw_data=true&limit=2")).statusCode).toBe(200);
      expect((await search("q=tent")).statusCode).toBe(200);
    } finally {
      await capped.close();
    }
  });

  it("refuses it as a tool error on MCP, where each answer counts twice (structured and as text)", async () => {
    const message = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_product_by_id", arguments: { id: bigId, include_raw_data: true } },
    });
    const response = await t.app.inject({
      method: "POST",
      url: "/mcp",
      headers: { authorization: t.key, "content-type": "application/json", accept: "application/json, text/event-stream" },
      payload: [message(1), message(2)],
    });
    expect(response.statusCode).toBe(200);
    const [first, second] = (response.json() as { id: number; result: { isError?: boolean; content: { text: string }[] } }[]).sort(
      (a, b) => a.id - b.id,
    );
    expect(first!.result.isError).toBeUndefined();
    expect(second!.result.isError).toBe(true);
    expect(JSON.parse(second!.result.content[0]!.text)).toMatchObject({ code: "answer_too_large", status: 400 });
  });
});
