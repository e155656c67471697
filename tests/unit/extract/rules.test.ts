/**
 * The extractor's rules (issue 17), each on a small page written for the test:
 * availability in every spelling and layer and from what the page shows,
 * the price of this product (not a related, crossed-out or per-unit one),
 * the currency from the page, the brand, GTIN check digits, and each field's
 * provenance and confidence.
 */
import { describe, expect, it } from "vitest";
import { type ExtractOptions, type ExtractedRecord, extractProduct } from "../../../server/ingest/extract/index.js";
import { rulesWithout } from "../../../server/ingest/extract/rules.js";
import { brandFromElement, brandInByline } from "../../../server/ingest/extract/visible.js";
import { parsePage } from "../../../server/ingest/extract/dom.js";

function page(head: string, body = "", url = "https://shop.example/p/lamp"): string {
  return `<html><head><link rel="canonical" href="${url}"><title>Desk Lamp | Shop</title>${head}</head><body><main><h1>Desk Lamp</h1>${body}</main></body></html>`;
}

function extract(html: string, options: ExtractOptions = {}): ExtractedRecord {
  const result = extractProduct(html, options);
  if (!result.ok) expect.fail(result.error);
  return result.record;
}

const ld = (json: object) =>
  `<script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Product", name: "Desk Lamp", ...json })}</script>`;

describe("availability as schema.org is spelled in every layer", () => {
  it.each([
    ["JSON-LD full https URL", ld({ offers: { price: "20", availability: "https://schema.org/OutOfStock" } }), "", "OutOfStock", "ld_json"],
    ["JSON-LD http URL with a trailing slash", ld({ offers: { price: "20", availability: "http://schema.org/InStock/" } }), "", "InStock", "ld_json"],
    ["JSON-LD bare lower case", ld({ offers: { price: "20", availability: "instock" } }), "", "InStock", "ld_json"],
    ["JSON-LD snake case", ld({ offers: { price: "20", availability: "out_of_stock" } }), "", "OutOfStock", "ld_json"],
    [
      "microdata link",
      "",
      `<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Desk Lamp</span><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="20"><link itemprop="availability" href="https://schema.org/PreOrder"></div></div>`,
      "PreOrder",
      "microdata",
    ],
    [
      "microdata meta",
      "",
      `<div itemscope itemtype="http://schema.org/Product"><span itemprop="name">Desk Lamp</span><div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="availability" content="SoldOut"></div></div>`,
      "OutOfStock",
      "microdata",
    ],
    [
      "Open Graph product:availability",
      `<meta property="og:title" content="Desk Lamp"><meta property="product:availability" content="out of stock">`,
      "",
      "OutOfStock",
      "opengraph",
    ],
    [
      "page state (Shopify variants)",
      "",
      `<script type="application/json" id="ProductJson-1">{"title":"Desk Lamp","price":2000,"variants":[{"id":1,"price":2000,"available":false},{"id":2,"price":2000,"available":true}]}</script>`,
      "InStock",
      "page_state",
    ],
  ])("%s", (_name, head, body, availability, source) => {
    const record = extract(page(head, body));
    expect(record.offers?.availability).toBe(availability);
    expect(record.provenance.availability?.source).toBe(source);
  });
});

describe("availability from what the page shows", () => {
  it("an enabled add-to-cart button means in stock, with a confidence below the markup's", () => {
    const record = extract(page("", `<span class="price">$20.00</span><button class="add-to-cart">Add to cart</button>`));
    expect(record.offers?.availability).toBe("InStock");
    expect(record.provenance.availability).toMatchObject({ source: "visible", rule: "weighed_evidence" });
    const markup = extract(
      page(ld({ offers: { price: "20", priceCurrency: "USD", availability: "InStock" } }), `<button class="add-to-cart">Add to cart</button>`),
    );
    expect(record.provenance.availability!.confidence).toBeLessThan(markup.provenance.availability!.confidence);
  });

  it.each([
    ["English, no button", `<p class="stock-status">Sold out</p>`],
    ["German, disabled button", `<div class="availability">Ausverkauft</div><button class="add-to-cart" disabled>In den Warenkorb</button>`],
    ["French, disabled button", `<button class="add-to-cart" disabled>Épuisé</button>`],
    ["notify me instead of a button", `<p>Notify me when it's back</p><button class="add-to-cart" disabled>Add to cart</button>`],
  ])("out-of-stock wording where nothing can be bought: %s", (_name, body) => {
    expect(extract(page("", `<span class="price">$20.00</span>${body}`)).offers?.availability).toBe("OutOfStock");
  });

  it("is not sold out when out-of-stock wording sits beside an enabled buy button (one size sold out)", () => {
    const body = `<span class="price">$20.00</span><div class="sizes"><span>S</span><span>M – sold out</span></div><button class="add-to-cart">Add to cart</button>`;
    expect(extract(page("", body)).offers?.availability).toBe("InStock");
  });

  it("says nothing when the page says nothing (no guess of in stock)", () => {
    const record = extract(page("", `<span class="price">$20.00</span>`));
    expect(record.offers).toMatchObject({ price: "20", availability: null });
    expect(record.provenance.availability).toBeUndefined();
  });

  it("ignores buy buttons in templates, mini-carts and related products", () => {
    const body = `<span class="price">$20.00</span><template><button class="add-to-cart">Add to cart</button></template>
      <div class="mini-cart"><button class="add-to-cart">Add to cart</button></div>
      <div class="related-products"><button class="add-to-cart">Add to cart</button></div>`;
    expect(extract(page("", body)).offers?.availability).toBeNull();
  });

  it("an enabled button overrules stale out-of-stock markup; with sold-out wording and no button, the markup stands", () => {
    const markup = ld({ offers: { price: "20", priceCurrency: "USD", availability: "OutOfStock" } });
    const html = page(markup, `<button id="add-to-cart">Add to basket</button>`);
    expect(extract(html).offers?.availability).toBe("InStock");
    expect(extract(html).provenance.availability).toMatchObject({ source: "visible", rule: "weighed_evidence" });
    expect(extract(page(markup, `<p class="stock">Sold out</p>`)).offers?.availability).toBe("OutOfStock");
  });
});

describe("the price of this product", () => {
  it("is the lowest offer a shopper can buy now, not a cheaper sold-out one", () => {
    const offers = [
      { price: "15", priceCurrency: "EUR", availability: "OutOfStock" },
      { price: "25", priceCurrency: "EUR", availability: "InStock" },
      { price: "30", priceCurrency: "EUR", availability: "InStock" },
    ];
    expect(extract(page(ld({ offers })))).toMatchObject({ offers: { price: "25", currency: "EUR" } });
    expect(extract(page(ld({ offers })), { rules: rulesWithout(["offers.lowest_buyable"]) }).offers?.price).toBe("15");
  });

  it("takes the list price as was_price and skips a per-unit price", () => {
    const offers = {
      price: "8.99",
      priceCurrency: "EUR",
      priceSpecification: [
        { "@type": "UnitPriceSpecification", price: "17.98", priceCurrency: "EUR", referenceQuantity: { value: 1, unitCode: "KGM" } },
        { "@type": "UnitPriceSpecification", priceType: "https://schema.org/StrikethroughPrice", price: "10.99", priceCurrency: "EUR" },
      ],
    };
    const record = extract(page(ld({ offers })));
    expect(record.offers).toEqual({ price: "8.99", currency: "EUR", availability: null, was_price: "10.99" });
    expect(record.price_label).toBe("€8.99 (was €10.99)");
  });

  it("takes the shown price by the buy button, not the crossed-out one, and the crossed-out one as was_price", () => {
    const body = `<div class="buy-box"><del class="price">€129,00</del><span class="price">€99,00</span><button class="add-to-cart">Add to cart</button></div>`;
    const record = extract(page("", body));
    expect(record.offers).toMatchObject({ price: "99", currency: "EUR", was_price: "129" });
    expect(record.provenance.price).toMatchObject({ source: "visible", rule: "visible.price_near_buy_button" });
  });

  it("is not a price per unit of measure, nor a bundle's or a multi-buy offer's", () => {
    const body = `<div class="buy-box"><span class="price">€ 1,99 / kg</span><span class="price">€ 4,49</span><button class="add-to-cart">In den Warenkorb</button></div>
      <div class="bundle-offer"><span class="price">€ 3,00</span></div>`;
    expect(extract(page("", body)).offers?.price).toBe("4.49");
    const offers = [
      { price: "30", priceCurrency: "EUR", eligibleQuantity: { "@type": "QuantitativeValue", minValue: 3 } },
      { price: "12", priceCurrency: "EUR" },
    ];
    expect(extract(page(ld({ offers }))).offers?.price).toBe("12");
  });

  it("takes a price inside a layout list (`list-unstyled`), not a related product's, but never a list price", () => {
    const body = `<ul class="list-unstyled"><li class="price"><span class="amount">€ 64,00</span></li></ul>
      <div class="related"><span class="price">€ 12,00</span></div>`;
    const record = extract(page("", body));
    expect(record.offers?.price).toBe("64");
    expect(record.provenance.price?.rule).toBe("visible.price_near_title");
    const listed = `<div class="buy-box"><span class="list-price">€ 80,00</span><span class="price">€ 64,00</span><button class="add-to-cart">Add to cart</button></div>`;
    expect(extract(page("", listed)).offers).toMatchObject({ price: "64", was_price: "80" });
  });

  it("takes a price opened by a word for it when no element by the buy button is named for the price", () => {
    const english = `<div class="buy-box"><p>Our price: <b>$12.50</b></p><button class="add-to-cart">Add to cart</button></div>`;
    expect(extract(page("", english)).offers).toMatchObject({ price: "12.50", currency: "USD" });
    const chinese = `<div class="deal-box"><p>原價：<s>$1,390</s></p><p class="deal">最低價$<b>990</b>元起</p><a class="buy-btn" href="#">立即購買</a></div>`;
    const record = extract(page("", chinese));
    expect(record.offers?.price).toBe("990");
    expect(record.provenance.price).toMatchObject({ source: "visible", rule: "visible.price_labelled" });
    expect(extract(page("", chinese), { rules: rulesWithout(["visible.price_labelled"]) }).offers?.price ?? null).toBeNull();
  });

  it("falls back on the price the description states, not its delivery threshold", () => {
    const described = (text: string) => page(`<meta name="description" content="${text}">`, `<p>A heavy linen apron.</p>`);
    const record = extract(described("Linen apron - sand for €41.30 (02/12/2026). Free delivery for orders over €24.90"));
    expect(record.offers).toMatchObject({ price: "41.30", currency: "EUR" });
    expect(record.provenance.price).toMatchObject({ source: "visible", rule: "visible.price_in_description" });
    expect(extract(described("Buy a linen apron from our range. Free Delivery on orders over £50.")).offers).toBeUndefined();
    expect(extract(described("Leinenschürze für 41,30 €"), { rules: rulesWithout(["visible.price_in_description"]) }).offers).toBeUndefined();
  });

  it("reads a shown price with one separator before three digits as thousands", () => {
    expect(extract(page("", `<span class="price">$ 12.990</span><button class="add-to-cart">Comprar</button>`)).offers?.price).toBe("12990");
  });
});

describe("currency from the page, never from the host", () => {
  it("a lone `$` is read as USD and flagged as a shared symbol, even on a .ca host", () => {
    const record = extract(
      page("", `<span class="price">$20.00</span><button class="add-to-cart">Add to cart</button>`, "https://shop.example.ca/p/lamp"),
    );
    expect(record.offers?.currency).toBe("USD");
    expect(record.provenance.currency).toMatchObject({ rule: "shared_symbol" });
    expect(record.provenance.currency!.confidence).toBeLessThan(0.5);
  });

  it("a `$` gives way to the dollar currency another layer names", () => {
    const head = `<meta property="og:title" content="Desk Lamp"><meta property="product:price:currency" content="CAD">`;
    const record = extract(page(head, `<span class="price">$20.00</span><button class="add-to-cart">Add to cart</button>`));
    expect(record.offers).toMatchObject({ price: "20", currency: "CAD" });
    expect(record.provenance.currency?.source).toBe("opengraph");
  });

  it("an ISO code in the markup is kept as written", () => {
    expect(extract(page(ld({ offers: { price: "1.250", priceCurrency: "kwd" } }))).offers).toMatchObject({ price: "1.25", currency: "KWD" });
  });
});

describe("brand", () => {
  it("comes from structured data first", () => {
    const record = extract(page(ld({ brand: { "@type": "Brand", name: "Lumen Works" } }), `<a id="bylineInfo" href="/b">Visit the Other Store</a>`));
    expect(record.brands).toEqual(["Lumen Works"]);
    expect(record.provenance.brand?.source).toBe("ld_json");
  });

  it("then from a byline or a brand element by the title", () => {
    const byline = extract(page("", `<div><a id="bylineInfo" href="/stores/lumen">Visit the Lumen Works Store</a></div>`));
    expect(byline.brands).toEqual(["Lumen Works"]);
    expect(byline.provenance.brand).toMatchObject({ source: "visible", rule: "visible.brand_byline" });
    const logo = extract(page("", `<div class="product-brand"><a href="/brands/lumen"><img src="/l.png" alt="Lumen Works"></a></div>`));
    expect(logo.brands).toEqual(["Lumen Works"]);
  });

  it("is never the site's name, and never the site's logo in the header", () => {
    const html = `<html><head><link rel="canonical" href="https://shop.example/p/1"><meta property="og:site_name" content="Shop Example"></head>
      <body><header><a class="brand" href="/"><img alt="Shop Example" src="/logo.png"></a></header><main><h1>Desk Lamp</h1></main></body></html>`;
    expect(extract(html).brands).toEqual([]);
  });

  it("reads bylines and brand elements as shoppers see them", () => {
    expect(brandInByline("Visit the Acme Store")).toBe("Acme");
    expect(brandInByline("Besuchen Sie den ACME-Store")).toBe("ACME");
    expect(brandInByline("Visita lo Store di Acme")).toBe("Acme");
    expect(brandInByline("Brand: Acme")).toBe("Acme");
    expect(brandInByline("by Acme")).toBe("Acme");
    expect(brandInByline("Free delivery by Friday for orders over £20 with our standard service")).toBeUndefined();
    const element = (html: string) =>
      parsePage(`<body>${html}</body>`)
        .byTag("body")[0]!
        .children.find((node) => node.type === "tag");
    expect(brandFromElement(element(`<span>Marke: Acme</span>`) as never)).toBe("Acme");
    expect(brandFromElement(element(`<div><img alt="Acme" src="a.png"></div>`) as never)).toBe("Acme");
    expect(brandFromElement(element(`<div><img alt="logo" src="a.png"></div>`) as never)).toBeUndefined();
  });
});

describe("identifiers", () => {
  it("keeps a GTIN only with a valid check digit", () => {
    expect(extract(page(ld({ sku: "L-1", gtin13: "4006381333931" }))).identifiers).toMatchObject({ gtin: "4006381333931" });
    expect(extract(page(ld({ sku: "L-1", gtin13: "4006381333932" }))).identifiers).toMatchObject({ gtin: null });
    expect(extract(page(ld({ sku: "L-1", gtin: "EAN: 0036000291452" }))).identifiers).toMatchObject({ gtin: "0036000291452" });
  });

  it("takes the SKU from the URL only as the last resort, and says so", () => {
    const record = extract(page("", "", "https://shop.example/item/123456789"));
    expect(record.identifiers?.sku).toBe("123456789");
    expect(record.provenance.sku).toEqual({ source: "visible", confidence: 0.4, rule: "sku.from_url" });
    expect(extract(page("", "", "https://shop.example/item/123456789"), { rules: rulesWithout(["sku.from_url"]) }).identifiers).toBeUndefined();
  });
});

describe("provenance and confidence", () => {
  it("rises when layers agree and falls when one disagrees alone", () => {
    const og = (price: string) =>
      `<meta property="og:title" content="Desk Lamp"><meta property="product:price:amount" content="${price}"><meta property="product:price:currency" content="EUR">`;
    const agreed = extract(page(ld({ offers: { price: "20", priceCurrency: "EUR" } }) + og("20")));
    const disputed = extract(page(ld({ offers: { price: "20", priceCurrency: "EUR" } }) + og("25")));
    expect(agreed.provenance.price).toMatchObject({ source: "ld_json" });
    expect(agreed.provenance.price!.confidence).toBeGreaterThanOrEqual(0.9);
    expect(disputed.offers?.price).toBe("20");
    expect(disputed.provenance.price!.confidence).toBeLessThan(agreed.provenance.price!.confidence - 0.1);
  });

  it("--explain gives every layer's value beside the chosen one", () => {
    const html = page(
      ld({ offers: { price: "20", priceCurrency: "EUR" } }),
      `<span class="price">€ 20,00</span><button class="add-to-cart">Add to cart</button>`,
    );
    const result = extractProduct(html, { explain: true });
    expect(result.ok && result.explained?.price).toMatchObject({ value: "20", source: "ld_json", layers: { ld_json: "20", visible: "20" } });
    // The weighed fields also show their evidence: the price's candidates, the availability's signals.
    const price = result.ok ? result.explained?.price : undefined;
    expect(price?.candidates).toEqual([expect.objectContaining({ amount: "20", layer: "ld_json", probability: price?.confidence })]);
    const availability = result.ok ? result.explained?.availability : undefined;
    expect(availability?.evidence?.map((item) => item.signal)).toEqual(["buy_enabled"]);
    expect(availability?.evidence?.[0]?.weight).toBeGreaterThan(0);
  });
});
