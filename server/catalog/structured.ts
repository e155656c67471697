/**
 * What shoppers filter and sort on, derived from a record: the price in
 * integer minor units with its currency, the was-price, availability as a
 * schema.org name, the category path's key, brand keys, the GTIN-14 and the
 * SKU key. Written beside the record on import; `DERIVED_VERSION` names this
 * derivation, so rows an older one wrote are derived again (backfill.ts).
 */
import { isCurrencyCode, minorUnitExponent, toMinorUnits } from "../../shared/currency.js";
import { parseGtin } from "../../shared/gtin.js";
import { AVAILABILITIES, type Availability, type Identifiers, type Offers } from "../../shared/schemas/index.js";

/**
 * Bump when what is derived changes: every row of an older version is derived again at the next start.
 * 3: the variants' SKUs (`variant_sku_keys`, catalog/variants.ts variantSkuKeys), derived beside these.
 * 4: the attributes (kind, audience, ages, species, size, colours, materials: catalog/attributes/derive.ts).
 * 5: the product's language (`lang`, search/languages/detect.ts) and the language its text is indexed in (`search_lang`).
 * 6: the audience read from the department a page's address names ("/women/") where its name and category say none.
 * 7: Polish pages read as Polish (languages/stop-words/pl.txt), indexed and searched as such.
 * 8: Russian pages whose text only the Russian lexicon shows (a name such as "Пуховик женский чёрный") read as Russian.
 */
export const DERIVED_VERSION = 8;

/** Price bucket bounds in major units, 1-2.5-5 steps: a useful spread for cents and yen alike. */
export const PRICE_BOUNDS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000];

/** The bucket of a price: 0 below the first bound, i for [PRICE_BOUNDS[i-1], PRICE_BOUNDS[i]), the length for the open top one. */
export function priceBucket(minor: number, currency: string): number {
  const major = minor / 10 ** (minorUnitExponent(currency) ?? 2);
  const above = PRICE_BOUNDS.findIndex((bound) => major < bound);
  return above === -1 ? PRICE_BOUNDS.length : above;
}

export const CATEGORY_SEPARATOR = " > ";

export interface Structured {
  priceMinor: number | null;
  currency: string | null;
  /** See priceBucket: what the price facet counts. */
  priceBucket: number | null;
  /** The first brand as the record names it: what the brand facet counts. */
  brand: string | null;
  listPriceMinor: number | null;
  availability: Availability | null;
  categoryKey: string | null;
  brandKeys: string[];
  gtin14: string | null;
  skuKey: string | null;
  derivedVersion: number;
}

const BY_LOWER = new Map(AVAILABILITIES.map((name) => [name.toLowerCase(), name]));

/**
 * A schema.org availability in any spelling pages and feeds use (`InStock`,
 * `http://schema.org/InStock`, `instock`, `in_stock`, `In Stock`), as its name; null otherwise.
 */
export function normalizeAvailability(value: string | null | undefined): Availability | null {
  if (!value) return null;
  const bare = value
    .trim()
    .replace(/^https?:\/\/(www\.)?schema\.org\//i, "")
    .replace(/[\s_-]+/g, "")
    .toLowerCase();
  return BY_LOWER.get(bare) ?? null;
}

/** A category path as one spelling: segments trimmed, lower-cased, joined by " > ". */
export function categoryKey(path: string): string {
  return path
    .split(">")
    .map((segment) => segment.trim().replace(/\s+/g, " ").toLowerCase())
    .filter(Boolean)
    .join(CATEGORY_SEPARATOR);
}

export function brandKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}

export function deriveStructured(record: {
  offers?: Offers | null | undefined;
  identifiers?: Identifiers | null | undefined;
  category?: string | null | undefined;
  brands: readonly string[];
}): Structured {
  const offers = record.offers;
  const currency = offers?.currency?.trim().toUpperCase() ?? null;
  const known = currency !== null && isCurrencyCode(currency) ? currency : null;
  const minor = (amount: string | null | undefined) => (known && amount ? toMinorUnits(amount.trim(), known) : null);
  const priceMinor = minor(offers?.price);
  const gtin = record.identifiers?.gtin ? parseGtin(record.identifiers.gtin) : null;
  const sku = record.identifiers?.sku?.trim();
  const key = record.category ? categoryKey(record.category) : "";
  const currencyKept = priceMinor === null ? null : known;
  return {
    priceMinor,
    // A currency without a price to go with it filters nothing; kept null so the two always come together.
    currency: currencyKept,
    priceBucket: priceMinor !== null && currencyKept ? priceBucket(priceMinor, currencyKept) : null,
    brand: record.brands.map((name) => name.trim()).find(Boolean) ?? null,
    listPriceMinor: priceMinor === null ? null : minor(offers?.was_price),
    availability: normalizeAvailability(offers?.availability),
    categoryKey: key || null,
    brandKeys: [...new Set(record.brands.map(brandKey).filter(Boolean))],
    gtin14: gtin?.ok ? gtin.gtin14 : null,
    skuKey: sku ? sku.toLowerCase() : null,
    derivedVersion: DERIVED_VERSION,
  };
}
