/**
 * Feeds against a real catalog (in-memory PGlite, the real encoder): every export line validates against the schema
 * the importer reads the format with; what `export --format X` writes, an import of X reads back to the same
 * records; one brand, or what changed since a cursor; and the CLI's refusals.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitChanges, findStoredByIds, markGone } from "../../server/catalog/repository.js";
import type { DatabaseHandle } from "../../server/db/open.js";
import {
  AcpProductSchema,
  CursorAheadError,
  type ExportOptions,
  exportFeed,
  type FeedFormat,
  UcpFeedProductSchema,
} from "../../server/feeds/index.js";
import { importLines as importPaths } from "../../server/ingest/extract/cli.js";
import { type ImportLine, importRecords } from "../../server/ingest/import.js";
import type { ImportLimits } from "../../server/ingest/limits.js";
import { ImportRecordSchema } from "../../server/ingest/record.js";
import type { Product } from "../../shared/schemas/index.js";
import { runCli } from "../helpers/cli.js";
import { openTestDatabase } from "../helpers/database.js";
import { sharedEmbedder } from "../helpers/embedder.js";
import { expectValid, UCP_REFERENCE_PRESENT } from "../helpers/ucp.js";

const LIMITS: ImportLimits = { maxLineBytes: 1 << 22, maxPageBytes: 1 << 22, maxStrippedHtmlBytes: 1 << 21, extractBudgetMs: 4000 };
const image = (name: string) => ({ url: `https://cdn.feeds.example/${name}.jpg`, type: "image" as const });

const RECORDS = [
  {
    url: "https://www.northpeak.example/products/ridgeline-2p",
    name: "Ridgeline 2P Tent",
    desc: "A freestanding two-person tent.",
    media: [image("tent-1"), image("tent-2"), { url: "https://cdn.feeds.example/tent.mp4", type: "video" }],
    brands: ["NorthPeak"],
    price_label: "$349.00",
    offers: { price: "349", currency: "USD", availability: "InStock", was_price: "399.00" },
    identifiers: { sku: "NP-1", gtin: "847391102599", mpn: "RL-2P" },
    category: "Outdoor > Tents",
    raw_data: { strippedHtml: "<h1>Ridgeline 2P Tent</h1>", jsons: { ld_json: { "@type": "Product", name: "Ridgeline" }, props_data: null } },
  },
  {
    id: "given-id",
    url: "https://www.northpeak.example/products/summit-bag",
    name: "Summit Down Bag",
    desc: "800-fill down.",
    media: [image("bag")],
    brands: ["NorthPeak"],
    offers: { price: "429.00", currency: "USD", availability: "PreOrder" },
  },
  {
    url: "https://copperleaf.example/p/skillet",
    name: "Cast Iron Skillet",
    desc: "Pre-seasoned.",
    media: [image("skillet")],
    brands: ["Copperleaf"],
    offers: { price: "49.90", currency: "EUR", availability: "OutOfStock" },
    category: "Kitchen > Pans",
  },
  // Left out of ACP and UCP: no price.
  { url: "https://copperleaf.example/p/gift-card", name: "Gift Card", desc: "Any amount.", media: [image("card")], brands: ["Copperleaf"] },
  // Left out of ACP: backorder has no ACP value, and there is no image.
  {
    url: "https://halden.example/p/headphones",
    name: "Studio Headphones",
    desc: "",
    offers: { price: "149.00", currency: "GBP", availability: "BackOrder" },
  },
];

/** The catalog exported from, and the one each format's export is imported into (in turn: each import replaces the records whole). */
let source: DatabaseHandle;
let target: DatabaseHandle;
const dir = mkdtempSync(join(tmpdir(), "feeds-"));

async function importLines(handle: DatabaseHandle, lines: AsyncIterable<ImportLine>) {
  return importRecords({ db: handle.db, embedder: await sharedEmbedder() }, lines);
}

async function* asLines(records: readonly object[]) {
  for (const [index, record] of records.entries()) yield { source: "t", line: index + 1, record: ImportRecordSchema.parse(record) };
}

async function exported(handle: DatabaseHandle, options: ExportOptions) {
  const lines: string[] = [];
  const summary = await exportFeed(handle.db, { pageSize: 2, ...options }, (line) => {
    lines.push(line);
  });
  return { lines, summary };
}

/** Writes the lines to a file and imports it as `catalog import --format` does (the paths' reader, then the import). */
async function importFile(handle: DatabaseHandle, name: string, lines: readonly string[], format: FeedFormat) {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return importLines(handle, importPaths([path], {}, LIMITS, format));
}

const SCHEMAS = { ndjson: ImportRecordSchema, acp: AcpProductSchema, ucp: UcpFeedProductSchema };

beforeAll(async () => {
  [source, target] = await Promise.all([openTestDatabase(), openTestDatabase()]);
  await Promise.all([source.migrate(), target.migrate()]);
  expect(await importLines(source, asLines(RECORDS))).toMatchObject({ imported: RECORDS.length, failed: 0 });
});
afterAll(async () => {
  await Promise.all([source.close(), target.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** What a format carries of a record, as lookups answer it. */
function carried(product: Product, format: FeedFormat) {
  const { fetched_at, checked_at, updated_at, product_group, price_low_30d, price_low_90d, ...record } = product;
  if (format === "ndjson") return record;
  const { sku, gtin, mpn } = product.identifiers ?? { sku: null, gtin: null, mpn: null };
  return {
    id: product.id,
    url: product.url,
    name: product.name,
    desc: product.desc,
    category: product.category,
    offers: product.offers,
    // ACP has no SKU, UCP no MPN; ACP writes the images before the video, UCP one brand.
    identifiers: format === "acp" ? { gtin, mpn } : { sku, gtin },
    media: format === "acp" ? [...product.media].sort((a, b) => a.type.localeCompare(b.type)) : product.media,
    brands: product.brands.slice(0, 1),
  };
}

describe.each(["ndjson", "acp", "ucp"] as const)("export --format %s", (format) => {
  it("writes lines the importer's schema takes, and an import of them reads back the same records", async () => {
    const { lines, summary } = await exported(source, { format });
    for (const line of lines) {
      const parsed = SCHEMAS[format].safeParse(JSON.parse(line));
      expect(parsed.error).toBeUndefined();
      if (format === "ucp" && UCP_REFERENCE_PRESENT) expectValid("shopping/types/product.json", JSON.parse(line));
    }
    const skipped = Object.fromEntries(summary.skipped.map(({ id, reason }) => [id, reason]));
    expect(Object.keys(skipped).length + lines.length).toBe(RECORDS.length);
    if (format !== "ndjson") expect(Object.values(skipped)).toContainEqual(expect.stringMatching(/^no price/));
    if (format === "acp") expect(Object.values(skipped)).toContainEqual(expect.stringMatching(/^availability BackOrder/));

    const reimport = await importFile(target, `round.${format}`, lines, format);
    // Unchanged: a record the format before wrote the same (the catalog's records are what ACP and UCP both carry).
    expect(reimport.imported + reimport.updated + reimport.unchanged).toBe(lines.length);
    expect(reimport.failed).toBe(0);
    const ids = lines.map((line) => JSON.parse(line).id as string);
    const before = await findStoredByIds(source.db, ids, format === "ndjson");
    const after = await findStoredByIds(target.db, ids, format === "ndjson");
    expect(after.map(({ product }) => carried(product, format))).toEqual(before.map(({ product }) => carried(product, format)));
    // And what it exports again of them is what was imported, line for line.
    const again = (await exported(target, { format })).lines.map((line) => JSON.parse(line)).filter((line) => ids.includes(line.id));
    expect(again).toEqual(lines.map((line) => JSON.parse(line)));
  });
});

describe("export's scope", () => {
  it("exports one brand's site, or what changed since a cursor (the gone counted, not written)", async () => {
    const brand = await exported(source, { format: "ndjson", brandHost: "copperleaf.example" });
    expect(brand.lines.map((line) => JSON.parse(line).url).sort()).toEqual([
      "https://copperleaf.example/p/gift-card",
      "https://copperleaf.example/p/skillet",
    ]);

    const cursor = brand.summary.nextCursor;
    expect((await exported(source, { format: "acp", since: cursor })).lines).toEqual([]);
    await importLines(source, asLines([{ ...RECORDS[2]!, name: "Cast Iron Skillet 26 cm" }]));
    await source.db.transaction(async (tx) => commitChanges(tx, await markGone(tx, ["given-id"])));
    const changed = await exported(source, { format: "acp", since: cursor });
    expect(changed.lines.map((line) => JSON.parse(line).title)).toEqual(["Cast Iron Skillet 26 cm"]);
    expect(changed.summary).toMatchObject({ gone: 1, skipped: [] });
    expect(changed.summary.nextCursor).toBeGreaterThan(cursor);
    expect((await exported(source, { format: "acp", since: changed.summary.nextCursor })).lines).toEqual([]);
    await expect(exported(source, { format: "acp", since: changed.summary.nextCursor + 1 })).rejects.toBeInstanceOf(CursorAheadError);
  });
});

describe("the CLI", () => {
  // Its exports of a catalog are in cli.test.ts, on the data dir that file has migrated already.
  const env = { DATA_DIR: join(dir, "data") };

  it("refuses bad options with what is wrong, before opening anything", async () => {
    await expect(runCli(["export", "--format", "csv"], env)).rejects.toThrow('--format must be one of ndjson, acp, ucp; got "csv"');
    await expect(runCli(["export"], env)).rejects.toThrow("export needs --format ndjson|acp|ucp");
    await expect(runCli(["import", "x.jsonl", "--format", "json"], env)).rejects.toThrow("--format must be one of");
    await expect(runCli(["export", "--format", "acp", "--since", "abc"], env)).rejects.toThrow("--since must be a change-feed cursor");
    await expect(runCli(["export", "--format", "acp", "--brand-url", "%%%"], env)).rejects.toThrow("--brand-url must be");
    const unwritable = await runCli(["export", "--format", "acp", "--out", join(dir, "no/such/dir/feed.jsonl")], env);
    expect(unwritable).toMatchObject({ code: 1, err: [expect.stringMatching(/^--out .*feed\.jsonl: cannot write the file \(ENOENT\)$/)] });
  });
});
