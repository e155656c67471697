/** The record's category path (issue 13), from each place pages state it; home crumbs and the product itself left out. */
import { describe, expect, it } from "vitest";
import { categoryFromCrumbs, withoutProduct } from "../../../server/ingest/extract/category.js";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { ImportRecordSchema } from "../../../server/ingest/record.js";

function category(head: string, body = ""): string | undefined {
  const html = `<html><head><link rel="canonical" href="https://shop.example/p/jacket"><title>Storm Shell</title>${head}</head><body><h1>Storm Shell Jacket</h1>${body}</body></html>`;
  const result = extractProduct(html);
  if (!result.ok) expect.fail(result.error);
  return result.record.category;
}

const crumbs = (names: string[], urls: string[] = []) =>
  JSON.stringify({
    "@context": "https://schema.org",
    "@type": "BreadcrumbList",
    itemListElement: names.map((name, index) => ({ "@type": "ListItem", position: index + 1, name, ...(urls[index] ? { item: urls[index] } : {}) })),
  });

describe("category", () => {
  it("reads JSON-LD category paths in their usual spellings", () => {
    const product = (value: unknown) =>
      `<script type="application/ld+json">${JSON.stringify({ "@type": "Product", name: "Storm Shell Jacket", category: value })}</script>`;
    expect(category(product("Clothing > Outerwear > Rain Jackets"))).toBe("Clothing > Outerwear > Rain Jackets");
    expect(category(product("Clothing/Outerwear/Rain Jackets"))).toBe("Clothing > Outerwear > Rain Jackets");
    expect(category(product({ "@type": "Thing", name: "Rain Jackets" }))).toBe("Rain Jackets");
    expect(category(product("5598"))).toBeUndefined();
  });

  it("takes a JSON-LD BreadcrumbList without the home crumb and the product's own crumb", () => {
    const list = crumbs(["Home", "Clothing", "Outerwear", "Storm Shell Jacket"], ["https://shop.example/"]);
    const head = `<script type="application/ld+json">{"@type":"Product","name":"Storm Shell Jacket"}</script><script type="application/ld+json">${list}</script>`;
    expect(category(head)).toBe("Clothing > Outerwear");
  });

  it("drops a root crumb that links to the site's root whatever its name", () => {
    expect(categoryFromCrumbs([{ name: "Northwind", url: "/" }, { name: "Tents" }])).toEqual(["Tents"]);
    expect(categoryFromCrumbs([{ name: "Startseite" }, { name: "Zelte" }])).toEqual(["Zelte"]);
    expect(categoryFromCrumbs([{ name: "Tents" }, { name: "Tents" }, { name: "2-person &amp; up" }])).toEqual(["Tents", "2-person & up"]);
    expect(categoryFromCrumbs([{ name: "Back to results" }, { name: "Home" }, { name: "Tents" }])).toEqual(["Tents"]);
    expect(categoryFromCrumbs([{ name: "Outdoor" }, { name: "Shop" }, { name: "Tents" }])).toEqual(["Outdoor", "Shop", "Tents"]);
  });

  it("takes microdata breadcrumbs", () => {
    const body = `<ol itemscope itemtype="https://schema.org/BreadcrumbList">
      <li itemprop="itemListElement" itemscope itemtype="https://schema.org/ListItem"><a itemprop="item" href="/"><span itemprop="name">Home</span></a><meta itemprop="position" content="1"></li>
      <li itemprop="itemListElement" itemscope itemtype="https://schema.org/ListItem"><a itemprop="item" href="/outerwear"><span itemprop="name">Outerwear</span></a><meta itemprop="position" content="2"></li></ol>
      <div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Storm Shell Jacket</span><meta itemprop="sku" content="SS-1"></div>`;
    expect(category("", body)).toBe("Outerwear");
  });

  it("takes Shopify's product_type", () => {
    const head = `<script type="application/json" id="ProductJson-main">{"title":"Storm Shell Jacket","type":"Rain Jackets","price":12000,"variants":[{"id":1,"price":12000}]}</script>`;
    expect(category(head)).toBe("Rain Jackets");
  });

  it("takes a visible breadcrumb trail", () => {
    const body = `<nav aria-label="Breadcrumb"><a href="/">Home</a> / <a href="/men">Men</a> / <a href="/men/jackets">Jackets</a></nav>`;
    expect(category("", body)).toBe("Men > Jackets");
  });

  it("drops a last crumb that begins the product's name", () => {
    expect(withoutProduct(["Tables", "MÖCKELBY Table"], "MÖCKELBY Table, oak, 235x100 cm")).toEqual(["Tables"]);
    expect(withoutProduct(["Storm Shell Jacket"], "Storm Shell Jacket")).toBeUndefined();
    expect(withoutProduct(["Men", "Jackets"], "Storm Shell Jacket")).toEqual(["Men", "Jackets"]);
  });

  it("is taken from NDJSON records as a string or as segments", () => {
    const base = { url: "https://shop.example/p/1", name: "Jacket" };
    expect(ImportRecordSchema.parse({ ...base, category: ["Clothing", "Outerwear"] }).category).toBe("Clothing > Outerwear");
    expect(ImportRecordSchema.parse({ ...base, category: " Clothing > Outerwear " }).category).toBe("Clothing > Outerwear");
    expect(ImportRecordSchema.safeParse({ ...base, category: 42 }).success).toBe(false);
  });
});
