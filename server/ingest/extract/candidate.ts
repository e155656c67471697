/**
 * What one layer found on a page. Every member is optional: the merge in
 * index.ts takes each field from the most trustworthy layer that has it.
 */
import { parseGtin } from "../../../shared/gtin.js";
import { EXTRACTION_LAYERS, type ExtractionLayer } from "../../../shared/schemas/index.js";
import type { Json } from "./lenient-json.js";
import type { Rule } from "./rules.js";

/** The fields whose source and confidence a record carries (see ProvenanceSchema). */
export type Field = "name" | "brand" | "category" | "price" | "currency" | "was_price" | "availability" | "sku" | "gtin" | "mpn";

export interface Candidate {
  layer: LayerName;
  url?: string;
  name?: string;
  desc?: string;
  images?: string[];
  videos?: string[];
  brands?: string[];
  /** Decimal string; the lowest current price when there are several. */
  price?: string;
  /** Visible layer only: the text the price was read from, for its other reading (`2.449`: 2449 or 2.449). */
  priceText?: string;
  currency?: string;
  /** When the currency was read from a symbol several share (`$`, `kr`): the currencies it may be; another layer's code decides. */
  currencies?: string[];
  low?: string;
  high?: string;
  /** The regular price when the page shows a lower sale price. */
  was?: string;
  availability?: string;
  /** Visible layer only: what the page shows of whether it sells, weighed by evidence.ts. */
  stock?: StockEvidence;
  sku?: string;
  gtin?: string;
  mpn?: string;
  /** Category path segments, broadest first, without the home crumb or the product itself. */
  category?: string[];
  /** The rule (rules.ts) that found a field, or `itemprop` for a loose microdata property; absent for the layer's plain statement. */
  how?: Partial<Record<Field, How>>;
  /** The layer's raw JSON for raw_data (the JSON-LD product, or the page-state product). */
  raw?: Json;
}

export type LayerName = ExtractionLayer;

/** Signals the visible page gives about stock, each present or not (visible.ts `stockEvidence`). */
export interface StockEvidence {
  buyEnabled: boolean;
  buyDisabled: boolean;
  quantity: boolean;
  delivery: boolean;
  notify: boolean;
  inStockWording: boolean;
  outOfStockWording: boolean;
}

/**
 * How a field was found beyond its layer's plain statement: a rule (rules.ts), a loose microdata
 * `itemprop` outside any item, a currency read from a symbol several currencies share, availability
 * decided by the weighed evidence against the markup or without any, or a shown price's other reading.
 */
export type How = Rule | "itemprop" | "shared_symbol" | "weighed_evidence" | "other_reading";

/** Most reliable first. */
export const LAYER_ORDER: readonly LayerName[] = EXTRACTION_LAYERS;

export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asArray(value: Json | undefined): Json[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** A scalar as a trimmed string; first element of arrays; `@value`/`name` of objects when asked. */
export function str(value: Json | undefined, objectKeys: string[] = ["@value"]): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = str(item, objectKeys);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "number") return String(value);
  if (isObject(value))
    for (const key of objectKeys) {
      const found = str(value[key], []);
      if (found) return found;
    }
  return undefined;
}

/** GTIN digits when the value is a valid GTIN-8/12/13/14 (ISBN-13 included), check digit and all. */
export function cleanGtin(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const gtin = parseGtin(value);
  return gtin.ok ? gtin.digits : undefined;
}

export function cleanIdentifier(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const cleaned = value.replace(/^(sku|mpn|gtin\d*|ean|upc|isbn)\s*[:#]\s*/i, "").trim();
  return cleaned.length > 0 && cleaned.length <= 80 && !/^(null|undefined|n\/a|none)$/i.test(cleaned) ? cleaned : undefined;
}
