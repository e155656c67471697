import { describe, expect, it } from "vitest";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { extractFixture } from "./helpers.js";

describe("Open Graph layer", () => {
  it("reads og: and product: tags alone", () => {
    const record = extractFixture("og-only.html");
    expect(record).toMatchObject({
      url: "https://kilnco.example/pour-over",
      name: "Ceramic Pour-Over",
      desc: "Hand-thrown dripper & saucer.",
      brands: ["Kiln & Co"],
      price_label: "£24.00 (was £32.00)",
      offers: { price: "24", currency: "GBP", availability: "InStock" },
      identifiers: { sku: "KC-PO-1", gtin: null, mpn: null },
    });
    expect(record.media).toEqual([
      { url: "https://kilnco.example/img/pour-over.jpg", type: "image" },
      { url: "https://kilnco.example/vid/pour-over.mp4", type: "video" },
    ]);
  });
});

describe("Open Graph titles", () => {
  it("drop the site name the title carries", () => {
    const html = `<html><head><meta property="og:title" content="Ceramic Pour-Over | Kiln &amp; Co">
      <meta property="og:site_name" content="Kiln &amp; Co"><meta property="og:url" content="https://kilnco.example/p"></head></html>`;
    const result = extractProduct(html);
    expect(result.ok && result.record.name).toBe("Ceramic Pour-Over");
  });
});
