/** Feed formats (server/feeds): reading ACP and UCP lines into records, and writing records as lines, without a database. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { productToAcp } from "../../server/feeds/acp.js";
import { AcpProductSchema, readFeed } from "../../server/feeds/index.js";
import type { ImportLimits } from "../../server/ingest/limits.js";
import type { Product } from "../../shared/schemas/index.js";

const dir = mkdtempSync(join(tmpdir(), "feeds-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LIMITS: ImportLimits = { maxLineBytes: 1 << 20, maxPageBytes: 1 << 20, maxStrippedHtmlBytes: 1 << 20, extractBudgetMs: 1000 };

async function read(name: string, lines: readonly (object | string)[], format?: "acp" | "ucp" | "ndjson") {
  const path = join(dir, name);
  writeFileSync(path, `${lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n")}\n`);
  const out = [];
  for await (const line of readFeed(path, LIMITS, format)) out.push(line);
  return out;
}

const ACP_LINE = {
  enable_search: "true",
  enable_checkout: "false",
  id: "SKU-1",
  gtin: "847391102599",
  mpn: "RL-2P",
  title: "Ridgeline 2P Tent",
  description: "A two-person tent.",
  link: "https://shop.example/p/ridgeline",
  product_category: "Outdoor > Tents",
  brand: "NorthPeak",
  image_link: "https://cdn.shop.example/r1.jpg",
  additional_image_links: "https://cdn.shop.example/r2.jpg, https://cdn.shop.example/r3.jpg",
  price: "399.00 USD",
  sale_price: "349.00 USD",
  availability: "in_stock",
  inventory_quantity: 4,
  material: "nylon",
};

describe("an ACP feed", () => {
  it("maps a line to a record: the sale price is the price and the list price the was-price", async () => {
    const [line] = await read("one.jsonl", [ACP_LINE]);
    expect(line).toMatchObject({
      line: 1,
      record: {
        id: "SKU-1",
        url: "https://shop.example/p/ridgeline",
        name: "Ridgeline 2P Tent",
        desc: "A two-person tent.",
        brands: ["NorthPeak"],
        media: [
          { url: "https://cdn.shop.example/r1.jpg", type: "image" },
          { url: "https://cdn.shop.example/r2.jpg", type: "image" },
          { url: "https://cdn.shop.example/r3.jpg", type: "image" },
        ],
        offers: { price: "349.00", currency: "USD", availability: "InStock", was_price: "399.00" },
        identifiers: { sku: null, gtin: "847391102599", mpn: "RL-2P" },
        category: "Outdoor > Tents",
      },
    });
  });

  it("reports each bad line with its number and what is wrong, and reads the rest", async () => {
    const lines = await read("bad.jsonl", [
      ACP_LINE,
      "{not json",
      { ...ACP_LINE, id: "SKU-2", price: "79.99" },
      { ...ACP_LINE, id: "SKU-3", availability: "backorder" },
      { ...ACP_LINE, id: "SKU-4", gtin: "847391102598" },
      { ...ACP_LINE, id: "SKU-5", sale_price: "10.00 EUR" },
      { ...ACP_LINE, id: "SKU-6", title: "x".repeat(151), link: "ftp://shop.example/p" },
      { ...ACP_LINE, id: "SKU-7", link: "https://shop.example/p/7" },
    ]);
    expect(lines.map((line) => ("record" in line ? `${line.line}: ${line.record.id}` : `${line.line}: ${line.error}`))).toEqual([
      "1: SKU-1",
      expect.stringMatching(/^2: not valid JSON/),
      '3: price: must be an amount and an ISO 4217 currency code, such as "79.99 USD"',
      "4: availability: must be one of in_stock, out_of_stock, preorder",
      "5: gtin: is not a valid GTIN (its check digit is wrong)",
      "6: sale_price: must be in the currency of price",
      "7: title: must be at most 150 characters; link: must be an absolute http(s) URL",
      "8: SKU-7",
    ]);
  });

  it("writes a product the spec can take, and says why it leaves one out", () => {
    const product = {
      id: "pdp_1",
      url: "https://shop.example/p/1",
      name: "Kettle",
      desc: "Copper kettle.",
      media: [
        { url: "https://cdn.shop.example/k.mp4", type: "video" },
        { url: "https://cdn.shop.example/k.jpg", type: "image" },
      ],
      brands: ["Copperleaf"],
      price_label: "$49.00",
      offers: { price: "49.00", currency: "USD", availability: "LimitedAvailability", was_price: "59.00" },
    } as Product;
    const written = productToAcp({ ...product, desc: `${"word ".repeat(1200)}end` });
    if (!("line" in written)) throw new Error(written.skipped);
    expect(AcpProductSchema.safeParse(written.line).success).toBe(true);
    expect(written.line).toMatchObject({
      price: "59.00 USD",
      sale_price: "49.00 USD",
      availability: "in_stock",
      video_link: "https://cdn.shop.example/k.mp4",
    });
    expect(written.line.description.length).toBeLessThanOrEqual(5000);
    expect(written.line.description).toMatch(/word…$/);
    const skipped = (changes: Partial<Product>) => productToAcp({ ...product, ...changes });
    expect(skipped({ offers: { price: null, currency: null, availability: "InStock" } })).toEqual({ skipped: "no price: ACP requires price" });
    expect(skipped({ offers: { price: "1", currency: "USD", availability: "BackOrder" } })).toEqual({
      skipped: "availability BackOrder: ACP requires one of in_stock, out_of_stock, preorder",
    });
    expect(skipped({ media: [] })).toEqual({ skipped: "no image: ACP requires image_link" });
    expect(skipped({ desc: " " })).toEqual({ skipped: "no description: ACP requires one" });
    expect(skipped({ name: "n".repeat(151) })).toEqual({ skipped: "name longer than ACP's 150 characters (title)" });
  });
});

const UCP_PRODUCT = {
  id: "gid://shop/Product/1",
  title: "Trail Runner 3",
  description: { html: "<p>Light <b>trail</b> shoes.</p>" },
  url: "https://stridewell.example/p/trail-runner-3",
  categories: [
    { value: "1604", taxonomy: "google_product_category" },
    { value: "Shoes > Running", taxonomy: "merchant" },
  ],
  price_range: { min: { amount: 13999, currency: "USD" }, max: { amount: 14999, currency: "USD" } },
  media: [
    { type: "image", url: "https://cdn.stridewell.example/tr3.jpg" },
    { type: "model_3d", url: "https://cdn.stridewell.example/tr3.glb" },
  ],
  variants: [
    {
      id: "gid://shop/ProductVariant/11",
      sku: "TR3-42",
      barcodes: [{ type: "EAN", value: "4006381333931" }],
      title: "42",
      description: { plain: "Size 42" },
      price: { amount: 13999, currency: "USD" },
      list_price: { amount: 15999, currency: "USD" },
      availability: { available: true, status: "backorder" },
      offers: [{ seller: "proposal" }],
    },
    { id: "gid://shop/ProductVariant/12", title: "43", description: { plain: "Size 43" }, price: { amount: 14999, currency: "USD" } },
  ],
  metadata: { brands: ["Stridewell"] },
};

describe("UCP products", () => {
  it("maps a product to a record from its featured variant; a GID is no id of ours, so the URL's is used", async () => {
    const [line] = await read("ucp.jsonl", [UCP_PRODUCT], "ucp");
    if (!line || !("record" in line)) throw new Error(JSON.stringify(line));
    expect(line.record.id).toBeUndefined();
    expect(line.record).toMatchObject({
      url: "https://stridewell.example/p/trail-runner-3",
      name: "Trail Runner 3",
      desc: "Light trail shoes.",
      media: [{ url: "https://cdn.stridewell.example/tr3.jpg", type: "image" }],
      brands: ["Stridewell"],
      offers: { price: "139.99", currency: "USD", availability: "BackOrder", was_price: "159.99" },
      identifiers: { sku: "TR3-42", gtin: "4006381333931", mpn: null },
      category: "Shoes > Running",
    });
  });

  it("reads a catalog answer's products one by one, naming a bad one by its place, and detects the format", async () => {
    const { url: _url, ...noUrl } = UCP_PRODUCT;
    const answer = { ucp: { version: "2026-04-08" }, products: [UCP_PRODUCT, { ...UCP_PRODUCT, variants: [] }, noUrl] };
    const lines = await read("answer.json", ['{"unknown": true}', answer]);
    expect(lines.map((line) => ("record" in line ? `${line.line}: ${line.record.name}` : `${line.line}: ${line.error}`))).toEqual([
      "1: url: is required; name: is required",
      "2: Trail Runner 3",
      "2: products.1.variants: must hold at least one variant",
      "2: products.2.url: the product (or its first variant) needs an absolute http(s) URL: the catalog keeps a record per page",
    ]);
  });

  it("reads a file as the format given, whatever its lines look like", async () => {
    const [line] = await read("forced.jsonl", [ACP_LINE], "ucp");
    expect(line).toMatchObject({ line: 1, error: expect.stringContaining("description: ") });
  });
});
