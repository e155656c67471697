/** Issue 47: a large answer written in pieces (server/api/http/serialize.ts) is JSON.stringify's text, exactly. */
import { describe, expect, it } from "vitest";
import { stringifyInPieces } from "../../server/api/http/serialize.js";

const page = (n: number) => ({
  strippedHtml: `<p>${'é"\\\n<b>'.repeat(n)}</p>`,
  jsons: { ld_json: { "@type": "Product", offers: [1, 2.5, null] }, props_data: null },
});

describe("stringifyInPieces", () => {
  it.each([
    [
      "a search answer with raw data",
      { products: Array.from({ length: 5 }, (_, i) => ({ pdp: { id: `pdp_${i}`, name: "Tent", raw_data: page(60_000) } })), next_cursor: "abc" },
    ],
    [
      "members JSON.stringify leaves out, and null in arrays",
      { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol("s"), 0, false, ""], d: { e: null } },
    ],
    [
      "a Date and other toJSON values, deep nesting, empty containers",
      { at: new Date(0), deep: { a: { b: { c: { d: [1, { e: 2 }] } } } }, empty: {}, list: [] },
    ],
    ["a bare list and a bare string", [1, "two", { three: 3 }]],
  ])("%s", async (_name, value) => {
    expect(await stringifyInPieces(value)).toBe(JSON.stringify(value));
  });
});
