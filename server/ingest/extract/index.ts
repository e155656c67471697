/**
 * Product records from saved product detail pages (PDPs).
 *
 * Each layer reads what it can (most reliable first: JSON-LD, microdata,
 * RDFa, Open Graph, embedded page state, visible HTML); every field of the
 * record is taken from the most trustworthy layer that has it. Prices travel
 * as a unit: amount, range and sale price come from one layer, the currency
 * from that layer or the next that states one.
 *
 * Expected outcomes (no URL, no name) are values, never exceptions.
 */
import type { Identifiers, Media, Offers, RawData } from "../../../shared/schemas/index.js";
import { parseHttpUrl } from "../../../shared/url.js";
import { type Candidate, LAYER_ORDER } from "./candidate.js";
import { type Page, parsePage } from "./dom.js";
import { jsonLdLayer } from "./jsonld.js";
import { microdataLayer } from "./microdata.js";
import { metaTags, openGraphLayer } from "./opengraph.js";
import { pageStateLayer } from "./page-state.js";
import { isBuyable, priceLabel } from "./price.js";
import { rdfaLayer } from "./rdfa.js";
import { stripHtml } from "./strip.js";
import { htmlToText } from "./text.js";
import { identifierInUrl, visibleLayer } from "./visible.js";

export { readPage, decodePage } from "./charset.js";

export interface ExtractOptions {
  /** URL given by the operator (`--url` / sidecar), used when the page states none. */
  url?: string;
}

/** Assignable to `z.input<typeof ImportRecordSchema>` (checked in the tests). */
export interface ExtractedRecord {
  url: string;
  name: string;
  desc: string;
  media: Media[];
  brands: string[];
  price_label: string;
  raw_data: RawData;
  offers?: Offers;
  identifiers?: Identifiers;
}

export type ExtractResult = { ok: true; record: ExtractedRecord } | { ok: false; error: string };

const MAX_MEDIA = 50;

export function extractProduct(html: string, options: ExtractOptions = {}): ExtractResult {
  try {
    return extract(html, options);
  } catch (error) {
    return { ok: false, error: `extraction failed: ${(error as Error).message}` };
  }
}

/** The layers' findings, most reliable first (exported for the benchmark's and tests' inspection). */
export function extractLayers(html: string, options: ExtractOptions = {}): { page: Page; layers: Candidate[]; siteName?: string; urls: PageUrls } {
  const page = parsePage(html);
  const tags = metaTags(page);
  const urls = pageUrls(page, tags);
  const hint = urls.canonical ?? urls.og ?? options.url;
  const layers: Candidate[] = [];
  const push = (candidate: Candidate | undefined) => candidate && layers.push(candidate);
  push(jsonLdLayer(page, hint));
  push(microdataLayer(page, hint));
  push(rdfaLayer(page, hint));
  push(openGraphLayer(page, tags));
  const knownName = layers.find((layer) => layer.name)?.name;
  push(pageStateLayer(page, knownName, hint));
  push(visibleLayer(page));
  layers.sort((a, b) => LAYER_ORDER.indexOf(a.layer) - LAYER_ORDER.indexOf(b.layer));
  const siteName = tags.get("og:site_name")?.[0] ?? tags.get("application-name")?.[0];
  return siteName ? { page, layers, siteName, urls } : { page, layers, urls };
}

function extract(html: string, options: ExtractOptions): ExtractResult {
  const { page, layers, siteName, urls } = extractLayers(html, options);
  const jsonLdUrl = layers.find((layer) => layer.layer === "jsonld")?.url;
  const url = resolvePageUrl([urls.canonical, urls.og, jsonLdUrl], options.url);
  if ("error" in url) return { ok: false, error: url.error };

  const first = <K extends keyof Candidate>(key: K): Candidate[K] | undefined =>
    layers.find((layer) => layer[key] !== undefined && layer[key] !== "")?.[key];

  const rawName = first("name");
  const name = rawName ? htmlToText(rawName).slice(0, 1000) : "";
  if (name === "") return { ok: false, error: "no product name: the page has no JSON-LD/microdata/Open Graph name, h1 or title" };

  const priced = choosePriceLayer(layers);
  const currency = priced?.currency ?? layers.find((layer) => layer.currency)?.currency ?? null;
  const price = priced?.price ?? null;
  const availability = chooseAvailability(layers);

  const brands = first("brands") ?? (siteName ? [siteName] : []);
  const desc = htmlToText(first("desc") ?? "").slice(0, 100_000);

  const record: ExtractedRecord = {
    url: url.url,
    name,
    desc,
    media: collectMedia(layers, url.url),
    brands: cleanBrands(brands),
    price_label: priceLabel({ price, currency, low: priced?.low ?? null, high: priced?.high ?? null, was: priced?.was ?? null }),
    raw_data: {
      strippedHtml: stripHtml(page),
      jsons: {
        ld_json: layers.find((layer) => layer.layer === "jsonld")?.raw ?? null,
        props_data: layers.find((layer) => layer.layer === "page-state")?.raw ?? null,
      },
    },
  };
  if (price !== null || currency !== null || availability !== null) record.offers = { price, currency, availability };
  // A SKU the page labels for shoppers ("Product code: …") beats one only the markup states (markup
  // SKUs are often internal variant ids); a "SKU" with spaces is a model name or a phrase, not an
  // identifier; the id in the page's URL is the last resort.
  const skus = [layers.find((layer) => layer.layer === "visible")?.sku, ...layers.map((layer) => layer.sku)].filter(
    (value): value is string => !!value && !/\s/.test(value),
  );
  const sku = skus[0] ?? identifierInUrl(url.url) ?? null;
  const gtin = first("gtin") ?? null;
  const statedMpn = layers.find((layer) => layer.layer === "visible")?.mpn ?? first("mpn") ?? null;
  // An "MPN" equal to the SKU is the shop's SKU copied into the field, not a manufacturer's number.
  const mpn = statedMpn !== null && statedMpn === sku ? null : statedMpn;
  if (sku !== null || gtin !== null || mpn !== null) record.identifiers = { sku, gtin, mpn };
  return { ok: true, record };
}

export interface PageUrls {
  canonical?: string;
  og?: string;
}

function pageUrls(page: Page, tags: Map<string, string[]>): PageUrls {
  const urls: PageUrls = {};
  const canonical = page
    .byTag("link")
    .find((link) => (link.attribs.rel ?? "").toLowerCase().split(/\s+/).includes("canonical"))
    ?.attribs.href?.trim();
  if (canonical) urls.canonical = canonical;
  const og = tags.get("og:url")?.[0];
  if (og) urls.og = og;
  return urls;
}

/** The first stated URL, made absolute against the first absolute one (or the operator's). */
export function resolvePageUrl(stated: (string | undefined)[], given: string | undefined): { url: string } | { error: string } {
  const present = stated.filter((value): value is string => typeof value === "string" && value.trim() !== "").map((value) => value.trim());
  const absolute = present.find((value) => parseHttpUrl(value) !== null);
  const operator = given && parseHttpUrl(given) ? given : undefined;
  const base = absolute ?? operator;
  for (const value of present) {
    if (!base) break;
    const resolved = absoluteUrl(value, base);
    if (resolved) return { url: resolved };
  }
  if (operator) return { url: operator };
  if (given) return { error: `no URL: the page states none and the given URL ${JSON.stringify(given)} is not an absolute http(s) URL` };
  if (present.length > 0) return { error: `no URL: the page states only relative URLs (${present[0]}); give the page's URL with --url or a sidecar` };
  return { error: "no URL: the page has no canonical link, og:url or JSON-LD url; give the page's URL with --url or a sidecar" };
}

function absoluteUrl(value: string, base: string): string | undefined {
  try {
    const url = new URL(value, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function collectMedia(layers: Candidate[], pageUrl: string): Media[] {
  const media: Media[] = [];
  const seen = new Set<string>();
  const add = (raw: string, type: Media["type"]) => {
    const url = absoluteUrl(raw.startsWith("//") ? `https:${raw}` : raw, pageUrl);
    if (!url || seen.has(url) || url.length > 2048) return;
    seen.add(url);
    media.push({ url, type });
  };
  const structured = layers.filter((layer) => layer.layer !== "visible");
  for (const layer of structured) for (const image of layer.images ?? []) add(image, "image");
  if (media.length === 0) for (const layer of layers) for (const image of layer.images ?? []) add(image, "image");
  for (const layer of layers) for (const video of layer.videos ?? []) add(video, "video");
  return media.slice(0, MAX_MEDIA);
}

/**
 * Availability from the most trustworthy layer, except where the page itself
 * contradicts stale markup: markup saying "out of stock" loses to an enabled
 * buy button with no out-of-stock wording around it, and markup saying "in
 * stock" loses to out-of-stock wording with no enabled buy button.
 */
function chooseAvailability(layers: Candidate[]): string | null {
  const stated = layers.find((layer) => layer.availability !== undefined);
  if (!stated?.availability) return null;
  const visible = layers.find((layer) => layer.layer === "visible");
  if (stated.layer !== "visible") {
    if (!isBuyable(stated.availability) && visible?.buyButton) return "InStock";
    if (isBuyable(stated.availability) && visible?.soldOut) return "OutOfStock";
  }
  return stated.availability;
}

/**
 * The layer whose price stands: the most trustworthy one that has a price,
 * unless two other layers agree on another amount and none agrees with it
 * (markup left at the regular or starting price while the page shows
 * another is the commonest disagreement).
 */
function choosePriceLayer(layers: Candidate[]): Candidate | undefined {
  // A zero price is a placeholder, not a price.
  const priced = layers.filter((layer) => layer.price !== undefined && Number(layer.price) > 0);
  const top = priced[0];
  if (!top || priced.length < 3) return top;
  const same = (a: Candidate, b: Candidate) => Number(a.price) === Number(b.price);
  if (priced.slice(1).some((layer) => same(layer, top))) return top;
  for (let i = 1; i < priced.length; i++) {
    const layer = priced[i]!;
    if (priced.slice(i + 1).some((other) => same(other, layer))) return layer;
  }
  return top;
}

/** Brand names as text: "See more from Brand: Acme" → "Acme"; template placeholders (`$brand`, `{{brand}}`) dropped. */
function cleanBrands(brands: string[]): string[] {
  const names = brands
    .map((brand) => htmlToText(brand))
    .map((brand) => (/:\s/.test(brand) && brand.length > 25 ? brand.slice(brand.lastIndexOf(":") + 1).trim() : brand))
    .map((brand) => brand.replace(/^[\s|•·:,;–—-]+|[\s|•·:,;–—-]+$/g, ""))
    .filter((brand) => brand.length > 0 && brand.length <= 200 && !/^\$\w|\{\{|\$\{/.test(brand));
  return [...new Set(names)].slice(0, 20);
}
