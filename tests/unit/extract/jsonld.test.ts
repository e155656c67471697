import { describe, expect, it } from "vitest";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { extractFixture, fixture } from "./helpers.js";

describe("JSON-LD layer", () => {
  it("reads a Product with its offer, sale price, identifiers, brand and images", () => {
    const record = extractFixture("jsonld-basic.html");
    expect(record).toMatchObject({
      url: "https://emberpine.example/products/trail-kettle",
      name: "Trail Kettle 1.2 L",
      desc: "A light titanium kettle & lid. Folding handle.",
      brands: ["Ember & Pine"],
      price_label: "$79.99 (was $99.99)",
      offers: { price: "79.99", currency: "USD", availability: "InStock" },
      identifiers: { sku: "EP-KT-12", gtin: "4006381333931", mpn: "KT12-TI" },
    });
    // Relative image URLs resolved against the page, duplicates removed.
    expect(record.media).toEqual([
      { url: "https://emberpine.example/img/kettle-1.jpg", type: "image" },
      { url: "https://cdn.emberpine.example/img/kettle-2.jpg", type: "image" },
    ]);
    expect(record.raw_data.jsons.ld_json).toMatchObject({ "@type": "Product", sku: "EP-KT-12" });
    expect(record.raw_data.jsons.props_data).toBeNull();
  });

  it("survives trailing commas", () => {
    const record = extractFixture("jsonld-trailing-commas.html");
    expect(record).toMatchObject({
      name: "Enamel Mug",
      media: [{ url: "https://emberpine.example/img/mug.jpg", type: "image" }],
      offers: { price: "14", currency: "USD", availability: "InStock" },
      identifiers: { sku: "EP-MUG-2" },
    });
  });

  it("survives // and /* */ comments and a CDATA wrapper", () => {
    const record = extractFixture("jsonld-comments.html");
    expect(record).toMatchObject({
      name: "Fire Steel",
      offers: { price: "9.50", currency: "EUR", availability: null },
      identifiers: { sku: "EP-FS-1" },
    });
  });

  it("survives raw newlines and tabs in strings, stray quotes and an HTML comment wrapper", () => {
    const record = extractFixture("jsonld-raw-newlines.html");
    expect(record.name).toBe('Camp Mug "Classic"');
    expect(record.desc).toBe("Line one line two with a tab");
    expect(record.offers).toEqual({ price: "12.50", currency: "EUR", availability: "OutOfStock" });
    expect(record.identifiers?.sku).toBe("EP-MUG-1");
  });

  it("decodes entity-encoded JSON-LD", () => {
    const record = extractFixture("jsonld-entities.html");
    expect(record.name).toBe("Wool Socks & Liners");
    expect(record.offers).toEqual({ price: "18", currency: "GBP", availability: null });
    expect(record.identifiers).toEqual({ sku: "EP-SOCK", gtin: null, mpn: null });
  });

  it("follows @graph and @id references, and resolves a relative url against the operator's", () => {
    const html = fixture("jsonld-graph.html");
    const failed = extractProduct(html);
    expect(failed).toEqual({ ok: false, error: expect.stringMatching(/^no URL: .*relative/) });
    const result = extractProduct(html, { url: "https://lumenworks.example/anything" });
    if (!result.ok) expect.fail(result.error);
    expect(result.record).toMatchObject({
      url: "https://lumenworks.example/p/headlamp-400",
      name: "Headlamp 400",
      brands: ["Lumenworks"],
      price_label: "CA$34.50",
      offers: { price: "34.50", currency: "CAD", availability: "InStock" },
    });
    expect(result.record.media).toEqual([
      { url: "https://lumenworks.example/i/headlamp.jpg", type: "image" },
      { url: "https://lumenworks.example/v/headlamp.mp4", type: "video" },
    ]);
  });

  it("labels an AggregateOffer as a range, with the lowest price in offers", () => {
    const record = extractFixture("jsonld-aggregate.html");
    expect(record.price_label).toBe("$20.00 – $35.00");
    expect(record.offers).toEqual({ price: "20", currency: "USD", availability: "InStock" });
    expect(record.brands).toEqual(["Northwind"]);
  });

  it("reads a ProductGroup: the variant the URL selects, and the range over variants", () => {
    const record = extractFixture("jsonld-product-group.html");
    expect(record.name).toBe("Merino Tee");
    expect(record.identifiers?.sku).toBe("NW-TEE-M");
    expect(record.price_label).toBe("€45.00 – €49.00");
    expect(record.offers).toEqual({ price: "49", currency: "EUR", availability: "InStock" });
  });

  it("prefers the page's product over a sparse related one, and offers alone still count", () => {
    const html = `<html><head><link rel="canonical" href="https://a.example/p">
      <script type="application/ld+json">[{"@type":"Product","name":"Related thing"},
        {"@type":"Product","name":"Main thing","sku":"M1","offers":{"@type":"Offer","price":"5","priceCurrency":"USD"}}]</script></head></html>`;
    const result = extractProduct(html);
    expect(result.ok && result.record.name).toBe("Main thing");

    const offerOnly = `<html><head><link rel="canonical" href="https://a.example/q"><title>Q</title>
      <script type="application/ld+json">{"@type":"Offer","price":"7.10","priceCurrency":"EUR","availability":"InStock"}</script></head></html>`;
    const second = extractProduct(offerOnly);
    expect(second.ok && second.record.offers).toEqual({ price: "7.10", currency: "EUR", availability: "InStock" });
  });
});
