import { describe, expect, it } from "vitest";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { identifierInUrl } from "../../../server/ingest/extract/visible.js";
import { extractFixture, fixture } from "./helpers.js";

describe("visible layer", () => {
  it("reads name, description, the price by the buy button (not the old, shipping or related one), labels and images", () => {
    const record = extractFixture("visible-only.html", { url: "https://fernhill.example/apron" });
    expect(record).toMatchObject({
      url: "https://fernhill.example/apron",
      name: "Linen Apron",
      desc: "A heavy linen apron with two pockets.",
      brands: ["Fernhill"],
      price_label: "€1,099.00 (was €1,299.00)",
      offers: { price: "1099", currency: "EUR", availability: "InStock" },
      identifiers: { sku: "FH-APR-3", gtin: null, mpn: null },
      media: [{ url: "https://fernhill.example/img/apron.jpg", type: "image" }],
    });
  });

  it("reads an out-of-stock statement", () => {
    const html = `<html><head><link rel="canonical" href="https://v.example/x"></head><body><h1>Lamp</h1>
      <div id="availability"><span>Currently unavailable.</span></div><span class="price">$20.00</span></body></html>`;
    const result = extractProduct(html);
    expect(result.ok && result.record.offers?.availability).toBe("OutOfStock");
  });

  it("prefers an enabled buy button over stale out-of-stock markup", () => {
    const html = `<html><head><link rel="canonical" href="https://v.example/y">
      <script type="application/ld+json">{"@type":"Product","name":"Lamp","offers":{"price":"20","priceCurrency":"USD","availability":"OutOfStock"}}</script>
      </head><body><h1>Lamp</h1><button id="add-to-cart">Add to basket</button></body></html>`;
    const result = extractProduct(html);
    expect(result.ok && result.record.offers?.availability).toBe("InStock");
  });

  it("prefers the page's out-of-stock wording over stale in-stock markup when nothing can be bought", () => {
    const html = `<html><head><link rel="canonical" href="https://v.example/s">
      <script type="application/ld+json">{"@type":"Product","name":"Lamp","offers":{"price":"0","priceCurrency":"USD","availability":"InStock"}}</script>
      </head><body><h1>Lamp</h1><p class="stock-status">Sold out</p><span class="price">$20.00</span><button class="add-to-cart" disabled>Add to cart</button></body></html>`;
    const result = extractProduct(html);
    if (!result.ok) expect.fail(result.error);
    expect(result.record.offers).toEqual({ price: "20", currency: "USD", availability: "OutOfStock" });
  });

  it("takes the identifier from the page URL as the last resort for the SKU", () => {
    expect(identifierInUrl("https://shop.example/dp/B07ABC1234")).toBe("B07ABC1234");
    expect(identifierInUrl("https://shop.example/itm/Some-Title-/302474151804")).toBe("302474151804");
    expect(identifierInUrl("https://shop.example/cardigan-12185160.html")).toBe("12185160");
    expect(identifierInUrl("https://shop.example/store/1?pid=260591")).toBe("260591");
    expect(identifierInUrl("https://shop.example/products/linen-apron")).toBeUndefined();
    const result = extractProduct("<html><head><title>Deal</title></head><body><h1>Deal</h1></body></html>", {
      url: "https://deals.example/deal/3454863898",
    });
    expect(result.ok && result.record.identifiers?.sku).toBe("3454863898");
  });

  it("fails clearly without a URL or a name", () => {
    expect(extractProduct(fixture("no-url.html"))).toEqual({ ok: false, error: expect.stringMatching(/^no URL: /) });
    expect(extractProduct(fixture("no-name.html"))).toEqual({ ok: false, error: expect.stringMatching(/^no product name/) });
    expect(extractProduct(fixture("no-url.html"), { url: "not a url" })).toEqual({ ok: false, error: expect.stringMatching(/^no URL: /) });
  });

  it("resolves a relative canonical against og:url, and the page's URL wins over the operator's", () => {
    expect(extractFixture("relative-url.html").url).toBe("https://saltmarsh.example/products/enamel-bowl");
    expect(extractFixture("relative-url.html", { url: "https://elsewhere.example/x" }).url).toBe("https://saltmarsh.example/products/enamel-bowl");
    expect(extractFixture("no-url.html", { url: "https://saltmarsh.example/plate" }).url).toBe("https://saltmarsh.example/plate");
  });
});

describe("choosing among layers", () => {
  it("keeps the markup's price unless two other layers agree on another", () => {
    const page = (ld: string) => `<html><head><link rel="canonical" href="https://v.example/z">
      <script type="application/ld+json">{"@type":"Product","name":"Lamp","offers":{"price":"${ld}","priceCurrency":"USD"}}</script>
      <meta property="product:price:amount" content="400"><meta property="product:price:currency" content="USD">
      </head><body><h1>Lamp</h1><span class="price">$400.00</span><button class="add-to-cart">Add to cart</button></body></html>`;
    const outvoted = extractProduct(page("90"));
    expect(outvoted.ok && outvoted.record.offers?.price).toBe("400");
    const agreed = extractProduct(page("400"));
    expect(agreed.ok && agreed.record.offers?.price).toBe("400");
  });

  it("ignores prices of other products and of the mini-cart", () => {
    const html = `<html><head><link rel="canonical" href="https://v.example/w"></head><body>
      <header><span class="cart-price">$0.00</span></header><h1>Lamp</h1>
      <div class="related-products"><span class="price">$5.00</span></div><span class="product-price">$40.00</span></body></html>`;
    const result = extractProduct(html);
    expect(result.ok && result.record.offers?.price).toBe("40");
  });
});
