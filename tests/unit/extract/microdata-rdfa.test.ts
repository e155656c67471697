import { describe, expect, it } from "vitest";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { extractFixture } from "./helpers.js";

describe("microdata layer", () => {
  it("reads a Product item with nested brand and offer", () => {
    const record = extractFixture("microdata.html");
    expect(record).toMatchObject({
      url: "https://oakridge.example/field-stool",
      name: "Field Stool",
      desc: "Three legs, one strap.",
      brands: ["Oakridge"],
      media: [{ url: "https://oakridge.example/media/stool.jpg", type: "image" }],
      price_label: "CHF 39.90",
      offers: { price: "39.90", currency: "CHF", availability: "InStock" },
      identifiers: { sku: "OR-STOOL-2", gtin: "96385074", mpn: null },
    });
    expect(record.raw_data.jsons.ld_json).toBeNull();
  });

  it("reads an offer nested in an offer, and an orphan offer outside the product", () => {
    const nested = `<html><head><link rel="canonical" href="https://a.example/n"></head><body>
      <div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Harness</h1>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
      <span itemprop="price" content="115.0">£115.00</span><meta itemprop="priceCurrency" content="GBP"></div></div></div></body></html>`;
    const first = extractProduct(nested);
    expect(first.ok && first.record.offers).toEqual({ price: "115", currency: "GBP", availability: null });

    const orphan = `<html><head><link rel="canonical" href="https://a.example/o"></head><body>
      <div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Lamp</h1></div>
      <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="price" content="30"><meta itemprop="priceCurrency" content="USD"></div></body></html>`;
    const second = extractProduct(orphan);
    expect(second.ok && second.record.offers?.price).toBe("30");
  });
});

describe("RDFa layer", () => {
  it("reads a schema.org Product through vocab and typeof", () => {
    const record = extractFixture("rdfa.html");
    expect(record).toMatchObject({
      url: "https://tidewater.example/canvas-tote",
      name: "Canvas Tote",
      brands: ["Tidewater"],
      media: [{ url: "https://tidewater.example/tote.jpg", type: "image" }],
      price_label: "A$29.00",
      offers: { price: "29", currency: "AUD", availability: "PreOrder" },
      identifiers: { sku: "TW-TOTE", gtin: null, mpn: null },
    });
  });
});
