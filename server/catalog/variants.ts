/**
 * A product's variants, as its page states them: the schema.org ProductGroup's
 * `hasVariant` in the JSON-LD the record keeps (raw_data.jsons.ld_json), each
 * variant with its own offer, identifiers, image and the options it varies by
 * (`variesBy`: size, color, …). A page without a ProductGroup has no variants
 * here; callers then treat the product as its own single variant.
 *
 * Read through the extractor's schema.org reading (offers, identifiers,
 * media), so a variant's price means what a product's price means.
 */
import { parseGtin } from "../../shared/gtin.js";
import type { Availability } from "../../shared/schemas/index.js";
import { asArray, isObject, type JsonObject, str } from "../ingest/extract/candidate.js";
import type { Json } from "../ingest/extract/lenient-json.js";
import { prop, productCandidate, typesOf } from "../ingest/extract/schema-org.js";
import { normalizeAvailability } from "./structured.js";

export interface CatalogVariant {
  /** Unique among the product's variants, without `~`: its SKU when that is plain and unique, else `v1`, `v2`, … by position. */
  key: string;
  name: string | null;
  sku: string | null;
  /** Digits, check digit verified. */
  gtin: string | null;
  url: string | null;
  image: string | null;
  /** Decimal string in `currency`, as records hold prices. */
  price: string | null;
  currency: string | null;
  wasPrice: string | null;
  availability: Availability | null;
  /** What sets it apart from its siblings, e.g. `[{name: "Size", value: "M"}]`, in the group's `variesBy` order. */
  options: { name: string; value: string }[];
}

/** schema.org properties a variant varies by, and the option name each is shown as. */
const OPTION_PROPERTIES: Record<string, string> = {
  size: "Size",
  color: "Color",
  colour: "Color",
  material: "Material",
  pattern: "Pattern",
  suggestedage: "Age",
  suggestedgender: "Gender",
};

const PLAIN_KEY = /^[A-Za-z0-9._:-]{1,64}$/;
/** More variants than this on one page is not a product's options but a listing; the rest are left out. */
const MAX_VARIANTS = 250;

/** The option value a variant states for a property (`size: "M"`, `size: {name: "M"}`). */
function optionValue(node: JsonObject, property: string): string | undefined {
  const value = prop(node, property);
  return str(value, ["name", "@value", "value"]);
}

/** The properties the group says its variants vary by, else those its variants state and differ in. */
function varyingProperties(group: JsonObject, variants: JsonObject[]): string[] {
  const declared = asArray(prop(group, "variesBy"))
    .map((item) => (typeof item === "string" ? item.replace(/^.*[/#:]/, "").toLowerCase() : undefined))
    .filter((name): name is string => name !== undefined && name in OPTION_PROPERTIES);
  if (declared.length > 0) return [...new Set(declared)];
  return Object.keys(OPTION_PROPERTIES).filter((property) => {
    const values = new Set(variants.map((variant) => optionValue(variant, property)).filter(Boolean));
    return values.size > 1;
  });
}

/** The ProductGroup among the JSON-LD (itself, or a node of its @graph), if any. */
function productGroup(ldJson: unknown): JsonObject | undefined {
  const nodes = Array.isArray(ldJson) ? ldJson : isObject(ldJson) && Array.isArray(ldJson["@graph"]) ? ldJson["@graph"] : [ldJson];
  return nodes.filter(isObject).find((node) => prop(node, "hasVariant") !== undefined && typesOf(node).length > 0);
}

/** The variants the JSON-LD states (none without a ProductGroup of at least one variant with a name or an offer). */
export function variantsFromJsonLd(ldJson: unknown): CatalogVariant[] {
  const group = productGroup(ldJson);
  if (!group) return [];
  const nodes = asArray(prop(group, "hasVariant") as Json)
    .filter(isObject)
    .slice(0, MAX_VARIANTS);
  const properties = varyingProperties(group, nodes);
  const read = nodes.map((node) => {
    const candidate = productCandidate(node, "ld_json");
    const gtin = candidate.gtin ? parseGtin(candidate.gtin) : null;
    const options = properties.flatMap((property) => {
      const value = optionValue(node, property);
      return value ? [{ name: OPTION_PROPERTIES[property]!, value }] : [];
    });
    return {
      name: candidate.name ?? null,
      sku: candidate.sku ?? null,
      gtin: gtin?.ok ? gtin.digits : null,
      url: str(prop(node, "url"), ["@id", "url"]) ?? null,
      image: candidate.images?.[0] ?? null,
      price: candidate.price ?? null,
      currency: candidate.currency ?? null,
      wasPrice: candidate.was ?? null,
      availability: normalizeAvailability(candidate.availability),
      options,
    };
  });
  const skuCounts = new Map<string, number>();
  for (const variant of read) if (variant.sku) skuCounts.set(variant.sku, (skuCounts.get(variant.sku) ?? 0) + 1);
  return read.map((variant, index) => ({ key: variantKey(variant.sku, index, skuCounts.get(variant.sku ?? "") === 1), ...variant }));
}

/**
 * The SKUs of the variants a record's JSON-LD states, trimmed, lower-cased and once each, for lookups by SKU
 * (the `variant_sku_keys` column). Empty without a ProductGroup.
 */
export function variantSkuKeys(rawData: { jsons?: { ld_json?: unknown } | null } | null | undefined): string[] {
  const ldJson = rawData?.jsons?.ld_json;
  if (ldJson === undefined || ldJson === null) return [];
  const keys = variantsFromJsonLd(ldJson).flatMap((variant) => {
    const sku = variant.sku?.trim().toLowerCase();
    return sku ? [sku] : [];
  });
  return [...new Set(keys)];
}

/** A variant's key: its SKU when that is plain (fits an id, no `~`) and no sibling shares it, else its position. */
export function variantKey(sku: string | null, index: number, unique = true): string {
  return sku && unique && PLAIN_KEY.test(sku) ? sku : `v${index + 1}`;
}

/** The separator between a product id and its variant's key in a variant id (`pdp_…~NW-TEE-M`). */
export const VARIANT_SEPARATOR = "~";

export function variantId(productId: string, key: string): string {
  return `${productId}${VARIANT_SEPARATOR}${key}`;
}

/** The product id and variant key a variant id names (split at its last `~`), or null. */
export function parseVariantId(id: string): { productId: string; key: string } | null {
  const at = id.lastIndexOf(VARIANT_SEPARATOR);
  if (at <= 0 || at === id.length - 1) return null;
  return { productId: id.slice(0, at), key: id.slice(at + 1) };
}
