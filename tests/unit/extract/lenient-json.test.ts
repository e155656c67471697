import { describe, expect, it } from "vitest";
import { parseLenientJson, valueAfter } from "../../../server/ingest/extract/lenient-json.js";

describe("parseLenientJson", () => {
  it("reads valid JSON unchanged", () => {
    expect(parseLenientJson('{"a": [1, 2.5, "x"], "b": null, "c": true}')).toEqual({ a: [1, 2.5, "x"], b: null, c: true });
  });

  it("accepts trailing commas and missing commas between members", () => {
    expect(parseLenientJson('{"a": 1, "b": [1, 2,], }')).toEqual({ a: 1, b: [1, 2] });
    expect(parseLenientJson('{"a": "x"\n "b": "y"}')).toEqual({ a: "x", b: "y" });
  });

  it("skips // and /* */ comments and <!-- --> / CDATA wrappers", () => {
    expect(parseLenientJson('<!-- {"a": 1, // note\n /* block */ "b": 2} -->')).toEqual({ a: 1, b: 2 });
    expect(parseLenientJson('//<![CDATA[\n{"a": 1}\n//]]>')).toEqual({ a: 1 });
  });

  it("keeps raw newlines and tabs inside strings", () => {
    expect(parseLenientJson('{"d": "line one\nline\ttwo"}')).toEqual({ d: "line one\nline\ttwo" });
  });

  it("keeps stray quotes that cannot end a string", () => {
    expect(parseLenientJson('{"name": "55" TV "Pro"", "sku": "A1"}')).toEqual({ name: '55" TV "Pro"', sku: "A1" });
  });

  it("decodes JSON that was HTML-entity-encoded", () => {
    expect(parseLenientJson("{&quot;name&quot;:&quot;Socks&quot;}")).toEqual({ name: "Socks" });
  });

  it("reads JavaScript object literals: unquoted keys, single quotes, undefined", () => {
    expect(parseLenientJson("{name: 'Mug', price: 12.5, extra: undefined, list: [NaN]}")).toEqual({
      name: "Mug",
      price: 12.5,
      extra: null,
      list: [null],
    });
  });

  it("returns undefined for text that is not JSON", () => {
    expect(parseLenientJson("")).toBeUndefined();
    expect(parseLenientJson("function () { return 1 }")).toBeUndefined();
  });

  it("keeps several top-level values as an array", () => {
    expect(parseLenientJson('{"a": 1}\n{"b": 2}')).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it("does not overflow the stack on deep nesting", () => {
    expect(() => parseLenientJson("[".repeat(100_000))).not.toThrow();
  });
});

describe("valueAfter", () => {
  it("reads an assignment in a script", () => {
    expect(valueAfter('window.__INITIAL_STATE__ = {"product": {"name": "Mug"}};', "__INITIAL_STATE__")).toEqual({ product: { name: "Mug" } });
  });

  it('reads JSON.parse("…") assignments', () => {
    expect(valueAfter('window.__PRELOADED_STATE__ = JSON.parse("{\\"a\\":1}");', "__PRELOADED_STATE__")).toEqual({ a: 1 });
  });

  it("reads the object a Nuxt IIFE returns", () => {
    expect(valueAfter('window.__NUXT__=(function(a,b){return {data:[{product:{name:"Mug",price:a}}]}}(9,2));', "__NUXT__")).toEqual({
      data: [{ product: { name: "Mug", price: null } }],
    });
  });
});
