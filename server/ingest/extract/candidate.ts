/**
 * What one layer found on a page. Every member is optional: the merge in
 * index.ts takes each field from the most trustworthy layer that has it.
 */
import type { Json } from "./lenient-json.js";

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
  currency?: string;
  low?: string;
  high?: string;
  /** The regular price when the page shows a lower sale price. */
  was?: string;
  availability?: string;
  /** Visible layer only: an enabled buy button with no out-of-stock wording around it. */
  buyButton?: boolean;
  /** Visible layer only: the page says out of stock and offers no enabled buy button. */
  soldOut?: boolean;
  sku?: string;
  gtin?: string;
  mpn?: string;
  /** The layer's raw JSON for raw_data (the JSON-LD product, or the page-state product). */
  raw?: Json;
}

export type LayerName = "jsonld" | "microdata" | "rdfa" | "opengraph" | "page-state" | "visible";

/** Most reliable first. */
export const LAYER_ORDER: LayerName[] = ["jsonld", "microdata", "rdfa", "opengraph", "page-state", "visible"];

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

/** GTIN digits when the value is a plausible GTIN-8/12/13/14 (ISBN included). */
export function cleanGtin(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const digits = value.replace(/[\s-]/g, "");
  return /^(\d{8}|\d{12,14})$/.test(digits) && !/^0+$/.test(digits) ? digits : undefined;
}

export function cleanIdentifier(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const cleaned = value.replace(/^(sku|mpn|gtin\d*|ean|upc|isbn)\s*[:#]\s*/i, "").trim();
  return cleaned.length > 0 && cleaned.length <= 80 && !/^(null|undefined|n\/a|none)$/i.test(cleaned) ? cleaned : undefined;
}
