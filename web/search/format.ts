/** A record's fields as a shopper reads them: price in its currency, availability in words, the merchant's site. */
import type { Availability } from "../../shared/availability.js";
import type { PageRecord, WholeRecord } from "./types.js";

const AVAILABILITY_WORDS: Record<Availability, string> = {
  InStock: "In stock",
  OutOfStock: "Out of stock",
  PreOrder: "Pre-order",
  BackOrder: "On back-order",
  Discontinued: "Discontinued",
  InStoreOnly: "In store only",
  LimitedAvailability: "Few left",
  OnlineOnly: "Online only",
  SoldOut: "Sold out",
  PreSale: "Pre-sale",
  MadeToOrder: "Made to order",
  Reserved: "Reserved",
};

export function availabilityText(value: string | null | undefined): string | null {
  if (!value) return null;
  return value in AVAILABILITY_WORDS ? AVAILABILITY_WORDS[value as Availability] : value;
}

/** Buyable now, for the card's colour: the same states as the `in_stock` filter. */
export function isAvailable(value: string | null | undefined): boolean {
  return value === "InStock" || value === "LimitedAvailability" || value === "InStoreOnly" || value === "OnlineOnly";
}

/** A decimal amount in its currency, as the reader's locale writes it; null when either is missing or not a currency. */
export function money(amount: string | null | undefined, currency: string | null | undefined): string | null {
  if (!amount || !currency) return null;
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(Number(amount));
  } catch {
    return `${amount} ${currency}`;
  }
}

/** The merchant's site, as a shopper names it: the host without `www.`. */
export function siteOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

/** What a card and the product view show, from a whole record or a compact one. */
export interface Shown {
  id: string;
  url: string;
  name: string;
  brand: string | null;
  /** The price in its currency, or the page's own label when it states no amount. */
  price: string | null;
  wasPrice: string | null;
  availability: string | null;
  images: string[];
  whole: WholeRecord | null;
}

export function shown(record: PageRecord): Shown {
  if (!("desc" in record)) {
    return {
      ...record,
      price: money(record.price, record.currency) ?? (record.price_label || null),
      wasPrice: null,
      images: record.image ? [record.image] : [],
      whole: null,
    };
  }
  const offers = record.offers;
  return {
    id: record.id,
    url: record.url,
    name: record.name,
    brand: record.brands[0] ?? null,
    price: money(offers?.price, offers?.currency) ?? (record.price_label || null),
    wasPrice: money(offers?.was_price, offers?.currency),
    availability: offers?.availability ?? null,
    images: record.media.filter((media) => media.type === "image").map((media) => media.url),
    whole: record,
  };
}
