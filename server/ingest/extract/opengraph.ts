/**
 * Open Graph layer: `og:*`, `product:*` (Facebook/Pinterest product
 * namespace) and the few `twitter:*` tags that say the same thing.
 */
import type { Candidate } from "./candidate.js";
import { cleanGtin, cleanIdentifier } from "./candidate.js";
import { fold, type Page } from "./dom.js";
import { currencyInText, normaliseAvailability, parseStatedAmount, toCurrencyCode } from "./price.js";

function currencyOfText(text: string | undefined): string | undefined {
  return text ? (currencyInText(text) ?? undefined) : undefined;
}
import { stripUndefined } from "./schema-org.js";

/** All meta tags keyed by lower-case property/name, values in order. */
export function metaTags(page: Page): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const meta of page.byTag("meta")) {
    const key = (meta.attribs.property ?? meta.attribs.name ?? "").trim().toLowerCase();
    const content = meta.attribs.content;
    if (!key || content === undefined) continue;
    const value = fold(content);
    if (value === "") continue;
    const list = tags.get(key);
    if (list) list.push(value);
    else tags.set(key, [value]);
  }
  return tags;
}

export function openGraphLayer(page: Page, tags = metaTags(page)): Candidate | undefined {
  const first = (...keys: string[]) => {
    for (const key of keys) {
      const value = tags.get(key)?.[0];
      if (value) return value;
    }
    return undefined;
  };
  const all = (...keys: string[]) => keys.flatMap((key) => tags.get(key) ?? []);

  // Twitter's product card: twitter:labelN "Price" with twitter:dataN "$955.00 USD".
  const twitterPrice = ["1", "2"]
    .map((n) => (/^price$/i.test(first(`twitter:label${n}`) ?? "") ? first(`twitter:data${n}`) : undefined))
    .find(Boolean);
  const currency =
    toCurrencyCode(first("product:price:currency", "og:price:currency", "product:sale_price:currency")) ??
    currencyOfText(first("og:price", "product:price") ?? twitterPrice) ??
    undefined;
  const regular =
    parseStatedAmount(first("product:price:amount", "og:price:amount", "product:price", "og:price") ?? twitterPrice ?? null, currency) ?? undefined;
  const sale = parseStatedAmount(first("product:sale_price:amount", "og:sale_price:amount") ?? null, currency) ?? undefined;
  const original = parseStatedAmount(first("product:original_price:amount", "og:original_price:amount") ?? null, currency) ?? undefined;
  const price = sale ?? regular;
  let was = sale && regular && regular !== sale ? regular : original;
  if (was && price && Number(was) <= Number(price)) was = undefined;

  const brand = first("product:brand", "og:brand", "brand");
  const candidate: Candidate = stripUndefined({
    layer: "opengraph" as const,
    url: first("og:url"),
    name: withoutSiteName(first("og:title", "twitter:title"), first("og:site_name")),
    desc: first("og:description", "twitter:description"),
    images: dedupe(all("og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src")),
    videos: dedupe(all("og:video:secure_url", "og:video", "og:video:url")),
    brands: brand ? [brand] : undefined,
    price,
    currency,
    was,
    availability: normaliseAvailability(first("product:availability", "og:availability")) ?? undefined,
    sku: cleanIdentifier(first("product:retailer_item_id", "product:sku", "og:sku", "product:retailer_part_no")),
    gtin: cleanGtin(first("product:ean", "product:gtin", "product:upc", "product:isbn", "og:upc", "og:ean")),
    mpn: cleanIdentifier(first("product:mfr_part_no", "og:mpn", "product:mpn")),
  });
  if (candidate.images?.length === 0) delete candidate.images;
  if (candidate.videos?.length === 0) delete candidate.videos;
  return Object.keys(candidate).length > 1 ? candidate : undefined;
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}

/** "Ceramic Pour-Over | Kiln & Co" → "Ceramic Pour-Over" when the site is called "Kiln & Co". */
function withoutSiteName(title: string | undefined, site: string | undefined): string | undefined {
  if (!title || !site) return title;
  const escaped = site.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const stripped = title.replace(new RegExp(`\\s*[|–—:-]\\s*${escaped}\\s*$|^\\s*${escaped}\\s*[|–—:-]\\s*`, "i"), "").trim();
  return stripped.length >= 2 ? stripped : title;
}
