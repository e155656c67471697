/** Small catalogs written for the tests, in the import record shape. */
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import type { ImportRecord } from "../../server/ingest/record.js";
import { productUrlKey } from "../../shared/url.js";

export type TestRecord = Partial<ImportRecord> & Pick<ImportRecord, "url" | "name">;

export const FIXTURE: TestRecord[] = [
  {
    url: "https://www.northpeak.example/products/alpine-2-tent",
    name: "Alpine 2 Backpacking Tent",
    desc: "A two-person, three-season tent with aluminium poles. Weighs 1.6 kg.",
    brands: ["NorthPeak"],
    price_label: "$349.00",
    media: [
      { url: "https://cdn.northpeak.example/alpine-2.jpg", type: "image" },
      { url: "https://cdn.northpeak.example/alpine-2.mp4", type: "video" },
    ],
    raw_data: {
      strippedHtml: "<main><h1>Alpine 2 Backpacking Tent</h1><p>$349.00</p></main>",
      jsons: { ld_json: { "@type": "Product", name: "Alpine 2 Backpacking Tent" }, props_data: null },
    },
  },
  {
    url: "https://www.northpeak.example/products/down-sleeping-bag?variant=long",
    name: "Summit Down Sleeping Bag, Long",
    desc: "800-fill goose down sleeping bag rated to -7 °C.",
    brands: ["NorthPeak"],
    price_label: "$429.00",
  },
  {
    url: "https://copperleafkitchen.example/en/p/cast-iron-skillet-26",
    name: "Cast Iron Skillet 26 cm",
    desc: "Pre-seasoned cast iron frying pan for searing and baking.",
    brands: ["Copperleaf Kitchen"],
    price_label: "49,90 €",
  },
  {
    url: "https://copperleafkitchen.example/en/p/stainless-saucepan-2l",
    name: "Stainless Steel Saucepan 2 L",
    desc: "Tri-ply saucepan with a glass lid; induction ready.",
    brands: ["Copperleaf Kitchen"],
    price_label: "39,90 €",
  },
  {
    url: "https://shop.haldenaudio.example/products/studio-headphones",
    name: "Studio Over-Ear Headphones",
    desc: "Closed-back wired headphones for mixing and monitoring.",
    brands: ["Halden Audio"],
    price_label: "£149.00",
  },
  {
    url: "https://stridewell.example/products/trail-runner-3",
    name: "Trail Runner 3 Running Shoes",
    desc: "Lightweight trail running shoes with a grippy outsole.",
    brands: ["Stridewell"],
    price_label: "$139.99",
  },
];

/** Lines of NDJSON for the CLI importer. */
/** A product whose page is large (about 340 KB of raw data), for the answer-size tests; and its id. */
export const BIG: TestRecord = {
  url: "https://big.example/p/huge-tent",
  name: "Huge Tent with a very long page",
  desc: "A tent whose page is large.",
  raw_data: { strippedHtml: `<main>${"<p>tent fabric and poles</p>".repeat(12_000)}</main>`, jsons: { ld_json: null, props_data: null } },
};
export const bigId = productIdFromUrlKey(productUrlKey(BIG.url)!);

export function toNdjson(records: readonly unknown[]): string {
  return `${records.map((record) => JSON.stringify(record)).join("\n")}\n`;
}

/** The MCP tools, in the order every transport lists them (the operation table's): the catalog's own, then UCP's. */
export const MCP_TOOL_NAMES = [
  "search_products",
  "get_product_by_id",
  "get_product_by_url",
  "lookup_products",
  "list_product_changes",
  "get_product_offers",
  "find_similar_products",
  "get_price_history",
  "search_catalog",
  "lookup_catalog",
  "get_product",
];
