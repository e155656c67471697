/**
 * A schema.org Product (from JSON-LD, microdata or RDFa, all brought to the
 * same JSON shape) read into a Candidate: offers and AggregateOffer,
 * price specifications, ProductGroup variants, brands, identifiers, media.
 */
import { asArray, type Candidate, cleanGtin, cleanIdentifier, isObject, type JsonObject, type LayerName, str } from "./candidate.js";
import type { Json } from "./lenient-json.js";
import { compareAmounts, isBuyable, normaliseAvailability, parseStatedAmount, toCurrencyCode } from "./price.js";
import { cleanSegments } from "./category.js";
import { ALL_RULES, type RuleSet } from "./rules.js";

/** schema.org types that describe a thing for sale (Product and its common subtypes). */
const PRODUCT_TYPES = new Set([
  "product",
  "productgroup",
  "productmodel",
  "individualproduct",
  "someproducts",
  "vehicle",
  "car",
  "motorcycle",
  "book",
]);

/** The schema.org type names of a node, lower-cased, without the vocabulary prefix. */
export function typesOf(node: JsonObject): string[] {
  return asArray(node["@type"])
    .filter((value): value is string => typeof value === "string")
    .map((value) => value.replace(/^.*[/#:]/, "").toLowerCase());
}

export function isProductNode(node: JsonObject): boolean {
  return typesOf(node).some((type) => PRODUCT_TYPES.has(type));
}

/** Property by name, tolerating vocabulary prefixes (`schema:price`, `http://schema.org/price`) and case. */
export function prop(node: JsonObject, name: string): Json | undefined {
  if (name in node) return node[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(node)) {
    const bare = key.replace(/^.*[/#:]/, "").toLowerCase();
    if (bare === lower) return node[key];
  }
  return undefined;
}

/** What offers say: the Candidate's price fields, plus identifiers an offer may carry. */
type OfferFacts = Pick<Candidate, "price" | "currency" | "low" | "high" | "was" | "availability" | "sku" | "gtin">;

export function productCandidate(node: JsonObject, layer: LayerName, pageUrl?: string, rules: RuleSet = ALL_RULES): Candidate {
  const candidate: Candidate = { layer };
  const variants = asArray(prop(node, "hasVariant")).filter(isObject);
  const variant = pickVariant(variants, pageUrl);

  candidate.url = str(prop(node, "url"), ["@id", "url"]);
  candidate.name = str(prop(node, "name")) ?? (variant ? str(prop(variant, "name")) : undefined);
  candidate.desc = str(prop(node, "description")) ?? (variant ? str(prop(variant, "description")) : undefined);

  const images = [...mediaUrls(prop(node, "image")), ...(variant ? mediaUrls(prop(variant, "image")) : [])];
  if (images.length) candidate.images = images;
  const videos = mediaUrls(prop(node, "video"), ["contentUrl", "embedUrl", "url"]);
  if (videos.length) candidate.videos = videos;

  const parent = asArray(prop(node, "isVariantOf")).find(isObject);
  const brands = brandNames(prop(node, "brand"));
  if (brands.length === 0 && parent) brands.push(...brandNames(prop(parent, "brand")));
  if (brands.length === 0 && variant) brands.push(...brandNames(prop(variant, "brand")));
  if (brands.length === 0) brands.push(...brandNames(prop(node, "manufacturer")));
  if (brands.length) candidate.brands = brands;

  const own = identifiers(node);
  const fromVariant = variant ? identifiers(variant) : {};
  candidate.sku = own.sku ?? fromVariant.sku ?? cleanIdentifier(str(prop(node, "productGroupID")));
  candidate.gtin = own.gtin ?? fromVariant.gtin;
  candidate.mpn = own.mpn ?? fromVariant.mpn;
  const category = categorySegments(prop(node, "category")) ?? (parent ? categorySegments(prop(parent, "category")) : undefined);
  if (category) candidate.category = category;

  // Offers: the node's own, else the chosen variant's, else all variants' (for a range).
  const ownOffers = asArray(prop(node, "offers"));
  // Microdata often puts price and availability straight on the product.
  if (ownOffers.length === 0 && (prop(node, "price") !== undefined || prop(node, "availability") !== undefined)) ownOffers.push(node);
  let offers = offerFacts(ownOffers, rules);
  if (offers.price === undefined && variant) offers = offerFacts(asArray(prop(variant, "offers")), rules);
  if (variants.length > 1) {
    const all = offerFacts(
      variants.flatMap((item) => asArray(prop(item, "offers"))),
      rules,
    );
    if (offers.price === undefined) offers = all;
    else if (all.low && all.high) {
      offers.low = all.low;
      offers.high = all.high;
    }
  }
  const { sku: offerSku, gtin: offerGtin, ...prices } = offers;
  Object.assign(candidate, prices);
  candidate.sku ??= offerSku;
  candidate.gtin ??= offerGtin;
  candidate.raw = node;
  return stripUndefined(candidate);
}

function pickVariant(variants: JsonObject[], pageUrl: string | undefined): JsonObject | undefined {
  if (variants.length === 0) return undefined;
  if (pageUrl) {
    const match = variants.find((item) => str(prop(item, "url")) === pageUrl);
    if (match) return match;
  }
  return variants[0];
}

function identifiers(node: JsonObject): { sku?: string; gtin?: string; mpn?: string } {
  const gtinValue = ["gtin13", "gtin12", "gtin14", "gtin8", "gtin", "isbn", "ean"].map((key) => cleanGtin(str(prop(node, key)))).find(Boolean);
  return stripUndefined({
    sku: cleanIdentifier(str(prop(node, "sku"))) ?? cleanIdentifier(str(prop(node, "productID"))),
    gtin: gtinValue,
    mpn: cleanIdentifier(str(prop(node, "mpn"))),
  });
}

export function brandNames(value: Json | undefined): string[] {
  const names: string[] = [];
  for (const item of asArray(value)) {
    const name = isObject(item) ? (str(prop(item, "name")) ?? str(item["@value"])) : str(item);
    if (name && !/^https?:\/\//.test(name) && name.length <= 200 && !names.includes(name)) names.push(name);
  }
  return names;
}

export function mediaUrls(value: Json | undefined, keys = ["url", "contentUrl", "contentURL", "@id", "thumbnailUrl"]): string[] {
  const urls: string[] = [];
  for (const item of asArray(value)) {
    const url = isObject(item) ? str(keys.map((key) => prop(item, key)).find((v) => str(v) !== undefined)) : str(item);
    if (url && !urls.includes(url)) urls.push(url);
  }
  return urls;
}

/** Reads Offer / AggregateOffer nodes into one set of price facts. */
export function offerFacts(offers: Json[], rules: RuleSet = ALL_RULES): OfferFacts {
  const flat: JsonObject[] = [];
  const facts: OfferFacts = {};
  for (const offer of offers) {
    if (!isObject(offer)) continue;
    if (typesOf(offer).includes("aggregateoffer")) {
      const currency = toCurrencyCode(str(prop(offer, "priceCurrency")));
      const low = parseStatedAmount(str(prop(offer, "lowPrice")) ?? null, currency);
      const high = parseStatedAmount(str(prop(offer, "highPrice")) ?? null, currency);
      const price = parseStatedAmount(str(prop(offer, "price")) ?? null, currency);
      facts.currency ??= currency ?? undefined;
      facts.low ??= low ?? price ?? undefined;
      facts.high ??= high ?? undefined;
      facts.price ??= price ?? low ?? undefined;
      facts.availability ??= normaliseAvailability(str(prop(offer, "availability"))) ?? undefined;
      flat.push(...asArray(prop(offer, "offers")).filter(isObject));
    } else if (prop(offer, "price") === undefined && prop(offer, "priceSpecification") === undefined && prop(offer, "offers") !== undefined) {
      // An Offer wrapping the real offer (seen in broken microdata): read the inner one.
      flat.push(
        ...asArray(prop(offer, "offers"))
          .filter(isObject)
          .map((inner) => ({ ...offer, ...inner })),
      );
    } else flat.push(offer);
  }

  // An offer for several units at once (a multi-buy or bundle price) is not this product's price when another offer is.
  const single = flat.filter((offer) => leastQuantity(offer) <= 1);
  const read = (single.length > 0 ? single : flat).map((offer) => {
    const currency = toCurrencyCode(str(prop(offer, "priceCurrency"))) ?? undefined;
    let price = parseStatedAmount(str(prop(offer, "price")) ?? null, currency) ?? undefined;
    let was: string | undefined;
    let specCurrency: string | undefined;
    for (const spec of asArray(prop(offer, "priceSpecification")).filter(isObject)) {
      const amount = parseStatedAmount(str(prop(spec, "price")) ?? null) ?? undefined;
      specCurrency ??= toCurrencyCode(str(prop(spec, "priceCurrency"))) ?? undefined;
      const kind = (str(prop(spec, "priceType")) ?? "").toLowerCase();
      if (/strikethrough|listprice|msrp|srp|regular/.test(kind)) was ??= amount;
      // A price per kilogram or per 100 ml (a reference quantity) is not what the product costs.
      else if (prop(spec, "referenceQuantity") === undefined) price ??= amount;
    }
    const low = parseStatedAmount(str(prop(offer, "lowPrice")) ?? null) ?? undefined;
    price ??= low;
    return {
      price,
      was,
      currency: currency ?? specCurrency,
      availability: normaliseAvailability(str(prop(offer, "availability"))) ?? undefined,
      sku: cleanIdentifier(str(prop(offer, "sku"))),
      gtin: ["gtin13", "gtin12", "gtin14", "gtin8", "gtin"].map((key) => cleanGtin(str(prop(offer, key)))).find(Boolean),
    };
  });

  const priced = read.filter((offer) => offer.price !== undefined);
  if (priced.length > 0) {
    const buyable = priced.filter((offer) => isBuyable(offer.availability ?? "InStock"));
    const pool = buyable.length > 0 && rules.on("offers.lowest_buyable") ? buyable : priced;
    const best = pool.reduce((a, b) => (compareAmounts(b.price!, a.price!) < 0 ? b : a));
    facts.price ??= best.price;
    facts.currency ??= best.currency ?? priced.find((offer) => offer.currency)?.currency;
    facts.was ??= best.was;
    const amounts = priced.map((offer) => offer.price!).sort(compareAmounts);
    if (amounts.length > 1 && compareAmounts(amounts[0]!, amounts[amounts.length - 1]!) < 0) {
      facts.low ??= amounts[0];
      facts.high ??= amounts[amounts.length - 1];
    }
  }
  facts.currency ??= read.find((offer) => offer.currency)?.currency;
  if (facts.availability === undefined) {
    const states = read.map((offer) => offer.availability).filter((value): value is string => value !== undefined);
    facts.availability = states.find((value) => isBuyable(value)) ?? states[0];
  }
  facts.sku = read.find((offer) => offer.sku)?.sku;
  facts.gtin = read.find((offer) => offer.gtin)?.gtin;
  if (facts.was && facts.price && compareAmounts(facts.was, facts.price) <= 0) delete facts.was;
  return stripUndefined(facts);
}

/** The least quantity an offer is for (schema.org `eligibleQuantity`), 1 when it states none. */
function leastQuantity(offer: JsonObject): number {
  const quantity = asArray(prop(offer, "eligibleQuantity")).find(isObject);
  const value = quantity ? Number(str(prop(quantity, "minValue")) ?? str(prop(quantity, "value")) ?? 1) : 1;
  return Number.isFinite(value) ? value : 1;
}

/**
 * A category as schema.org writes it: a path string ("Clothing > Outerwear", "Home/Kitchen") or a Thing
 * with a name; of several categories, the first. Numeric ids (Google's taxonomy numbers) are not names.
 */
export function categorySegments(value: Json | undefined): string[] | undefined {
  const first = asArray(value)
    .map((item) => (isObject(item) ? str(prop(item, "name")) : str(item)))
    .find((name): name is string => name !== undefined && !/^\d+$/.test(name));
  // Whitespace runs folded first: the separators' `\s*` retried from each space of a long run was quadratic in it.
  return first ? cleanSegments(first.replace(/\s+/g, " ").split(/\s*[>»›|]\s*|\s+\/\s+|(?<=\S)\/(?=\S)/)) : undefined;
}

export interface Crumb {
  name: string;
  url?: string;
}

/** The crumbs of a schema.org BreadcrumbList, in position order. */
export function breadcrumbs(list: JsonObject): Crumb[] {
  const items = asArray(prop(list, "itemListElement"))
    .filter(isObject)
    .map((item, index) => {
      const thing = asArray(prop(item, "item")).find(isObject);
      const name = str(prop(item, "name")) ?? (thing ? str(prop(thing, "name")) : undefined);
      const url = str(prop(item, "item"), ["@id", "url"]) ?? (thing ? str(prop(thing, "url")) : undefined) ?? str(prop(item, "url"));
      const position = Number(str(prop(item, "position")) ?? Number.NaN);
      return { name, url, order: Number.isFinite(position) ? position : index + 1 };
    })
    .filter((item): item is { name: string; url: string | undefined; order: number } => item.name !== undefined)
    .sort((a, b) => a.order - b.order);
  return items.map(({ name, url }) => (url ? { name, url } : { name }));
}

export function stripUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}
