/** One product's view: the record, its images, and the offers the API gives for it. */
import { type Child, h } from "./dom.js";
import { availabilityText, money, type Shown, shown, siteOf } from "./format.js";
import { picture } from "./results.js";
import type { PageRecord } from "./types.js";

function facts(record: Shown): HTMLElement | null {
  const whole = record.whole;
  if (!whole) return null;
  const rows: [string, string | null | undefined][] = [
    ["Brand", whole.brands.join(", ")],
    ["Category", whole.category],
    ["SKU", whole.identifiers?.sku],
    ["GTIN", whole.identifiers?.gtin],
    ["MPN", whole.identifiers?.mpn],
    ["Price checked", new Date(whole.checked_at).toLocaleString()],
  ];
  return h("dl", { class: "facts" }, ...rows.flatMap(([term, value]) => (value ? [h("dt", {}, term), h("dd", {}, value)] : [])));
}

/**
 * Every merchant's offer for the product. A record is one merchant's page, so today that is the record's own offer;
 * once products are grouped across merchants the API will answer more, and they are listed here. Nothing is shown
 * when the record states no offer.
 */
function offers(record: Shown): HTMLElement | null {
  const offer = record.whole?.offers;
  if (!offer || (offer.price === null && offer.availability === null)) return null;
  const rows = [{ url: record.url, price: money(offer.price, offer.currency) ?? record.price, availability: availabilityText(offer.availability) }];
  return h(
    "section",
    { class: "offers", "aria-labelledby": "offers-title" },
    h("h3", { id: "offers-title" }, "Offers"),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "Merchant"), h("th", { scope: "col" }, "Price"), h("th", { scope: "col" }, "Availability")),
      ),
      h(
        "tbody",
        {},
        ...rows.map((row) =>
          h(
            "tr",
            {},
            h("td", {}, h("a", { href: row.url, target: "_blank", rel: "noopener noreferrer" }, siteOf(row.url))),
            h("td", {}, row.price ?? "—"),
            h("td", {}, row.availability ?? "—"),
          ),
        ),
      ),
    ),
  );
}

export function productView(pdp: PageRecord, back: Child): HTMLElement {
  const record = shown(pdp);
  const images = record.images.length > 0 ? record.images : [undefined];
  return h(
    "article",
    { class: "product", "aria-labelledby": "product-title" },
    h("p", { class: "back" }, back),
    h("h2", { id: "product-title", tabindex: "-1" }, record.name),
    h("div", { class: "gallery" }, ...images.map((url) => picture(url, record.name, "photo"))),
    h("p", { class: "price" }, record.price ?? "Price not stated", record.wasPrice && " ", record.wasPrice && h("s", {}, record.wasPrice)),
    h("p", {}, h("a", { href: record.url, target: "_blank", rel: "noopener noreferrer" }, `See it on ${siteOf(record.url)} ↗`)),
    record.whole?.desc && h("p", { class: "desc" }, record.whole.desc),
    facts(record),
    offers(record),
  );
}
