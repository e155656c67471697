import { describe, expect, it } from "vitest";
import { extractProduct } from "../../../server/ingest/extract/index.js";

describe("hostile and malformed pages", () => {
  it("survives 30,000 unclosed nested tags quickly, without overflowing the stack", () => {
    const html = `<html><head><link rel="canonical" href="https://deep.example/p"><title>Deep Lamp</title></head><body><h1>Deep Lamp</h1>${"<div><font>".repeat(30_000)}x</body></html>`;
    const started = performance.now();
    const result = extractProduct(html);
    expect(result.ok && result.record.name).toBe("Deep Lamp");
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it("treats garbage in JSON-LD and page state as absent", () => {
    const html = `<html><head><link rel="canonical" href="https://junk.example/p"><title>Junk</title>
      <script type="application/ld+json">{{{{ not json ]]]</script>
      <script type="application/ld+json">${"[".repeat(5_000)}</script>
      <script>window.__INITIAL_STATE__ = function () { return 1 };</script>
      <script id="__NEXT_DATA__" type="application/json">{"props": </script></head><body><h1>Junk Lamp</h1></body></html>`;
    const result = extractProduct(html);
    expect(result).toMatchObject({ ok: true, record: { name: "Junk Lamp", raw_data: { jsons: { ld_json: null, props_data: null } } } });
  });

  it("treats JSON nested 100,000 deep as absent, so the record can be serialised and stored (issue 12.2)", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const html = `<html><head><link rel="canonical" href="https://deep.example/p"><title>Deep Lamp</title>
      <script type="application/ld+json">{"@type":"Product","name":"Deep Lamp","x":${deep}}</script>
      <script id="__NEXT_DATA__" type="application/json">{"props":${deep}}</script></head><body><h1>Deep Lamp</h1></body></html>`;
    const result = extractProduct(html);
    if (!result.ok) expect.fail(result.error);
    expect(result.record.raw_data.jsons).toEqual({ ld_json: null, props_data: null });
    expect(() => JSON.stringify(result.record)).not.toThrow();
  });

  it("never throws, whatever the input", () => {
    for (const input of ["", "<", "<html", "\u0000\u0001", "<script>", "<!--", "<![CDATA[", "<meta charset=>"]) {
      expect(() => extractProduct(input)).not.toThrow();
      expect(extractProduct(input).ok).toBe(false);
    }
  });
});
