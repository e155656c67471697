/**
 * Saved PDP pages end to end: `catalog import` of a directory of pages (with
 * pages that fail, each explained), then the API serving them with raw data;
 * a re-import is free; `catalog extract` prints one line per page.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRoot, type Root } from "../../server/compose.js";
import { testConfig } from "../helpers/config.js";
import { sharedEmbedder } from "../helpers/embedder.js";
import type { FastifyInstance } from "fastify";
import { runCli } from "../helpers/cli.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/pdp", import.meta.url));
let dir: string;
let pages: string;
let env: Record<string, string>;

function cli(...argv: string[]) {
  return runCli(argv, env);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-html-"));
  pages = join(dir, "pages");
  cpSync(FIXTURES, pages, { recursive: true });
  env = { DATA_DIR: join(dir, "data") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("catalog import of saved pages", () => {
  it("imports a directory, explains every page it could not import, and writes the report", async () => {
    const report = join(dir, "report.ndjson");
    const result = await cli("import", pages, "--report", report);
    expect(result.code).toBe(1);
    // Two saved pages of one product (the same page saved in UTF-16 and in UTF-8): the earlier is reported (issue 47).
    const [, imported, failed] = /^imported (\d+), updated 0, unchanged 0, failed (\d+), replaced 1$/.exec(result.out.at(-1)!) ?? [];
    expect(result.err).toContainEqual(expect.stringMatching(/bom-utf16le\.html: replaced by \S+bom-utf8\.html, the same product \(pdp_\w+\)/));
    expect(Number(imported)).toBeGreaterThanOrEqual(15);
    const failures = readFileSync(report, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { source: string; reason: string });
    expect(failures).toHaveLength(Number(failed));
    expect(failures.map((f) => f.source.split("/").at(-1)).sort()).toEqual(expect.arrayContaining(["no-name.html", "no-url.html"]));
    for (const failure of failures) expect(failure.reason.length).toBeGreaterThan(10);
    expect(result.err.some((line) => line.includes("no-url.html: no URL"))).toBe(true);
  });

  it("re-imports unchanged pages for free", async () => {
    const again = await cli("import", pages);
    expect(again.out.at(-1)).toMatch(/^imported 0, updated 0, unchanged \d+, failed \d+, replaced 1$/);
  });

  it("takes the URL of a page that states none from --url or a sidecar", async () => {
    const single = await cli("import", join(pages, "no-url.html"), "--url", "https://quietshop.example/p/lantern");
    expect(single.out.at(-1)).toBe("imported 1, updated 0, unchanged 0, failed 0");
    const sidecar = join(dir, "urls.ndjson");
    writeFileSync(sidecar, `${JSON.stringify({ path: join(pages, "relative-url.html"), url: "https://relative.example/p/x" })}\n`);
    const mapped = await cli("import", join(pages, "relative-url.html"), "--urls", sidecar);
    expect(mapped.code).toBe(0);
  });
});

describe("the API serves imported pages", () => {
  let root: Root;
  let app: FastifyInstance;
  let key: string;
  beforeAll(async () => {
    root = createRoot(testConfig({ DATA_DIR: env.DATA_DIR!, API_PREFIXES: ["/api/v1"] }), { role: "server", embedder: await sharedEmbedder() });
    app = await root.app();
    key = (await (await root.services()).keys.issue({ name: "t", environment: "dev" })).key;
  });
  afterAll(() => root?.close());

  it("with the record, offers, identifiers and raw data extracted from the page", async () => {
    const extracted = await cli("extract", join(pages, "jsonld-basic.html"));
    expect(extracted.code).toBe(0);
    const line = JSON.parse(extracted.out[0]!) as { source: string; pdp: { url: string; name: string } };
    expect(line.source).toBe(join(pages, "jsonld-basic.html"));

    const response = await app.inject({
      url: `/api/v1/products?url=${encodeURIComponent(line.pdp.url)}&include_raw_data=true`,
      headers: { authorization: key },
    });
    expect(response.statusCode).toBe(200);
    const { pdp } = response.json();
    expect(pdp.name).toBe(line.pdp.name);
    expect(pdp.raw_data.strippedHtml).toMatch(/<h1|<main|<div|<p/);
    expect(pdp.raw_data.strippedHtml).not.toMatch(/<script|<style/);
    expect(pdp.raw_data.jsons.ld_json).toMatchObject({ "@type": "Product" });
    expect(pdp.offers).toMatchObject({ price: expect.any(String), currency: expect.stringMatching(/^[A-Z]{3}$/) });
  });

  it("prints an error line for a page it cannot read, and exits non-zero", async () => {
    const missing = await cli("extract", join(pages, "no-url.html"), join(pages, "jsonld-basic.html"));
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out[0]!)).toMatchObject({ error: expect.stringMatching(/no URL/) });
    expect(JSON.parse(missing.out[1]!)).toHaveProperty("pdp");
  });
});
