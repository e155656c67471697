import { describe, expect, it } from "vitest";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { extractFixture } from "./helpers.js";

const page = (script: string) =>
  `<html><head><link rel="canonical" href="https://state.example/p/1"><title>Loading</title></head><body><script>${script}</script></body></html>`;

describe("page-state layer", () => {
  it("finds the product in __NEXT_DATA__", () => {
    const record = extractFixture("next-data.html");
    expect(record).toMatchObject({
      name: "Commuter 7",
      desc: "Seven gears.",
      brands: ["Voltcycle"],
      price_label: "€1,299.00",
      offers: { price: "1299", currency: "EUR", availability: "InStock" },
      identifiers: { sku: "VC-C7", gtin: "5901234123457", mpn: null },
      media: [{ url: "https://voltcycle.example/i/c7.jpg", type: "image" }],
    });
    expect(record.raw_data.jsons.props_data).toMatchObject({ __typename: "Product", sku: "VC-C7" });
  });

  it("reads Shopify's product JSON (prices in cents), ShopifyAnalytics and Shopify.currency", () => {
    const record = extractFixture("shopify.html");
    expect(record).toMatchObject({
      name: "Beeswax Candle",
      desc: "Pure beeswax.",
      brands: ["Hollow Hive"],
      price_label: "CA$18.00 – CA$26.00",
      offers: { price: "18", currency: "CAD", availability: "InStock" },
      identifiers: { sku: "HH-C-S", gtin: "0012345678905", mpn: null },
      media: [{ url: "https://hollowhive.example/cdn/candle.jpg", type: "image" }],
    });
  });

  it("reads ShopifyAnalytics.meta alone (variant prices in cents)", () => {
    const html = `<html><head><link rel="canonical" href="https://hollowhive.example/products/taper"><title>Taper</title>
      <script>var meta = {"product":{"id":7,"vendor":"Hollow Hive","variants":[{"id":1,"price":950,"name":"Taper Candle - Pair","sku":"HH-T-2"}]},"page":{"pageType":"product"}};
      for (var attr in meta) { window.ShopifyAnalytics.meta[attr] = meta[attr]; }</script></head><body><h1>Taper Candle</h1></body></html>`;
    const result = extractProduct(html);
    if (!result.ok) expect.fail(result.error);
    expect(result.record).toMatchObject({ name: "Taper Candle", brands: ["Hollow Hive"], offers: { price: "9.50" }, identifiers: { sku: "HH-T-2" } });
  });

  it.each([
    [
      "__INITIAL_STATE__",
      'window.__INITIAL_STATE__ = {"pdp":{"product":{"title":"Oak Shelf","sku":"OS-1","price":{"amount":"59.00","currencyCode":"USD"},"inStock":true,"images":["https://state.example/shelf.jpg"]}}};',
    ],
    [
      "__PRELOADED_STATE__",
      'window.__PRELOADED_STATE__ = JSON.parse("{\\"item\\":{\\"name\\":\\"Oak Shelf\\",\\"sku\\":\\"OS-1\\",\\"price\\":59,\\"currency\\":\\"USD\\",\\"available\\":true,\\"image\\":\\"https://state.example/shelf.jpg\\"}}");',
    ],
    [
      "__APOLLO_STATE__",
      'window.__APOLLO_STATE__ = {"Product:1":{"__typename":"Product","name":"Oak Shelf","sku":"OS-1","price":59,"currency":"USD","availability":"in_stock","image":"https://state.example/shelf.jpg"}};',
    ],
    [
      "__NUXT__",
      'window.__NUXT__=(function(a){return {data:[{product:{name:"Oak Shelf",sku:"OS-1",price:"59.00",currency:"USD",stockStatus:"in stock",images:[{src:"https://state.example/shelf.jpg"}]}}]}}(1));',
    ],
  ])("reads %s", (_marker, script) => {
    const result = extractProduct(page(script));
    if (!result.ok) expect.fail(result.error);
    expect(result.record).toMatchObject({
      name: "Oak Shelf",
      offers: { price: "59", currency: "USD", availability: "InStock" },
      identifiers: { sku: "OS-1" },
      media: [{ url: "https://state.example/shelf.jpg", type: "image" }],
    });
  });
});
