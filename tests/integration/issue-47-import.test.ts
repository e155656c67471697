/**
 * Issue 47, finding 5: what an import reports, through the real `catalog import` on a real data dir. A line that a
 * later line of the same file replaces (the same page URL, normalised) is reported with both line numbers; an
 * overlong field is reported as too long, with its limit, not as missing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productUrlKey } from "../../shared/url.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { runCli } from "../helpers/cli.js";

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-issue-47-import-"));
  env = { DATA_DIR: join(dir, "data") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ndjson = (records: readonly object[]) => `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;

describe("issue 47, finding 5: import reporting", () => {
  it("reports which line replaced which when two lines are the same product, in one file or across two", async () => {
    const file = join(dir, "twice.ndjson");
    const second = join(dir, "again.ndjson");
    writeFileSync(
      file,
      ndjson([
        { url: "https://shop.example/p/kettle", name: "Copper Kettle" },
        { url: "https://shop.example/p/teapot", name: "Teapot" },
        { url: "https://shop.example/p/kettle?utm_source=mail", name: "Copper Kettle, 1.5 l" },
      ]),
    );
    writeFileSync(second, ndjson([{ url: "https://www.shop.example/p/teapot", name: "Teapot, cast iron" }]));
    const id = (url: string) => productIdFromUrlKey(productUrlKey(url) ?? "");
    const { code, out, err } = await runCli(["import", file, second], env);
    expect(err).toEqual([
      `${file}:1: replaced by line 3, the same product (${id("https://shop.example/p/kettle")}); only the later one is kept`,
      `${file}:2: replaced by ${second}:1, the same product (${id("https://shop.example/p/teapot")}); only the later one is kept`,
    ]);
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(/^imported 2, updated \d, unchanged 0, failed 0, replaced 2$/);
  });

  it("reports a 200,000-character name as too long, with the limit, not as missing", async () => {
    const file = join(dir, "long.ndjson");
    writeFileSync(
      file,
      ndjson([
        { url: "https://shop.example/p/long", name: "n".repeat(200_000) },
        { url: "https://shop.example/p/none" },
        { url: "https://shop.example/p/number", name: 42 },
      ]),
    );
    const { code, out, err } = await runCli(["import", file], env);
    expect(code).toBe(1);
    expect(err).toEqual([
      `${file}:1: name: is too long: at most 1,000 characters, this one has 200,000`,
      `${file}:2: name: is required`,
      `${file}:3: name: must be a string`,
    ]);
    expect(out.at(-1)).toBe("imported 0, updated 0, unchanged 0, failed 3");
  });
});
