/**
 * Pages of a given size for issue 47's tests and bench:hostile: a benign product page (JSON-LD, Open Graph, page
 * state, a buy box, then related products and reviews until it is the size asked) and hostile pages of the same
 * size, each the worst case found for one extraction layer or for the HTML parser.
 */

const ORIGIN = "https://shop.example";

/** `unit` repeated until the text is at least `bytes` long. */
export function repeatTo(unit: string, bytes: number): string {
  return unit.repeat(Math.max(1, Math.ceil(bytes / unit.length)));
}

/** A product page shaped like a real one, padded with related products and reviews to `bytes`. */
export function benignPage(bytes: number): string {
  const ld = {
    "@context": "https://schema.org",
    "@type": "Product",
    name: "Trail Runner 2 Waterproof Shoe",
    sku: "TR2-WP-42",
    brand: { "@type": "Brand", name: "Northwind" },
    offers: { "@type": "Offer", price: "129.00", priceCurrency: "EUR", availability: "https://schema.org/InStock" },
  };
  const state = { props: { pageProps: { product: { name: "Trail Runner 2 Waterproof Shoe", price: 129, sku: "TR2-WP-42" } } } };
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Trail Runner 2 | Northwind</title>
<link rel="canonical" href="${ORIGIN}/p/trail-runner-2"><meta property="og:title" content="Trail Runner 2">
<meta property="product:price:amount" content="129.00"><meta property="product:price:currency" content="EUR">
<script type="application/ld+json">${JSON.stringify(ld)}</script>
<script>window.__INITIAL_STATE__ = ${JSON.stringify(state)};</script></head><body>
<nav aria-label="breadcrumb"><a href="/">Home</a> / <a href="/shoes">Shoes</a></nav>
<main><h1>Trail Runner 2 Waterproof Shoe</h1><div class="buy-box"><span class="price">€129.00</span>
<button>Add to cart</button><p>SKU: TR2-WP-42</p></div>`;
  const card = (i: number) =>
    `<section class="related"><div class="card" itemscope itemtype="https://schema.org/Product"><a href="/p/${i}"><img src="/i/${i}.jpg" alt="Shoe ${i}"></a>
<h3 itemprop="name">Road Shoe ${i}</h3><span class="price">€${(i % 90) + 10}.95</span><ul><li>Breathable mesh upper</li><li>Recycled sole</li></ul></div>
<div class="review"><p>Comfortable from the first run, true to size and light on long days: <b>${i}</b> km so far.</p></div></section>\n`;
  const parts = [head];
  let length = head.length;
  for (let i = 0; length < bytes - 30; i++) {
    const next = card(i);
    parts.push(next);
    length += next.length;
  }
  parts.push("</main></body></html>");
  return parts.join("");
}

/** A page whose body (or a script in it) is `body`, with a canonical URL and a name, so that it extracts. */
function shell(body: string, head = ""): string {
  return `<!doctype html><html><head><title>Widget</title><link rel="canonical" href="${ORIGIN}/p/widget">${head}</head><body><h1>Widget</h1>${body}</body></html>`;
}

/** A JSON-LD Product named Widget, with `members` added. */
function ld(members: string): string {
  return `<script type="application/ld+json">{"@type":"Product","name":"Widget",${members}}</script>`;
}

/** Hostile pages of about `bytes`, by the shape that made a layer (or the parser) super-linear before issue 47. */
export const HOSTILE_PAGES: Record<string, (bytes: number) => string> = {
  /** A page-state marker repeated: every occurrence began a parse that ran to the end of the script. */
  "page-state markers": (bytes) => shell(`<script>${repeatTo('__INITIAL_STATE__=["', bytes)}</script>`),
  /** Nuxt's `(function(` repeated with no `return`: each occurrence searched the rest of the script. */
  "nuxt functions": (bytes) => shell(`<script>${repeatTo("__NUXT__=(function(", bytes)}</script>`),
  /** Open tags never closed: htmlparser2 unshifts its stack at every open tag. */
  "deep nesting": (bytes) => shell(repeatTo("<div>", bytes)),
  /** Nested svg: a second stack (foreign content) unshifted as well. */
  "deep svg": (bytes) => shell(repeatTo("<svg>", bytes)),
  /** A deep stack, then close tags that match nothing: each searched the whole stack. */
  "unmatched closes": (bytes) => shell(repeatTo("<span>", bytes / 2) + repeatTo("</x>", bytes / 2)),
  /** A JSON-LD category with a long run of spaces: the separators' `\s*` was retried from each one. */
  "long category": (bytes) => shell(ld(`"category":"Shoes${repeatTo(" ", bytes)}x"`)),
  /** A JSON-LD GTIN ending in a long run of newlines, trimmed by a regex retried from each one. */
  "long gtin": (bytes) => shell(ld(`"gtin13":"4006381333931${repeatTo("\\n", bytes)}x"`)),
  /** A JSON-LD price with a long run of zeros in its decimals: `0+$` retried from each one. */
  "price zeros": (bytes) => shell(ld(`"offers":{"price":"1.${repeatTo("0", bytes)}1","priceCurrency":"EUR"}`)),
  /** Price elements below containers with long class names: each price element tested every ancestor's. */
  "prices under long classes": (bytes) =>
    shell(repeatTo(`<div class="${"c".repeat(500)}">`, bytes / 2) + repeatTo('<i class="price">x</i>', bytes / 2)),
  /** A JSON-LD block ending in a long run of semicolons, trimmed by a regex retried from each one. */
  "trailing semicolons": (bytes) => shell(`<script type="application/ld+json">{"@type":"Product","name":"Widget"}${repeatTo(";", bytes)} x</script>`),
  /** Issue 51's stock evidence: "notify me" in every element of a deep nest (each one's ancestors tested). */
  "notify me nested": (bytes) => shell(`<button class="add-to-cart">Add to cart</button>${repeatTo('<div class="x">Notify me when back', bytes)}`),
  /** Delivery wording in many other products' boxes with long class names. */
  "delivery in other boxes": (bytes) =>
    shell(repeatTo(`<div class="${"related-".repeat(20)}"><p>Delivery by Tuesday, ships in 2 days</p></div>`, bytes)),
  /** Quantity selectors with long names. */
  "quantity inputs": (bytes) => shell(repeatTo(`<input name="quantity-${"q".repeat(60)}" class="${"qty ".repeat(20)}">`, bytes)),
};
