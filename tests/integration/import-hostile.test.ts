/**
 * Issue 12: one crawled page or line never stops an import. Each bad one is a
 * single reported failure (file, line, reason) while the rest are stored;
 * what exceeds a cap is refused naming the setting; NUL is stripped; a record
 * the database refuses costs only itself, and no reason prints the batch's
 * parameters; links out of the directory given are not followed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db/open.js";
import { openTestDatabase } from "../helpers/database.js";
import { findProductByUrlKey } from "../../server/catalog/repository.js";
import { importRecords } from "../../server/ingest/import.js";
import { parseLine } from "../../server/ingest/ndjson.js";
import { productUrlKey } from "../../shared/url.js";
import { sharedEmbedder } from "../helpers/embedder.js";
import { runCli } from "../helpers/cli.js";

let dir: string;
let env: Record<string, string>;

function cli(...argv: string[]) {
  return runCli(argv, env);
}

function page(name: string, url: string, extraHead = "", body = ""): string {
  return `<html><head><title>${name}</title><link rel="canonical" href="${url}">${extraHead}</head><body><h1>${name}</h1>${body}</body></html>`;
}

function write(path: string, content: string): string {
  writeFileSync(path, content);
  return path;
}

async function stored(url: string) {
  const database = await openDatabase({ databaseUrl: undefined, dataDir: env.DATA_DIR!, poolSize: 1, role: "cli" });
  try {
    return (await findProductByUrlKey(database.db, productUrlKey(url)!, true))?.product ?? null;
  } finally {
    await database.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-hostile-"));
  env = { DATA_DIR: join(dir, "data") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("pages that used to abort an import (issue 12.2)", () => {
  it("a page whose __NEXT_DATA__ nests 100,000 deep is extracted without its state, and the other pages import", async () => {
    const pages = join(dir, "deep");
    mkdirSync(pages);
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    write(
      join(pages, "a-deep.html"),
      page("Deep Lamp", "https://deep.example/p/lamp", `<script id="__NEXT_DATA__" type="application/json">{"props":${deep}}</script>`),
    );
    write(join(pages, "b-good.html"), page("Good Lamp", "https://deep.example/p/good"));

    const extracted = await cli("extract", join(pages, "a-deep.html"));
    expect(extracted.code).toBe(0);
    expect(JSON.parse(extracted.out[0]!)).toMatchObject({ pdp: { name: "Deep Lamp", raw_data: { jsons: { props_data: null } } } });

    const result = await cli("import", pages);
    expect(result.out.at(-1)).toBe("imported 2, updated 0, unchanged 0, failed 0");
    expect(await stored("https://deep.example/p/good")).toMatchObject({ name: "Good Lamp" });
  });

  it("NUL in a page's JSON-LD name and in an NDJSON record is stripped, and both import", async () => {
    const pagePath = write(
      join(dir, "nul.html"),
      page(
        "Nul Lamp",
        "https://nul.example/p/lamp",
        `<script type="application/ld+json">{"@type":"Product","name":"Nul\\u0000 Lamp","offers":{"price":"5","priceCurrency":"EUR"}}</script>`,
      ),
    );
    const record = {
      url: "https://nul.example/p/rope",
      name: "Rope\u0000 Ladder",
      raw_data: { strippedHtml: "<p>a\u0000b</p>", jsons: { ld_json: { "na\u0000me": "x\u0000y" }, props_data: null } },
    };
    const ndjson = write(join(dir, "nul.ndjson"), `${JSON.stringify(record)}\n`);
    const result = await cli("import", pagePath, ndjson);
    expect(result.err).toEqual([]);
    expect(result.out.at(-1)).toBe("imported 2, updated 0, unchanged 0, failed 0");
    expect(await stored("https://nul.example/p/lamp")).toMatchObject({ name: "Nul Lamp" });
    expect(await stored("https://nul.example/p/rope")).toMatchObject({
      name: "Rope Ladder",
      raw_data: { strippedHtml: "<p>ab</p>", jsons: { ld_json: { name: "xy" } } },
    });
  });

  it("NDJSON raw_data nested deeper than 100 levels is one failed line", async () => {
    let nested: unknown = "leaf";
    for (let i = 0; i < 150; i++) nested = [nested];
    const lines = [
      JSON.stringify({
        url: "https://nest.example/a",
        name: "Nested",
        raw_data: { strippedHtml: null, jsons: { ld_json: nested, props_data: null } },
      }),
      JSON.stringify({ url: "https://nest.example/b", name: "Flat" }),
    ];
    const result = await cli("import", write(join(dir, "nested.ndjson"), `${lines.join("\n")}\n`));
    expect(result.out.at(-1)).toBe("imported 1, updated 0, unchanged 0, failed 1");
    expect(result.err).toEqual([expect.stringMatching(/nested\.ndjson:1: raw_data: must not nest JSON deeper than 100 levels/)]);
  });
});

describe("a record the database refuses (issue 12.2)", () => {
  it("fails alone, with the database's reason and none of the batch's parameters; the rest of its batch is stored", async () => {
    const handle = await openTestDatabase();
    try {
      await handle.migrate();
      // A real refusal by the real database: a constraint only this test adds.
      await handle.db.execute(sql`alter table products add constraint test_refuses_this check (name <> 'Refused Lamp')`);
      const records = [
        { url: "https://refuse.example/a", name: "First Lamp", desc: "secret-a" },
        { url: "https://refuse.example/b", name: "Refused Lamp", desc: "secret-b" },
        { url: "https://refuse.example/c", name: "Third Lamp", desc: "secret-c" },
      ];
      const lines = records.map((record, index) => parseLine("batch.ndjson", index + 1, JSON.stringify(record)));
      const summary = await importRecords({ db: handle.db, embedder: await sharedEmbedder() }, lines);
      expect(summary).toMatchObject({ imported: 2, failed: 1 });
      expect(summary.failures).toHaveLength(1);
      const [failure] = summary.failures;
      expect(failure).toMatchObject({ source: "batch.ndjson", line: 2 });
      expect(failure!.reason).toMatch(/^the database refused the record: .*test_refuses_this/);
      expect(failure!.reason).not.toMatch(/params|secret|First Lamp|Third Lamp|insert into/i);
      for (const url of ["https://refuse.example/a", "https://refuse.example/c"]) {
        expect(await findProductByUrlKey(handle.db, productUrlKey(url)!, false)).not.toBeNull();
      }
    } finally {
      await handle.close();
    }
  });
});

describe("caps on what an import reads and stores (issue 12.3)", () => {
  it("refuses a line, a page and a stripped HTML over their caps, naming each setting; the summary counts only what was stored", async () => {
    const capped = { ...env, IMPORT_MAX_LINE_BYTES: "4096", IMPORT_MAX_PAGE_BYTES: "8192", IMPORT_MAX_STRIPPED_HTML_BYTES: "2048" };
    const work = join(dir, "caps");
    mkdirSync(work);
    const long = JSON.stringify({ url: "https://caps.example/long", name: "Long", desc: "x".repeat(10_000) });
    const fine = JSON.stringify({ url: "https://caps.example/fine", name: "Fine Line" });
    const ndjson = write(join(work, "lines.ndjson"), `${long}\n${fine}\n`);
    const bigPage = write(join(work, "big.html"), page("Big Page", "https://caps.example/big", "", `<p>${"y".repeat(9_000)}</p>`));
    const wordyPage = write(join(work, "wordy.html"), page("Wordy Page", "https://caps.example/wordy", "", `<p>${"z ".repeat(1_500)}</p>`));
    const okPage = write(join(work, "ok.html"), page("Small Page", "https://caps.example/ok"));

    const { code, out, err } = await runCli(["import", ndjson, bigPage, wordyPage, okPage], capped);
    expect(code).toBe(1);
    expect(out.at(-1)).toBe("imported 2, updated 0, unchanged 0, failed 3");
    expect(err).toEqual([
      expect.stringMatching(/lines\.ndjson:1: line is 9\.\d KiB, larger than IMPORT_MAX_LINE_BYTES \(4 KiB\)$/),
      expect.stringMatching(/big\.html: page is 8\.\d KiB, larger than IMPORT_MAX_PAGE_BYTES \(8 KiB\)$/),
      expect.stringMatching(/wordy\.html: raw_data\.strippedHtml is 3(\.\d)? KiB, larger than IMPORT_MAX_STRIPPED_HTML_BYTES \(2 KiB\)$/),
    ]);
    expect(await stored("https://caps.example/fine")).toMatchObject({ name: "Fine Line" });
    expect(await stored("https://caps.example/ok")).toMatchObject({ name: "Small Page" });
    expect(await stored("https://caps.example/long")).toBeNull();
  });

  it("refuses a bad cap setting at start, naming it", async () => {
    await expect(runCli(["extract", "x.html"], { ...env, IMPORT_MAX_PAGE_BYTES: "12" })).rejects.toThrow(
      /IMPORT_MAX_PAGE_BYTES: must be at least 1024 bytes/,
    );
  });
});

describe("symbolic links (issue 12.10)", () => {
  it("follows a link to a page inside the directory given, and reports links that lead out of it without reading them", async () => {
    const outside = join(dir, "outside");
    const pages = join(dir, "linked");
    mkdirSync(outside);
    mkdirSync(join(pages, "real"), { recursive: true });
    const secret = write(join(outside, "secret.html"), page("Outside Secret", "https://links.example/secret"));
    write(join(pages, "real", "inside.html"), page("Inside Lamp", "https://links.example/inside"));
    symlinkSync(join(pages, "real", "inside.html"), join(pages, "alias.html"));
    symlinkSync(secret, join(pages, "escape.html"));
    symlinkSync("/etc/passwd", join(pages, "passwd.html"));
    symlinkSync(outside, join(pages, "outdir.html"));

    const extracted = await cli("extract", pages);
    const lines = extracted.out.map((line) => JSON.parse(line) as { source: string; error?: string; pdp?: { name: string } });
    const bySource = Object.fromEntries(lines.map((line) => [line.source.slice(pages.length + 1), line.error ?? line.pdp?.name]));
    expect(bySource).toEqual({
      "alias.html": "Inside Lamp",
      "escape.html": expect.stringMatching(/^symbolic link to a file outside .*linked; not followed$/),
      "outdir.html": expect.stringMatching(/^symbolic link to a file outside .*; not followed$/),
      "passwd.html": expect.stringMatching(/^symbolic link to a file outside .*; not followed$/),
      "real/inside.html": "Inside Lamp",
    });
    expect(extracted.out.join("\n")).not.toContain(readFileSync("/etc/passwd", "utf8").split("\n")[0]!);

    const imported = await cli("import", pages);
    expect(imported.err.filter((line) => line.includes("not followed"))).toHaveLength(3);
    expect(await stored("https://links.example/secret")).toBeNull();
  });
});
