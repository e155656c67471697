/**
 * The labelled data `bench:extract` scores on, all read from ../shared (never
 * copied into the repository):
 *
 * - pdp/product-extraction-benchmark: 70 pages, ground truth for price, currency, availability, sku,
 *   brand, gtin and mpn (an empty list means the page has none);
 * - pdp/fathom-products: 13 pages, the price element a person labelled (price only);
 * - pdp/extruct: 2 pages with extruct's expected structured data (the attributes it states);
 * - extraction-strings: price strings, brand elements and GTIN strings with their expected parse.
 *
 * Each page has a site, for cross-validation by site: the registrable name of its URL without the public
 * suffix, so that amazon.com and amazon.de (one template) are one site.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { parsePage } from "../server/ingest/extract/dom.js";
import { decodePage } from "../server/ingest/extract/index.js";
import { parseAmount } from "../server/ingest/extract/price.js";
import { textOf } from "../server/ingest/extract/dom.js";

export const SHARED = resolve(import.meta.dirname, "../../shared/data");
const PDP = join(SHARED, "pdp");

export const ATTRIBUTES = ["price", "currency", "availability", "sku", "brand", "gtin", "mpn"] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

export interface LabelledPage {
  id: string;
  dataset: "benchmark" | "fathom" | "extruct";
  site: string;
  path: string;
  /** Given to the extractor as the operator's URL: used only when the page states none, never scored. */
  url: string;
  /** Accepted values per labelled attribute; an attribute not listed is not scored on this page. */
  truth: Partial<Record<Attribute, string[]>>;
}

const TruthSchema = z.record(
  z.string(),
  z.object({
    url: z.string(),
    price: z.array(z.string()).optional(),
    currency: z.array(z.string()).optional(),
    availability: z.array(z.string()).optional(),
    sku: z.array(z.string()).optional(),
    brand: z.array(z.string()).optional(),
    gtin: z.array(z.string()).optional(),
    mpn: z.array(z.string()).optional(),
  }),
);

const TWO_LEVEL_SUFFIXES = /\.(?:co|com|net|org|gov|ac|or|ne)\.[a-z]{2}$/;

/** `www.amazon.co.uk` → `amazon`, `manchester.craigslist.org` → `craigslist`. */
export function siteOf(url: string): string {
  const host = new URL(url).hostname.toLowerCase();
  const withoutSuffix = TWO_LEVEL_SUFFIXES.test(host) ? host.replace(TWO_LEVEL_SUFFIXES, "") : host.replace(/\.[a-z]+$/, "");
  return withoutSuffix.split(".").at(-1) ?? host;
}

export function loadPages(): LabelledPage[] {
  const pages: LabelledPage[] = [];
  const benchmark = join(PDP, "product-extraction-benchmark");
  if (existsSync(join(benchmark, "ground-truth.json"))) {
    const truth = TruthSchema.parse(JSON.parse(readFileSync(join(benchmark, "ground-truth.json"), "utf8")));
    for (const name of readdirSync(join(benchmark, "html")).sort()) {
      const id = name.replace(/\.html\.gz$/, "");
      const entry = truth[id];
      if (!entry) continue;
      const { url, ...labels } = entry;
      // Every attribute is labelled on these pages: a missing list means the page has none.
      const labelled = Object.fromEntries(ATTRIBUTES.map((attribute) => [attribute, labels[attribute] ?? []]));
      pages.push({ id: id.slice(0, 10), dataset: "benchmark", site: siteOf(url), path: join(benchmark, "html", name), url, truth: labelled });
    }
  }
  const fathom = join(PDP, "fathom-products");
  if (existsSync(fathom)) {
    for (const split of readdirSync(fathom).sort()) {
      for (const shop of readdirSync(join(fathom, split)).sort()) {
        const folder = join(fathom, split, shop);
        const labelled = readFileSync(join(folder, "expected-price.html"), "utf8");
        const price = parseAmount(textOf(parsePage(labelled).document));
        if (!price) continue;
        const site = shop.replace(/[^a-z0-9]/gi, "").toLowerCase();
        pages.push({
          id: `fathom/${shop}`,
          dataset: "fathom",
          site,
          path: join(folder, "source.html"),
          url: `https://${site}.example/`,
          truth: { price: [price] },
        });
      }
    }
  }
  const extruct = join(PDP, "extruct/tests/samples");
  for (const [html, expected] of [
    ["misc/opengraph_ns_product_test.html", "misc/opengraph_ns_product_test.json"],
    ["websites/microdata-with-description.html", "websites/microdata-with-description.json"],
  ] as const) {
    if (!existsSync(join(extruct, expected))) continue;
    const page = extructTruth(JSON.parse(readFileSync(join(extruct, expected), "utf8")));
    if (page) pages.push({ ...page, dataset: "extruct", path: join(extruct, html) });
  }
  return pages;
}

/** What extruct's expected output states, as truth: Open Graph product tags, or a microdata Product's offers and brand. */
function extructTruth(json: unknown): Omit<LabelledPage, "dataset" | "path"> | undefined {
  const first = Array.isArray(json) ? json[0] : undefined;
  if (!first || typeof first !== "object") return undefined;
  if ("properties" in first && Array.isArray(first.properties) && "namespace" in first) {
    const tags = new Map((first.properties as [string, string][]).map(([key, value]) => [key, value]));
    const url = tags.get("og:url");
    if (!url) return undefined;
    const truth: LabelledPage["truth"] = {};
    const price = tags.get("product:price:amount");
    if (price) truth.price = [price];
    const currency = tags.get("product:price:currency");
    if (currency) truth.currency = [currency];
    if (tags.get("product:availability") === "in stock") truth.availability = ["InStock"];
    const sku = tags.get("product:retailer_item_id");
    if (sku) truth.sku = [sku];
    return { id: `extruct/${siteOf(url)}`, site: siteOf(url), url, truth };
  }
  const ProductSchema = z.object({
    properties: z.object({
      brand: z.string().optional(),
      offers: z.array(z.object({ type: z.string(), properties: z.record(z.string(), z.string()) })),
    }),
  });
  const product = ProductSchema.safeParse(first);
  if (!product.success) return undefined;
  const offers = product.data.properties.offers;
  const aggregate = offers.find((offer) => offer.type.endsWith("AggregateOffer"))?.properties;
  const single = offers.filter((offer) => offer.type.endsWith("/Offer")).map((offer) => offer.properties);
  const truth: LabelledPage["truth"] = {};
  const low = aggregate?.lowPrice ?? single.map((offer) => offer.price).sort((a, b) => Number(a) - Number(b))[0];
  if (low) truth.price = [low];
  const currency = aggregate?.priceCurrency ?? single[0]?.priceCurrency;
  if (currency) truth.currency = [currency];
  if (single.some((offer) => /InStock$/.test(offer.availability ?? ""))) truth.availability = ["InStock"];
  if (product.data.properties.brand) truth.brand = [product.data.properties.brand];
  // The page is monsterpetsupplies.co.uk's (its canonical link); extruct's output does not carry the URL.
  const url = "https://www.monsterpetsupplies.co.uk/cat/cat-flea-tick/johnsons-4-fleas-cats-kittens";
  return { id: `extruct/${siteOf(url)}`, site: siteOf(url), url, truth };
}

const FrozenSchema = z.object({ made: z.string(), how: z.string(), sites: z.array(z.string()), pages: z.array(z.string()) });

/**
 * The frozen part (issue 51): the pages in bench/extract-frozen.json, whole sites that nobody reads while writing
 * rules or fitting weights — never their HTML, never their per-page misses, only the aggregate figures. Everything
 * else is the working part that rules and weights come from.
 */
export function splitFrozen(pages: LabelledPage[]): { working: LabelledPage[]; frozen: LabelledPage[] } {
  const list = FrozenSchema.parse(JSON.parse(readFileSync(join(import.meta.dirname, "extract-frozen.json"), "utf8")));
  const frozen = new Set(list.pages);
  return { working: pages.filter((page) => !frozen.has(page.id)), frozen: pages.filter((page) => frozen.has(page.id)) };
}

export function readLabelledPage(page: LabelledPage): string {
  return decodePage(new Uint8Array(readFileSync(page.path)));
}

// ---- extraction-strings ----

const PriceStringSchema = z.object({
  set: z.string(),
  price_raw: z.string().nullable(),
  currency_raw: z.string().nullable(),
  amount: z.string().nullable(),
  currency: z.string().nullable(),
});
export type PriceString = z.infer<typeof PriceStringSchema>;

/**
 * The upstream lists the price parser was developed on; every other list is unseen. The two `xfail`
 * lists (strings upstream's own parser gets wrong) are reported apart.
 */
export const PRICE_DEV_SETS = new Set(["examples", "examples_2", "examples_new", "examples_bugs_caught", "decimal_separator_examples"]);

export function loadPriceStrings(): PriceString[] {
  const path = join(SHARED, "extraction-strings/price-parser/price-strings.ndjson");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => PriceStringSchema.parse(JSON.parse(line)));
}

const BrandValuesSchema = z.array(z.object({ html: z.string(), value: z.string().nullable() }));

/** Brand elements; the even-numbered ones are the development half, the odd-numbered ones unseen. */
export function loadBrandValues(): z.infer<typeof BrandValuesSchema> {
  const path = join(SHARED, "extraction-strings/zyte-parsers/brand-values.json");
  return existsSync(path) ? BrandValuesSchema.parse(JSON.parse(readFileSync(path, "utf8"))) : [];
}

const GtinCaseSchema = z.object({ set: z.string(), input: z.string(), expected: z.string().nullable() });

export function loadGtinCases(): z.infer<typeof GtinCaseSchema>[] {
  const path = join(SHARED, "extraction-strings/zyte-parsers/gtin-cases.ndjson");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => GtinCaseSchema.parse(JSON.parse(line)));
}
