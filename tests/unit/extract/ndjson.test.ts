/** NDJSON lines split from the byte stream, so a line over IMPORT_MAX_LINE_BYTES is never held whole (issue 12.3). */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseLine, splitLines } from "../../../server/ingest/ndjson.js";
import { DEFAULT_LIMITS } from "./helpers.js";

async function lines(chunks: (string | Buffer)[], maxBytes: number) {
  const out: ({ text: string } | { bytes: number })[] = [];
  for await (const item of splitLines(Readable.from(chunks.map((chunk) => Buffer.from(chunk))), maxBytes)) out.push(item);
  return out;
}

describe("splitLines", () => {
  it("splits on LF and CRLF across chunk boundaries, multi-byte characters included", async () => {
    const euro = Buffer.from("€");
    expect(await lines(["a\r\nb", "c\n", euro.subarray(0, 1), euro.subarray(1), "\n", "last"], 100)).toEqual([
      { text: "a" },
      { text: "bc" },
      { text: "€" },
      { text: "last" },
    ]);
  });

  it("gives the size of a line over the cap instead of its text, and carries on", async () => {
    expect(await lines(["short\n", "x".repeat(30), "y".repeat(30), "\nnext\n"], 50)).toEqual([{ text: "short" }, { bytes: 60 }, { text: "next" }]);
  });
});

describe("parseLine", () => {
  it("accepts provenance and a category, and refuses a provenance that names no layer", () => {
    const record = {
      url: "https://shop.example/p/1",
      name: "Lamp",
      category: ["Home", "Lighting"],
      provenance: { price: { source: "ld_json", confidence: 0.9 } },
    };
    expect(parseLine("a.ndjson", 1, JSON.stringify(record), DEFAULT_LIMITS)).toMatchObject({
      record: { category: "Home > Lighting", provenance: { price: { source: "ld_json", confidence: 0.9 } } },
    });
    const bad = { ...record, provenance: { price: { source: "guess", confidence: 2 } } };
    expect(parseLine("a.ndjson", 2, JSON.stringify(bad), DEFAULT_LIMITS)).toMatchObject({
      error: expect.stringMatching(/provenance\.price\.source/),
    });
  });

  it("takes offers' currency only as an ISO 4217 code", () => {
    const line = (currency: string) =>
      parseLine(
        "a.ndjson",
        1,
        JSON.stringify({ url: "https://shop.example/p/1", name: "Lamp", offers: { price: "5", currency, availability: null } }),
      );
    expect(line("eur")).toMatchObject({ record: { offers: { currency: "EUR" } } });
    expect(line("€")).toMatchObject({ error: "offers.currency: must be an ISO 4217 currency code such as USD or EUR" });
    expect(line("XYZ")).toMatchObject({ error: expect.stringMatching(/^offers\.currency/) });
  });

  it("refuses a stripped HTML over its cap, naming the setting", () => {
    const record = {
      url: "https://shop.example/p/1",
      name: "Lamp",
      raw_data: { strippedHtml: "x".repeat(3000), jsons: { ld_json: null, props_data: null } },
    };
    const limits = { ...DEFAULT_LIMITS, maxStrippedHtmlBytes: 2048 };
    expect(parseLine("a.ndjson", 1, JSON.stringify(record), limits)).toEqual({
      source: "a.ndjson",
      line: 1,
      error: "raw_data.strippedHtml is 2.9 KiB, larger than IMPORT_MAX_STRIPPED_HTML_BYTES (2 KiB)",
    });
  });
});
