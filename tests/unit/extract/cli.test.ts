import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExtractInputError, extractFiles, importLines, readUrlSidecar } from "../../../server/ingest/extract/cli.js";
import type { ParsedLine } from "../../../server/ingest/ndjson.js";
import { DEFAULT_LIMITS, fixturePath } from "./helpers.js";

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "extract-cli-"));
  await mkdir(join(work, "shop/deep"), { recursive: true });
  await copyFile(fixturePath("jsonld-basic.html"), join(work, "shop/kettle.html"));
  await writeFile(join(work, "shop/deep/tote.html.gz"), gzipSync(readFileSync(fixturePath("rdfa.html"))));
  await copyFile(fixturePath("visible-only.html"), join(work, "shop/deep/apron.htm"));
  await copyFile(fixturePath("no-name.html"), join(work, "shop/deep/empty.html"));
  await writeFile(join(work, "shop/notes.txt"), "not a page");
  await writeFile(join(work, "records.ndjson"), `${JSON.stringify({ url: "https://ndjson.example/a", name: "From NDJSON" })}\n{broken\n`);
  await writeFile(join(work, "urls.ndjson"), `${JSON.stringify({ path: "shop/deep/apron.htm", url: "https://fernhill.example/apron" })}\n`);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("catalog extract", () => {
  it("gives one line per page, in order, with errors as lines and the sidecar's URLs used", async () => {
    const lines = await collect(
      extractFiles([join(work, "shop"), join(work, "missing.html")], { urlsFile: join(work, "urls.ndjson") }, DEFAULT_LIMITS),
    );
    expect(lines.map((line) => [line.source.slice(work.length + 1), "pdp" in line ? line.pdp.name : line.error])).toEqual([
      ["shop/deep/apron.htm", "Linen Apron"],
      ["shop/deep/empty.html", expect.stringMatching(/^no product name/)],
      ["shop/deep/tote.html.gz", "Canvas Tote"],
      ["shop/kettle.html", "Trail Kettle 1.2 L"],
      ["missing.html", "cannot read: ENOENT"],
    ]);
    const apron = lines[0]!;
    expect("pdp" in apron && apron.pdp.url).toBe("https://fernhill.example/apron");
  });

  it("takes --url for a single page only", async () => {
    const [line] = await collect(extractFiles([join(work, "shop/deep/apron.htm")], { url: "https://fernhill.example/apron-2" }, DEFAULT_LIMITS));
    expect(line && "pdp" in line && line.pdp.url).toBe("https://fernhill.example/apron-2");
    await expect(collect(extractFiles([join(work, "shop")], { url: "https://fernhill.example/x" }, DEFAULT_LIMITS))).rejects.toBeInstanceOf(
      ExtractInputError,
    );
  });

  it("with explain, adds each field's layer, confidence and every layer's value (`catalog extract --explain`)", async () => {
    const [line] = await collect(extractFiles([join(work, "shop/kettle.html")], {}, DEFAULT_LIMITS, true));
    expect(line && "explain" in line && line.explain?.price).toMatchObject({ value: "79.99", source: "ld_json", layers: { ld_json: "79.99" } });
    const [plain] = await collect(extractFiles([join(work, "shop/kettle.html")], {}, DEFAULT_LIMITS));
    expect(plain && "explain" in plain).toBe(false);
    expect(plain && "pdp" in plain && plain.pdp.provenance.price).toMatchObject({ source: "ld_json" });
  });

  it("rejects a malformed sidecar line with its place", async () => {
    const bad = join(work, "bad-urls.ndjson");
    await writeFile(bad, '{"path": "a.html"}\n');
    await expect(readUrlSidecar(bad)).rejects.toThrow(/bad-urls\.ndjson:1: expected/);
  });
});

describe("catalog import with pages", () => {
  it("yields ParsedLine items for pages (line 0) and NDJSON lines alike; bad ones become errors", async () => {
    const lines: ParsedLine[] = await collect(
      importLines([join(work, "shop"), join(work, "records.ndjson")], { urlsFile: join(work, "urls.ndjson") }, DEFAULT_LIMITS),
    );
    const summary = lines.map((line) => [line.source.slice(work.length + 1), line.line, "record" in line ? line.record.name : "error"]);
    expect(summary).toEqual([
      ["shop/deep/apron.htm", 0, "Linen Apron"],
      ["shop/deep/empty.html", 0, "error"],
      ["shop/deep/tote.html.gz", 0, "Canvas Tote"],
      ["shop/kettle.html", 0, "Trail Kettle 1.2 L"],
      ["records.ndjson", 1, "From NDJSON"],
      ["records.ndjson", 2, "error"],
    ]);
    const kettle = lines[3]!;
    expect("record" in kettle && kettle.record).toMatchObject({ url: "https://emberpine.example/products/trail-kettle", offers: { price: "79.99" } });
  });
});
