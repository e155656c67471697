/**
 * Product records from saved product detail pages (PDPs).
 *
 * Each layer reads what it can (most reliable first: JSON-LD, microdata,
 * RDFa, Open Graph, embedded page state, visible HTML); every field of the
 * record is taken from the most trustworthy layer that has it, and the record's
 * `provenance` says which layer (and rule) that was and how sure it is (see
 * confidence.ts, docs/extraction.md). Prices travel as a unit: amount, range
 * and sale price come from one layer, the currency from that layer or the next
 * that states one.
 *
 * Expected outcomes (no URL, no name) are values, never exceptions.
 */
import type { Identifiers, Media, Offers, Provenance, RawData } from "../../../shared/schemas/index.js";
import { parseHttpUrl } from "../../../shared/url.js";
import { CATEGORY_SEPARATOR } from "../../catalog/structured.js";
import { cleanStrings, nestedDeeperThan } from "../sanitize.js";
import { type BudgetClock, OverBudgetError, pageBudget } from "./budget.js";
import { type Candidate, type Field, type How, LAYER_ORDER, type LayerName } from "./candidate.js";
import { withoutProduct } from "./category.js";
import { confidenceOf } from "./confidence.js";
import { type Page, parsePage } from "./dom.js";
import { type Evidence, type WeighedPrice, weighAvailability, weighPrice } from "./evidence.js";
import { jsonLdLayer } from "./jsonld.js";
import { type PageLocale, pageLocale } from "./locale.js";
import type { Json } from "./lenient-json.js";
import { microdataLayer } from "./microdata.js";
import { metaTags, openGraphLayer } from "./opengraph.js";
import { pageStateLayer } from "./page-state.js";
import { compareAmounts, isBuyable, priceLabel } from "./price.js";
import { rdfaLayer } from "./rdfa.js";
import { ALL_RULES, type RuleSet } from "./rules.js";
import { stripHtml } from "./strip.js";
import { htmlToText } from "./text.js";
import { identifierInUrl, visibleLayer } from "./visible.js";

export { readPage, decodePage } from "./charset.js";

export interface ExtractOptions {
  /** URL given by the operator (`--url` / sidecar), used when the page states none. */
  url?: string;
  /** Which heuristic rules apply; all of them unless the benchmark's cross-validation says otherwise. */
  rules?: RuleSet;
  /** Also return, per field, what every layer said (`catalog extract --explain`). */
  explain?: boolean;
  /** EXTRACT_BUDGET_MS: the time this page may take, parse included; unbounded when absent. */
  budgetMs?: number;
  /** What the budget counts: CPU time (the default), or wall time where the event loop is held (live lookup). */
  budgetClock?: BudgetClock;
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
  category?: string;
  provenance: Provenance;
}

/** Per field: the value chosen, its provenance, what each layer stated, and for weighed fields the evidence. */
export type ExplainedRecord = Partial<
  Record<
    Field,
    {
      value: string;
      source: LayerName;
      confidence: number;
      rule?: How;
      layers: Partial<Record<LayerName, string>>;
      /** Availability: each signal the page gave, with its fitted weight. */
      evidence?: Evidence[];
      /** Price: every candidate amount, its probability and the signals behind it. */
      candidates?: WeighedPrice["candidates"];
      /** Price: the page's locale, which decided the shown price's reading. */
      locale?: PageLocale;
    }
  >
>;

export type ExtractResult = { ok: true; record: ExtractedRecord; explained?: ExplainedRecord } | { ok: false; error: string };

const MAX_MEDIA = 50;

export function extractProduct(html: string, options: ExtractOptions = {}): ExtractResult {
  try {
    return extractFromPage(parsePage(html, pageBudget(options.budgetMs ?? Number.POSITIVE_INFINITY, options.budgetClock)), options);
  } catch (error) {
    return failed(error);
  }
}

/** The same from an already parsed page, within what is left of the page's budget (the benchmark extracts one page under many rule sets). */
export function extractFromPage(page: Page, options: ExtractOptions = {}): ExtractResult {
  try {
    return extract(page, options);
  } catch (error) {
    return failed(error);
  }
}

function failed(error: unknown): ExtractResult {
  // Over budget is the page's doing, said as it is; anything else is a fault met on this page.
  if (error instanceof OverBudgetError) return { ok: false, error: error.message };
  return { ok: false, error: `extraction failed: ${(error as Error).message}` };
}

/** The layers' findings, most reliable first. */
export function extractLayers(page: Page, options: ExtractOptions = {}): { layers: Candidate[]; urls: PageUrls; locale: PageLocale } {
  const rules = options.rules ?? ALL_RULES;
  const tags = metaTags(page);
  const urls = pageUrls(page, tags);
  const hint = urls.canonical ?? urls.og ?? options.url;
  const layers: Candidate[] = [];
  const push = (candidate: Candidate | undefined) => candidate && layers.push(candidate);
  const { budget } = page;
  push(jsonLdLayer(page, hint, rules));
  budget.check();
  push(microdataLayer(page, hint, rules));
  budget.check();
  push(rdfaLayer(page, hint, rules));
  push(openGraphLayer(page, tags));
  budget.check();
  const knownName = layers.find((layer) => layer.name)?.name;
  if (rules.on("page_state")) push(pageStateLayer(page, knownName, hint));
  budget.check();
  const lang = page.byTag("html")[0]?.attribs.lang;
  const locale = pageLocale(lang, hint, layers.find((layer) => layer.currency && !layer.currencies)?.currency);
  push(visibleLayer(page, rules, locale.decimal));
  budget.check();
  layers.sort((a, b) => LAYER_ORDER.indexOf(a.layer) - LAYER_ORDER.indexOf(b.layer));
  return { layers, urls, locale };
}

/** A field's value, the layer that stated it, and the rule within that layer (if any). */
interface Chosen<T> {
  value: T;
  layer: LayerName;
  rule?: How | undefined;
}

function extract(page: Page, options: ExtractOptions): ExtractResult {
  const rules = options.rules ?? ALL_RULES;
  const { layers, urls, locale } = extractLayers(page, options);
  const jsonLdUrl = layers.find((layer) => layer.layer === "ld_json")?.url;
  const url = resolvePageUrl([urls.canonical, urls.og, jsonLdUrl], options.url);
  if ("error" in url) return { ok: false, error: url.error };

  const first = <K extends keyof Candidate>(key: K, field?: Field): Chosen<NonNullable<Candidate[K]>> | undefined => {
    const layer = layers.find((candidate) => candidate[key] !== undefined && candidate[key] !== "");
    // The find above checked that the member is present.
    return layer ? { value: layer[key] as NonNullable<Candidate[K]>, layer: layer.layer, rule: field && layer.how?.[field] } : undefined;
  };

  const rawName = first("name", "name");
  const name = rawName ? htmlToText(rawName.value).slice(0, 1000) : "";
  if (name === "") return { ok: false, error: "no product name: the page has no JSON-LD/microdata/Open Graph name, h1 or title" };

  const weighedPrice = weighPrice(layers);
  const priced = weighedPrice?.chosen;
  const currency = chooseCurrency(layers, priced);
  const price = priced?.price ?? null;
  const was = priced?.was ?? null;
  const weighedStock = weighAvailability(layers);
  const availability: Chosen<string> | undefined = weighedStock && {
    value: weighedStock.value,
    layer: weighedStock.layer,
    rule: weighedStock.markupStands ? layers.find((layer) => layer.layer === weighedStock.layer)?.how?.availability : "weighed_evidence",
  };

  // The site's own name (og:site_name) is never taken for the brand: on the labelled pages it named a
  // retailer (eBay, craigslist, Leroy Merlin) whenever the page stated no brand of its own.
  const brands = first("brands", "brand");
  const desc = htmlToText(first("desc")?.value ?? "").slice(0, 100_000);
  const categoryFound = first("category", "category");
  const categorySegments = withoutProduct(categoryFound?.value, name);

  const sku = chooseSku(layers, url.url, rules);
  const gtin = first("gtin", "gtin");
  const statedMpn = chooseMpn(layers);
  // An "MPN" equal to the SKU is the shop's SKU copied into the field, not a manufacturer's number.
  const mpn = statedMpn && sku && statedMpn.value === sku.value && rules.on("mpn.not_the_sku") ? undefined : statedMpn;

  const cleanBrandList = cleanBrands(brands?.value ?? []);
  const record: ExtractedRecord = {
    url: url.url,
    name,
    desc,
    media: collectMedia(layers, url.url),
    brands: cleanBrandList,
    price_label: priceLabel({ price, currency: currency?.value ?? null, low: priced?.low ?? null, high: priced?.high ?? null, was }),
    raw_data: {
      strippedHtml: stripHtml(page),
      jsons: { ld_json: rawJson(layers, "ld_json"), props_data: rawJson(layers, "page_state") },
    },
    provenance: {},
  };
  if (price !== null || currency || availability) {
    record.offers = { price, currency: currency?.value ?? null, availability: availability?.value ?? null };
    if (was !== null) record.offers.was_price = was;
  }
  if (sku || gtin || mpn) record.identifiers = { sku: sku?.value ?? null, gtin: gtin?.value ?? null, mpn: mpn?.value ?? null };
  if (categorySegments) record.category = categorySegments.join(CATEGORY_SEPARATOR);

  // Provenance: what each field's layer was, and how sure the extractor is of it.
  const explained: ExplainedRecord = {};
  const note = (
    field: Field,
    chosen: Chosen<unknown> | undefined,
    shown: string | undefined,
    stated: (layer: Candidate) => string | undefined,
    same: Same,
    weighed?: { confidence: number; evidence?: Evidence[]; candidates?: WeighedPrice["candidates"]; locale?: PageLocale },
  ) => {
    if (!chosen || shown === undefined) return;
    const others = layers.filter((layer) => layer.layer !== chosen.layer).map(stated);
    const agreeing = others.filter((value) => value !== undefined && same(value, shown)).length;
    const disagreeing = others.filter((value) => value !== undefined && !same(value, shown)).length;
    // A weighed field's confidence is its fitted model's probability; the others' come from the layers' priors.
    const confidence = weighed?.confidence ?? confidenceOf(chosen.layer, chosen.rule, agreeing, disagreeing);
    const provenance = { source: chosen.layer, confidence, ...(chosen.rule ? { rule: chosen.rule } : {}) };
    record.provenance[field] = provenance;
    if (options.explain) {
      const perLayer: Partial<Record<LayerName, string>> = {};
      for (const layer of layers) {
        const value = stated(layer);
        if (value !== undefined) perLayer[layer.layer] = value;
      }
      const { confidence: _, ...why } = weighed ?? {};
      explained[field] = { value: shown, ...provenance, layers: perLayer, ...why };
    }
  };
  const exact: Same = (a, b) => a === b;
  const amount: Same = (a, b) => compareAmounts(a, b) === 0;
  const folded: Same = (a, b) => a.trim().toLowerCase() === b.trim().toLowerCase();
  const buyable: Same = (a, b) => isBuyable(a) === isBuyable(b);
  note("name", rawName, name, (layer) => layer.name, folded);
  note("brand", brands, cleanBrandList[0], (layer) => layer.brands?.[0], folded);
  note("category", categoryFound, record.category, (layer) => layer.category?.join(CATEGORY_SEPARATOR), folded);
  note(
    "price",
    priced && { value: price, layer: priced.layer, rule: priced.how?.price },
    price ?? undefined,
    (layer) => layer.price,
    amount,
    weighedPrice && { confidence: weighedPrice.confidence, candidates: weighedPrice.candidates, locale },
  );
  note("currency", currency, currency?.value, (layer) => layer.currency, exact);
  note("was_price", priced && { value: was, layer: priced.layer, rule: priced.how?.was_price }, was ?? undefined, (layer) => layer.was, amount);
  note(
    "availability",
    availability,
    availability?.value,
    (layer) => layer.availability,
    buyable,
    weighedStock && { confidence: weighedStock.confidence, evidence: weighedStock.evidence },
  );
  note("sku", sku, sku?.value, (layer) => layer.sku, exact);
  note("gtin", gtin, gtin?.value, (layer) => layer.gtin, exact);
  note("mpn", mpn, mpn?.value, (layer) => layer.mpn, exact);

  const clean = cleanStrings(record);
  return options.explain ? { ok: true, record: clean, explained } : { ok: true, record: clean };
}

type Same = (a: string, b: string) => boolean;

/** A layer's raw JSON for raw_data, unless it nests deeper than can be stored (references resolved inline can deepen it). */
function rawJson(layers: Candidate[], name: LayerName): Json {
  const raw = layers.find((layer) => layer.layer === name)?.raw;
  return raw === undefined || nestedDeeperThan(raw) ? null : raw;
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
 * The priced layer's currency, or the first layer's that states one. A
 * currency read from a symbol several share (`$`) gives way to a code another
 * layer states among those it may be (`CAD`); alone, it stays (USD for `$`),
 * flagged as such.
 */
function chooseCurrency(layers: Candidate[], priced: Candidate | undefined): Chosen<string> | undefined {
  const source = priced?.currency ? priced : layers.find((layer) => layer.currency);
  if (!source?.currency) return undefined;
  if (source.currencies) {
    const named = layers.find((layer) => layer.currency && !layer.currencies && source.currencies?.includes(layer.currency));
    if (named?.currency) return { value: named.currency, layer: named.layer, rule: named.how?.currency };
    return { value: source.currency, layer: source.layer, rule: "shared_symbol" };
  }
  return { value: source.currency, layer: source.layer, rule: source.how?.currency };
}

/**
 * A SKU the page labels for shoppers ("Product code: …") beats one only the
 * markup states (markup SKUs are often internal variant ids); a "SKU" with
 * spaces is a model name or a phrase, not an identifier; the id in the page's
 * URL is the last resort.
 */
function chooseSku(layers: Candidate[], pageUrl: string, rules: RuleSet): Chosen<string> | undefined {
  const visible = layers.find((layer) => layer.layer === "visible");
  const ordered = rules.on("sku.label_beats_markup") && visible ? [visible, ...layers.filter((layer) => layer !== visible)] : layers;
  const found = ordered.find((layer) => layer.sku && !/\s/.test(layer.sku));
  if (found?.sku) return { value: found.sku, layer: found.layer, rule: found.how?.sku };
  const inUrl = rules.on("sku.from_url") ? identifierInUrl(pageUrl) : undefined;
  return inUrl ? { value: inUrl, layer: "visible", rule: "sku.from_url" } : undefined;
}

/** A labelled MPN on the page beats the markup's. */
function chooseMpn(layers: Candidate[]): Chosen<string> | undefined {
  const visible = layers.find((layer) => layer.layer === "visible" && layer.mpn);
  const found = visible ?? layers.find((layer) => layer.mpn);
  return found?.mpn ? { value: found.mpn, layer: found.layer, rule: found.how?.mpn } : undefined;
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
