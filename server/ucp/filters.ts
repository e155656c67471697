/**
 * The protocol's search filters as this catalog applies them: `categories`
 * and `price` (the protocol's), `brands` and `availability` (this catalog's
 * own, as the protocol allows). A price is in minor units of
 * `context.currency`, converted to the other currencies the operator's
 * exchange rates know (FX_RATES_FILE; without them prices are never
 * converted); without that currency the price filter is ignored, as the
 * protocol allows, and a message says so.
 * Filters this catalog does not know are ignored the same way.
 */
import { isCurrencyCode, minorUnitExponent } from "../../shared/currency.js";
import type { AUDIENCES, UcpContext, UcpMessage, UcpSearchFilters, UCP_AVAILABILITY_FILTERS } from "../../shared/schemas/index.js";
import { deriveAttributes } from "../catalog/attributes/derive.js";
import { RequestError } from "../errors.js";
import { attributeFilters } from "../search/attributes.js";
import { convertBounds, type ExchangeRates, type PriceBounds } from "../search/exchange-rates.js";
import { info } from "./envelope.js";
import { type DraftProduct, type DraftVariant, inCategories } from "./products.js";

export interface AppliedFilters {
  categories?: string[];
  brands?: string[];
  availability?: (typeof UCP_AVAILABILITY_FILTERS)[number][];
  /** Audiences and colours as the search parameters take them (search/attributes.ts). */
  audience?: (typeof AUDIENCES)[number][];
  colors?: string[];
  /** Bounds in minor units of `currency`, inclusive, and the same converted to the currencies the exchange rates know. */
  price?: PriceBounds & { converted?: PriceBounds[] };
}

const KNOWN = new Set(["categories", "price", "brands", "availability", "audience", "colors"]);

/** The filters this catalog applies, and a message for each one it ignores. */
export function readFilters(
  filters: UcpSearchFilters | undefined,
  context: UcpContext | undefined,
  rates: ExchangeRates | null = null,
): { applied: AppliedFilters; messages: UcpMessage[] } {
  const applied: AppliedFilters = {};
  const messages: UcpMessage[] = [];
  if (!filters) return { applied, messages };
  for (const name of Object.keys(filters)) {
    if (!KNOWN.has(name)) {
      messages.push(
        info(
          "filter_ignored",
          `The filter "${name}" is not one this catalog applies (it applies categories, price, brands, availability, audience, colors); it was ignored.`,
        ),
      );
    }
  }
  if (filters.categories?.length) applied.categories = filters.categories;
  if (filters.brands?.length) applied.brands = filters.brands;
  if (filters.availability?.length) applied.availability = [...new Set(filters.availability)];
  if (filters.audience?.length) applied.audience = [...new Set(filters.audience)];
  if (filters.colors?.length) applied.colors = [...new Set(filters.colors)];
  // A colour no catalog knows is refused here, naming the member, as the search would name its parameter.
  if (applied.colors) {
    try {
      attributeFilters({ colour: applied.colors });
    } catch (thrown) {
      if (thrown instanceof RequestError)
        throw new RequestError(thrown.code, thrown.message.replace(/^colour:/, "filters.colors:"), "filters.colors");
      throw thrown;
    }
  }
  const { min, max } = filters.price ?? {};
  if (min !== undefined && max !== undefined && min > max) {
    throw new RequestError("invalid_parameter", `filters.price.min (${min}) must not be above filters.price.max (${max}).`, "filters.price.min");
  }
  if (min !== undefined || max !== undefined) {
    const currency = context?.currency?.trim().toUpperCase();
    if (!currency) {
      messages.push(
        info("filter_ignored", "The price filter was ignored: its amounts are in minor units of context.currency, which the request does not give."),
      );
    } else if (!isCurrencyCode(currency)) {
      messages.push(info("filter_ignored", `The price filter was ignored: context.currency "${context?.currency}" is not an ISO 4217 code.`));
    } else {
      const bounds: PriceBounds = { currency, ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
      const converted = rates ? convertBounds(bounds, rates) : [];
      applied.price = converted.length > 0 ? { ...bounds, converted } : bounds;
    }
  }
  return { applied, messages };
}

export function isEmpty(applied: AppliedFilters): boolean {
  return !applied.categories && !applied.brands && !applied.availability && !applied.price && !applied.audience && !applied.colors;
}

/** Minor units as the decimal the search parameters take (`15000` USD → `"150.00"`), or undefined past their 12 digits. */
export function decimal(amount: number, currency: string): string | undefined {
  const exponent = minorUnitExponent(currency) ?? 2;
  const digits = String(amount).padStart(exponent + 1, "0");
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  if (whole.length > 12) return undefined;
  return exponent === 0 ? whole : `${whole}.${digits.slice(-exponent)}`;
}

export function variantPasses(variant: DraftVariant, applied: AppliedFilters): boolean {
  const { price, availability } = applied;
  if (price) {
    const bounds = [price, ...(price.converted ?? [])].find((each) => each.currency === variant.ucp.price.currency);
    if (!bounds) return false;
    if (bounds.min !== undefined && variant.amount < bounds.min) return false;
    if (bounds.max !== undefined && variant.amount > bounds.max) return false;
  }
  if (availability) {
    const status = variant.status === "discontinued" ? "out_of_stock" : variant.status;
    if (!status || !availability.includes(status as (typeof availability)[number])) return false;
  }
  return true;
}

export function productPasses(draft: DraftProduct, applied: AppliedFilters): boolean {
  if (applied.categories && !inCategories(draft.product, applied.categories)) return false;
  if (applied.audience || applied.colors) {
    // A lookup's product is judged by the same derivation its stored attributes came from (its name and category).
    const { product } = draft;
    const stated = deriveAttributes({ name: product.name, url: product.url, desc: product.desc, category: product.category ?? null });
    const wanted = attributeFilters({
      ...(applied.audience ? { audience: applied.audience } : {}),
      ...(applied.colors ? { colour: applied.colors } : {}),
    });
    if (wanted.audiences && !(stated.audience && wanted.audiences.includes(stated.audience))) return false;
    if (wanted.colours && !stated.colours.some((colour) => wanted.colours?.includes(colour))) return false;
  }
  if (applied.brands) {
    const wanted = new Set(applied.brands.map((brand) => brand.trim().toLowerCase()));
    if (!draft.product.brands.some((brand) => wanted.has(brand.trim().toLowerCase()))) return false;
  }
  return true;
}
