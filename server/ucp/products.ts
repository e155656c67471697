/**
 * A catalog record as a UCP product: its variants (the page's ProductGroup
 * variants, else the record itself as the one variant), prices in integer
 * minor units with their currency, availability, media, categories, barcodes
 * and the page's URL. A record without a price in a known currency cannot be a
 * UCP product (every variant must have one); it is left out, and the answer
 * says so.
 */
import { isCurrencyCode, toMinorUnits } from "../../shared/currency.js";
import { parseGtin } from "../../shared/gtin.js";
import {
  type Availability,
  AVAILABILITY_GROUPS,
  type Offer,
  type Product,
  type UcpOffer,
  type UcpPrice,
  type UcpProduct,
  type UcpVariant,
} from "../../shared/schemas/index.js";
import { categoryKey, normalizeAvailability } from "../catalog/structured.js";
import { type CatalogVariant, variantId, variantKey } from "../catalog/variants.js";

/** A variant with what filters and option selection need beside its UCP form. */
export interface DraftVariant {
  ucp: UcpVariant;
  key: string;
  /** Its place on the page (options list their values in this order). */
  index: number;
  /** In `ucp.price.currency`. */
  amount: number;
  available: boolean | undefined;
  status: string | undefined;
  options: { name: string; label: string }[];
}

export interface DraftProduct {
  product: Product;
  /** Featured first: the variant the page's URL (or the record) selects. */
  variants: DraftVariant[];
}

/** A URL as the protocol's `format: uri` takes it (percent-encoded), or undefined for one that is not absolute. */
export function absoluteUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

export function price(amount: string | null | undefined, currency: string | null | undefined): UcpPrice | undefined {
  const code = currency?.trim().toUpperCase();
  if (!amount || !code || !isCurrencyCode(code)) return undefined;
  const minor = toMinorUnits(amount.trim(), code);
  return minor === null ? undefined : { amount: minor, currency: code };
}

/** schema.org availability as the protocol's `{available, status}` (status: its well-known values). */
export function availabilityOf(name: Availability | null | undefined): { available: boolean; status: string } | undefined {
  if (!name) return undefined;
  if (name === "Discontinued") return { available: false, status: "discontinued" };
  for (const [status, names] of Object.entries(AVAILABILITY_GROUPS)) {
    if ((names as readonly string[]).includes(name)) return { available: status !== "out_of_stock", status };
  }
  // Reserved: held for someone else, not for sale now.
  return { available: false, status: "out_of_stock" };
}

/** One merchant's record as an offer, in the upstream proposal's shape (UCP #811); none without a price in a known currency. */
export function ucpOffer(offer: Offer): UcpOffer | undefined {
  const selling = price(offer.price, offer.currency);
  if (!selling) return undefined;
  const availability = availabilityOf(normalizeAvailability(offer.availability));
  const url = absoluteUrl(offer.url);
  return {
    seller: { domain: offer.merchant },
    item_id: offer.id,
    price: selling,
    ...(availability ? { availability } : {}),
    ...(url ? { url } : {}),
  };
}

/** A GTIN as the protocol's barcode, typed by its form: UPC (12 digits), ISBN (978/979 EAN-13), EAN (13 or 8), GTIN (14). */
export function barcodeOf(gtin: string | null | undefined): { type: string; value: string } | undefined {
  const parsed = gtin ? parseGtin(gtin) : null;
  if (!parsed?.ok) return undefined;
  const type = { upca: "UPC", isbn13: "ISBN", ean13: "EAN", gtin8: "EAN", gtin14: "GTIN" }[parsed.kind];
  return { type, value: parsed.digits };
}

function draftVariant(
  product: Product,
  index: number,
  source: Pick<CatalogVariant, "key" | "name" | "sku" | "gtin" | "url" | "image" | "price" | "currency" | "wasPrice" | "availability" | "options">,
): DraftVariant | undefined {
  const selling = price(source.price, source.currency);
  if (!selling) return undefined;
  const was = price(source.wasPrice, selling.currency);
  const availability = availabilityOf(source.availability);
  const options = source.options.map((option) => ({ name: option.name, label: option.value }));
  const barcode = barcodeOf(source.gtin);
  const url = absoluteUrl(source.url);
  const image = absoluteUrl(source.image);
  const ucp: UcpVariant = {
    id: variantId(product.id, source.key),
    ...(source.sku ? { sku: source.sku } : {}),
    ...(barcode ? { barcodes: [barcode] } : {}),
    title: options.length > 0 ? options.map((option) => option.label).join(" / ") : (source.name ?? product.name),
    description: { plain: product.desc },
    ...(url ? { url } : {}),
    price: selling,
    ...(was && was.amount > selling.amount ? { list_price: was } : {}),
    ...(availability ? { availability } : {}),
    ...(options.length > 0 ? { options } : {}),
    ...(image ? { media: [{ type: "image", url: image }] } : {}),
  };
  return { ucp, key: source.key, index, amount: selling.amount, available: availability?.available, status: availability?.status, options };
}

/** The record itself as its one variant. */
function recordVariant(product: Product): DraftVariant | undefined {
  return draftVariant(product, 0, {
    key: variantKey(product.identifiers?.sku ?? null, 0),
    name: product.name,
    sku: product.identifiers?.sku ?? null,
    gtin: product.identifiers?.gtin ?? null,
    url: null,
    image: null,
    price: product.offers?.price ?? null,
    currency: product.offers?.currency ?? null,
    wasPrice: product.offers?.was_price ?? null,
    availability: normalizeAvailability(product.offers?.availability),
    options: [],
  });
}

/**
 * The product with its variants, featured first, or undefined when it has no price to state. Page variants
 * without a price of their own (or in another currency than the featured one) are left out.
 */
export function draftProduct(product: Product, pageVariants: readonly CatalogVariant[]): DraftProduct | undefined {
  const drafts = pageVariants.flatMap((variant, index) => draftVariant(product, index, variant) ?? []);
  if (drafts.length === 0) {
    const only = recordVariant(product);
    return only ? { product, variants: [only] } : undefined;
  }
  const featuredAt = Math.max(
    0,
    pageVariants.findIndex((variant) => absoluteUrl(variant.url) === absoluteUrl(product.url)),
  );
  const featured = drafts.find((draft) => draft.key === pageVariants[featuredAt]?.key) ?? drafts[0]!;
  const currency = featured.ucp.price.currency;
  const rest = drafts.filter((draft) => draft !== featured && draft.ucp.price.currency === currency);
  return { product, variants: [featured, ...rest] };
}

/** The UCP product for a draft and the variants to show (at least one). */
export function ucpProduct(draft: DraftProduct, variants: readonly DraftVariant[] = draft.variants): UcpProduct {
  const { product } = draft;
  const amounts = variants.map((variant) => variant.amount);
  const currency = variants[0]!.ucp.price.currency;
  const range = (values: number[]) => ({ min: { amount: Math.min(...values), currency }, max: { amount: Math.max(...values), currency } });
  const listed = variants.some((variant) => variant.ucp.list_price);
  const media = product.media.flatMap((item) => {
    const url = absoluteUrl(item.url);
    return url ? [{ type: item.type, url }] : [];
  });
  const url = absoluteUrl(product.url);
  const options = new Map<string, string[]>();
  for (const variant of [...draft.variants].sort((a, b) => a.index - b.index)) {
    for (const option of variant.options) {
      const labels = options.get(option.name) ?? [];
      if (!labels.includes(option.label)) labels.push(option.label);
      options.set(option.name, labels);
    }
  }
  return {
    id: product.id,
    title: product.name,
    description: { plain: product.desc },
    ...(url ? { url } : {}),
    ...(product.category ? { categories: [{ value: product.category, taxonomy: "merchant" }] } : {}),
    price_range: range(amounts),
    ...(listed ? { list_price_range: range(variants.map((variant) => variant.ucp.list_price?.amount ?? variant.amount)) } : {}),
    ...(media.length > 0 ? { media } : {}),
    ...(options.size > 0 ? { options: [...options].map(([name, labels]) => ({ name, values: labels.map((label) => ({ label })) })) } : {}),
    variants: variants.map((variant) => variant.ucp),
    ...(product.brands.length > 0 ? { metadata: { brands: product.brands } } : {}),
  };
}

/** Whether a product is under one of these category paths (whole segments, any case), as the search filter reads them. */
export function inCategories(product: Product, categories: readonly string[]): boolean {
  const own = product.category ? categoryKey(product.category) : "";
  return categories.some((category) => {
    const wanted = categoryKey(category);
    return own === wanted || own.startsWith(`${wanted} > `);
  });
}
