/**
 * Sanity over the real pages in ../shared (skipped, with the reason in the
 * test name, when the team's shared folder is not beside the checkout).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodePage, extractProduct } from "../../../server/ingest/extract/index.js";
import { ImportRecordSchema } from "../../../server/ingest/record.js";

const PDP = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/data/pdp");
const BENCHMARK = join(PDP, "product-extraction-benchmark");
const present = existsSync(join(BENCHMARK, "ground-truth.json"));

describe.skipIf(!present)(present ? "real PDPs in ../shared/data/pdp" : "real PDPs: skipped, ../shared/data/pdp is absent", () => {
  it("extracts every benchmark page into a valid record, with the operator's URL as fallback", () => {
    const truth = JSON.parse(readFileSync(join(BENCHMARK, "ground-truth.json"), "utf8")) as Record<string, { url: string; price?: string[] }>;
    const files = readdirSync(join(BENCHMARK, "html")).filter((name) => name.endsWith(".html.gz"));
    expect(files.length).toBeGreaterThan(0);
    let priced = 0;
    for (const name of files) {
      const id = name.replace(/\.html\.gz$/, "");
      const html = decodePage(new Uint8Array(readFileSync(join(BENCHMARK, "html", name))));
      const result = extractProduct(html, { url: truth[id]!.url });
      if (!result.ok) expect.fail(`${name}: ${result.error}`);
      const parsed = ImportRecordSchema.safeParse(result.record);
      expect(parsed.success, `${name}: ${parsed.success ? "" : parsed.error.message}`).toBe(true);
      if (result.record.offers?.price) priced++;
    }
    expect(priced / files.length).toBeGreaterThan(0.85);
  });

  it("extracts the other saved pages without throwing", () => {
    const pages: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.html?(\.gz)?$/.test(entry.name) && !path.startsWith(BENCHMARK)) pages.push(path);
      }
    };
    walk(PDP);
    for (const path of pages) {
      const result = extractProduct(decodePage(new Uint8Array(readFileSync(path))), { url: "https://operator.example/page" });
      expect(typeof result.ok).toBe("boolean");
    }
  });
});
