/**
 * Embedded page-state layer: the JSON a page's framework ships to the
 * browser (`__NEXT_DATA__`, `__NUXT__`, `__INITIAL_STATE__`,
 * `__PRELOADED_STATE__`, `__APOLLO_STATE__`, Shopify's product JSON and
 * `ShopifyAnalytics.meta`). The state is searched, breadth first, for the
 * object that looks most like a product; its fields are read through the
 * key names such stores commonly use.
 */
import type { Budget } from "./budget.js";
import { asArray, type Candidate, cleanGtin, cleanIdentifier, isObject, type JsonObject, str } from "./candidate.js";
import { fold, type Page, rawText } from "./dom.js";
import { type Json, parseLenientJson, valueAfter } from "./lenient-json.js";
import { normaliseAvailability, parseStatedAmount, toCurrencyCode } from "./price.js";
import { categoryFromCrumbs } from "./category.js";
import { categorySegments, stripUndefined } from "./schema-org.js";
import { htmlToText } from "./text.js";

interface StateSource {
  kind: "next" | "nuxt" | "initial" | "preloaded" | "apollo" | "shopify-product" | "shopify-meta" | "json";
  value: Json;
}

const MARKERS: [string, StateSource["kind"]][] = [
  ["__NEXT_DATA__", "next"],
  ["__NUXT__", "nuxt"],
  ["__INITIAL_STATE__", "initial"],
  ["__PRELOADED_STATE__", "preloaded"],
  ["__APOLLO_STATE__", "apollo"],
];

export function stateSources(page: Page): { sources: StateSource[]; shopifyCurrency?: string } {
  const sources: StateSource[] = [];
  let shopifyCurrency: string | undefined;
  for (const script of page.byTag("script")) {
    const type = (script.attribs.type ?? "").toLowerCase();
    if (type.includes("ld+json")) continue;
    const id = script.attribs.id ?? "";
    const text = rawText(script);
    if (text.length < 2) continue;
    if (type.includes("json")) {
      if (id === "__NEXT_DATA__" || id === "__NUXT_DATA__") {
        const value = parseLenientJson(text, page.budget);
        if (value !== undefined) sources.push({ kind: id === "__NEXT_DATA__" ? "next" : "nuxt", value });
      } else if (/^ProductJson/i.test(id) || script.attribs["data-product-json"] !== undefined || /product-json|product_json/i.test(id)) {
        const value = parseLenientJson(text, page.budget);
        if (value !== undefined) sources.push({ kind: "shopify-product", value });
      } else if (text.length < 3_000_000 && /"(?:sku|price|offers)"/.test(text)) {
        const value = parseLenientJson(text, page.budget);
        if (value !== undefined) sources.push({ kind: "json", value });
      }
      continue;
    }
    if (type !== "" && !type.includes("javascript") && !type.includes("ecmascript") && type !== "module") continue;
    for (const [marker, kind] of MARKERS) {
      if (!text.includes(marker)) continue;
      const value = valueAfter(text, marker, page.budget);
      if (value !== undefined) sources.push({ kind, value });
    }
    if (text.includes("ShopifyAnalytics") && text.includes("meta")) {
      const value = valueAfter(text, "var meta", page.budget) ?? valueAfter(text, "ShopifyAnalytics.meta", page.budget);
      if (isObject(value)) sources.push({ kind: "shopify-meta", value });
    }
    const analyticsCurrency = /ShopifyAnalytics\.meta\.currency\s*=\s*["']([A-Za-z]{3})["']/.exec(text);
    if (analyticsCurrency) shopifyCurrency ??= toCurrencyCode(analyticsCurrency[1]) ?? undefined;
    if (text.includes("Shopify.currency")) {
      const currency = valueAfter(text, "Shopify.currency", page.budget);
      if (isObject(currency)) shopifyCurrency = toCurrencyCode(str(currency.active)) ?? undefined;
    }
  }
  return shopifyCurrency ? { sources, shopifyCurrency } : { sources };
}

const NAME_KEYS = ["name", "title", "productName", "displayName", "product_name", "productTitle"];
const PRICE_KEYS = [
  "price",
  "salePrice",
  "currentPrice",
  "finalPrice",
  "sellingPrice",
  "priceValue",
  "offerPrice",
  "price_min",
  "minPrice",
  "priceAmount",
];
const WAS_KEYS = ["compare_at_price", "compareAtPrice", "listPrice", "originalPrice", "regularPrice", "wasPrice", "oldPrice", "rrp", "msrp"];
const SKU_KEYS = ["sku", "SKU", "skuId", "productSku", "itemNumber", "articleNumber", "sku_id", "skuCode"];
const GTIN_KEYS = ["gtin", "gtin13", "gtin12", "gtin14", "ean", "ean13", "upc", "barcode", "isbn"];
const MPN_KEYS = ["mpn", "manufacturerPartNumber", "mfrPartNumber", "partNumber"];
const BRAND_KEYS = ["brand", "vendor", "brandName", "manufacturer", "brand_name"];
const CURRENCY_KEYS = ["currency", "currencyCode", "priceCurrency", "currency_code"];
const IMAGE_KEYS = ["images", "image", "featured_image", "imageUrl", "mainImage", "media", "imageUrls"];
const DESC_KEYS = ["description", "body_html", "descriptionHtml", "shortDescription", "longDescription"];

function firstKey(node: JsonObject, keys: string[]): Json | undefined {
  for (const key of keys) if (node[key] !== undefined && node[key] !== null && node[key] !== "") return node[key];
  return undefined;
}

function productScore(node: JsonObject, knownName: string | undefined): number {
  let score = 0;
  const name = str(firstKey(node, NAME_KEYS));
  if (name && name.length < 400) score += 2;
  if (knownName && name && fold(name).toLowerCase() === fold(knownName).toLowerCase()) score += 4;
  const price = firstKey(node, PRICE_KEYS);
  if (price !== undefined && (typeof price === "number" || typeof price === "string" || isObject(price))) score += 2;
  if (firstKey(node, SKU_KEYS) !== undefined) score += 1;
  if (firstKey(node, GTIN_KEYS) !== undefined || firstKey(node, MPN_KEYS) !== undefined) score += 1;
  if (firstKey(node, BRAND_KEYS) !== undefined) score += 1;
  if (firstKey(node, IMAGE_KEYS) !== undefined) score += 1;
  if (firstKey(node, DESC_KEYS) !== undefined) score += 0.5;
  if (Array.isArray(node.variants)) score += 1;
  const typename = str(node.__typename) ?? str(node["@type"]) ?? str(node.type);
  if (typename && /product/i.test(typename)) score += 1;
  return score;
}

function findProduct(root: Json, knownName: string | undefined, budget: Budget): JsonObject | undefined {
  let best: { node: JsonObject; score: number } | undefined;
  const queue: Json[] = [root];
  // An index, not shift(): shifting a queue of many thousand nodes made the walk quadratic.
  for (let next = 0; next < queue.length && next < 100_000; next++) {
    const node = queue[next]!;
    budget.tick();
    if (Array.isArray(node)) {
      for (const item of node.slice(0, 500)) if (typeof item === "object" && item !== null) queue.push(item);
      continue;
    }
    if (!isObject(node)) continue;
    const score = productScore(node, knownName);
    if (score >= 4 && (!best || score > best.score)) best = { node, score };
    for (const value of Object.values(node)) if (typeof value === "object" && value !== null) queue.push(value);
  }
  return best?.node;
}

function amount(value: Json | undefined, cents: boolean, currency?: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) {
    return amount(
      firstKey(value, ["value", "amount", "current", "currentPrice", "price", "raw", "formatted", "formattedValue", "centAmount"]),
      cents || value.centAmount !== undefined,
      currency,
    );
  }
  if (cents && typeof value === "number" && Number.isInteger(value)) return parseStatedAmount(value / 100) ?? undefined;
  if (typeof value === "number" || typeof value === "string") return parseStatedAmount(value, currency) ?? undefined;
  return undefined;
}

function availabilityOf(node: JsonObject): string | undefined {
  for (const key of ["availability", "stockStatus", "inventoryStatus", "stock_status", "availabilityStatus", "stockState"]) {
    const value = node[key];
    const found = normaliseAvailability(
      typeof value === "string" ? value.replace(/[\s-]+/g, "_") : isObject(value) ? (str(value.status) ?? str(value.value)) : undefined,
    );
    if (found) return found;
  }
  for (const key of ["available", "availableForSale", "inStock", "isInStock", "is_in_stock", "isAvailable", "in_stock", "purchasable", "isBuyable"]) {
    if (typeof node[key] === "boolean") return node[key] ? "InStock" : "OutOfStock";
  }
  if (typeof node.soldOut === "boolean") return node.soldOut ? "OutOfStock" : "InStock";
  return undefined;
}

function images(value: Json | undefined): string[] {
  const urls: string[] = [];
  for (const item of asArray(value).slice(0, 50)) {
    const url = isObject(item) ? str(firstKey(item, ["src", "url", "originalSrc", "large", "zoom", "href"])) : str(item);
    if (url && /^(https?:)?\/\/|^\//.test(url) && !urls.includes(url)) urls.push(url);
  }
  return urls;
}

/** Shopify's `product_type` (`type` in its product JSON); elsewhere a `category` or a breadcrumb list of names. */
function stateCategory(node: JsonObject, shopify: boolean): string[] | undefined {
  if (shopify) return categorySegments(node.product_type ?? node.type);
  const trail = asArray(node.breadcrumbs ?? node.breadcrumb).map((item) =>
    isObject(item) ? (str(item.name) ?? str(item.label) ?? "") : (str(item) ?? ""),
  );
  if (trail.length > 1 && trail.every((name) => name !== "")) return categoryFromCrumbs(trail.map((name) => ({ name })));
  return categorySegments(node.category ?? node.categoryPath ?? node.primaryCategory);
}

function fromStateProduct(node: JsonObject, shopify: boolean, fallbackCurrency: string | undefined, pageUrl: string | undefined): Candidate {
  const cents = shopify;
  const variants = asArray(node.variants).filter(isObject);
  // The variant the URL selects (`?variant=ID`), else the first (the page's default selection).
  const selected = pageUrl ? /[?&]variant=(\w+)/.exec(pageUrl)?.[1] : undefined;
  const variant = variants.find((item) => selected !== undefined && String(item.id) === selected) ?? variants[0];
  const currencyRaw = str(firstKey(node, CURRENCY_KEYS)) ?? (isObject(node.price) ? str(firstKey(node.price, CURRENCY_KEYS)) : undefined);
  const currency = toCurrencyCode(currencyRaw) ?? fallbackCurrency;
  let price = amount(firstKey(node, PRICE_KEYS), cents, currency);
  if (price === undefined && variant) price = amount(firstKey(variant, PRICE_KEYS), cents, currency);
  let was = amount(firstKey(node, WAS_KEYS), cents, currency) ?? (variant ? amount(firstKey(variant, WAS_KEYS), cents, currency) : undefined);
  if (was && price && Number(was) <= Number(price)) was = undefined;
  const variantPrices = variants
    .map((item) => amount(firstKey(item, PRICE_KEYS), cents, currency))
    .filter((value): value is string => value !== undefined);
  const sorted = [...variantPrices].sort((a, b) => Number(a) - Number(b));
  const low = sorted.length > 1 && sorted[0] !== sorted[sorted.length - 1] ? sorted[0] : undefined;
  const high = low ? sorted[sorted.length - 1] : undefined;
  const brandValue = firstKey(node, BRAND_KEYS);
  const brand = isObject(brandValue) ? str(brandValue.name) : str(brandValue);
  const descValue = str(firstKey(node, DESC_KEYS));
  const availability =
    availabilityOf(node) ??
    (variants.length > 0 ? (variants.some((item) => availabilityOf(item) === "InStock") ? "InStock" : availabilityOf(variants[0]!)) : undefined);
  const pick = (keys: string[]) => str(firstKey(node, keys)) ?? (variant ? str(firstKey(variant, keys)) : undefined);
  return stripUndefined({
    layer: "page_state" as const,
    name: str(firstKey(node, NAME_KEYS)),
    desc: descValue ? htmlToText(descValue) : undefined,
    images: images(firstKey(node, IMAGE_KEYS)),
    brands: brand ? [brand] : undefined,
    price,
    currency,
    low,
    high,
    was,
    availability,
    sku: cleanIdentifier(pick(SKU_KEYS)),
    gtin: cleanGtin(pick(GTIN_KEYS)),
    mpn: cleanIdentifier(pick(MPN_KEYS)),
    category: stateCategory(node, shopify),
    raw: node,
  });
}

export function pageStateLayer(page: Page, knownName?: string, pageUrl?: string): Candidate | undefined {
  const { sources, shopifyCurrency } = stateSources(page);
  if (sources.length === 0) return undefined;
  // Shopify's own product JSON is the most specific; then the analytics meta; then framework state.
  const order: StateSource["kind"][] = ["shopify-product", "shopify-meta", "next", "nuxt", "apollo", "initial", "preloaded", "json"];
  sources.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  for (const source of sources) {
    const shopify = source.kind.startsWith("shopify");
    const root = source.kind === "shopify-meta" && isObject(source.value) && isObject(source.value.product) ? source.value.product : source.value;
    const product =
      shopify && isObject(root) && (root.variants !== undefined || root.title !== undefined) ? root : findProduct(root, knownName, page.budget);
    if (!product) continue;
    const candidate = fromStateProduct(product, shopify, shopifyCurrency, pageUrl);
    if (candidate.images?.length === 0) delete candidate.images;
    return candidate;
  }
  return undefined;
}
