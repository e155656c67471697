/**
 * UCP-shaped product JSON: one product of the Universal Commerce Protocol's catalog a line (`types/product.json`), or a
 * catalog answer holding `products` (what a UCP search or lookup answers). The schema follows the protocol's JSON
 * Schemas (release 2026-04-08, ../shared/reference/ucp/source/schemas): the required members and their types, open
 * where they are open (members they do not name pass through). shared/schemas/ucp.ts is the stricter shape this
 * service answers with; an import takes any valid product, as another business writes it.
 *
 * A product is one record: the catalog keeps one record per merchant page, and the featured (first) variant is what
 * the page shows — its price, availability, SKU and barcode. The other variants are not kept (0015-feeds-formats.md).
 */
import { z } from "zod";
import { fromMinorUnits } from "../../shared/currency.js";
import { parseGtin } from "../../shared/gtin.js";
import { ProductIdSchema, type Product } from "../../shared/schemas/index.js";
import { parseHttpUrl } from "../../shared/url.js";
import type { CatalogVariant } from "../catalog/variants.js";
import { htmlToText } from "../ingest/extract/text.js";
import { draftProduct, ucpProduct } from "../ucp/products.js";
import { required } from "../ingest/record.js";
import type { Mapped, RecordInput } from "./mapped.js";

const uri = z.string(required).refine((value) => URL.canParse(value), "must be a URI");

/** common/types/price.json: integer minor units and an ISO 4217 code. */
const PriceSchema = z.looseObject({
  amount: z.int("must be an integer amount in minor units").min(0).max(Number.MAX_SAFE_INTEGER),
  currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as USD"),
});

const PriceRangeSchema = z.looseObject({ min: PriceSchema, max: PriceSchema });

/** common/types/description.json: at least one format. */
const DescriptionSchema = z
  .looseObject({ plain: z.string().optional(), html: z.string().optional(), markdown: z.string().optional() })
  .refine((value) => Object.keys(value).length > 0, "must hold at least one of plain, html, markdown");

const MediaSchema = z.looseObject({
  type: z.string(),
  url: uri,
  alt_text: z.string().optional(),
  width: z.int().min(1).optional(),
  height: z.int().min(1).optional(),
});

const CategorySchema = z.looseObject({ value: z.string(), taxonomy: z.string().optional() });
const AvailabilitySchema = z.looseObject({ available: z.boolean().optional(), status: z.string().optional() });
const SelectedOptionSchema = z.looseObject({ name: z.string(), id: z.string().optional(), label: z.string() });
const ProductOptionSchema = z.looseObject({
  name: z.string(),
  values: z.array(z.looseObject({ id: z.string().optional(), label: z.string() })).min(1, "must hold at least one value"),
});
const RatingSchema = z.looseObject({
  value: z.number().min(0),
  scale_min: z.number().min(0).optional(),
  scale_max: z.number().min(1),
  count: z.int().min(0).optional(),
});

/** shopping/types/variant.json. */
const VariantSchema = z.looseObject({
  id: z.string(),
  sku: z.string().optional(),
  barcodes: z.array(z.looseObject({ type: z.string(), value: z.string() })).optional(),
  handle: z.string().optional(),
  title: z.string(),
  description: DescriptionSchema,
  url: uri.optional(),
  categories: z.array(CategorySchema).optional(),
  price: PriceSchema,
  list_price: PriceSchema.optional(),
  availability: AvailabilitySchema.optional(),
  options: z.array(SelectedOptionSchema).optional(),
  media: z.array(MediaSchema).optional(),
  rating: RatingSchema.optional(),
  tags: z.array(z.string()).optional(),
  metadata: z.looseObject({}).optional(),
  seller: z.looseObject({ name: z.string().optional() }).optional(),
});

/** shopping/types/product.json. */
export const UcpFeedProductSchema = z.looseObject({
  id: z.string(required),
  handle: z.string().optional(),
  title: z.string(required),
  description: DescriptionSchema,
  url: uri.optional(),
  categories: z.array(CategorySchema).optional(),
  price_range: PriceRangeSchema,
  list_price_range: PriceRangeSchema.optional(),
  media: z.array(MediaSchema).optional(),
  options: z.array(ProductOptionSchema).optional(),
  variants: z.array(VariantSchema, { error: "must be a list of variants" }).min(1, "must hold at least one variant"),
  rating: RatingSchema.optional(),
  tags: z.array(z.string()).optional(),
  metadata: z.looseObject({}).optional(),
});

export type UcpFeedProduct = z.infer<typeof UcpFeedProductSchema>;

/** The UCP availability statuses as the record's schema.org names (`available` alone when the status is not one). */
const STATUS: Record<string, string> = {
  in_stock: "InStock",
  out_of_stock: "OutOfStock",
  preorder: "PreOrder",
  backorder: "BackOrder",
  discontinued: "Discontinued",
};

/** Barcode types that are GTINs (the protocol's well-known values). */
const GTIN_TYPES = new Set(["UPC", "EAN", "ISBN", "GTIN", "JAN"]);

function plainText(description: z.infer<typeof DescriptionSchema>): string {
  if (description.plain !== undefined) return description.plain;
  if (description.markdown !== undefined) return description.markdown;
  return description.html === undefined ? "" : htmlToText(description.html);
}

function availabilityOf(availability: z.infer<typeof AvailabilitySchema> | undefined): string | null {
  const status = availability?.status && STATUS[availability.status];
  if (status) return status;
  if (availability?.available === undefined) return null;
  return availability.available ? "InStock" : "OutOfStock";
}

/** A UCP product as a record, or what keeps it from being one (the import's own checks follow). */
export function ucpToRecord(product: UcpFeedProduct): RecordInput | { error: string } {
  const featured = product.variants[0]!;
  const url = [product.url, featured.url].find((value) => value !== undefined && parseHttpUrl(value) !== null);
  if (!url) return { error: "url: the product (or its first variant) needs an absolute http(s) URL: the catalog keeps a record per page" };
  const price = fromMinorUnits(featured.price.amount, featured.price.currency);
  const list = featured.list_price && fromMinorUnits(featured.list_price.amount, featured.price.currency);
  const barcode = featured.barcodes?.find((code) => GTIN_TYPES.has(code.type.toUpperCase()) && parseGtin(code.value).ok);
  // The record's media are images and videos (a 3D model has no place in it).
  const media = (product.media ?? featured.media ?? []).flatMap(({ type, url }) => {
    const kind: "image" | "video" | undefined = type === "image" || type === "video" ? type : undefined;
    return kind && parseHttpUrl(url) ? [{ url, type: kind }] : [];
  });
  const brands = product.metadata?.brands;
  const category = product.categories?.find((item) => item.taxonomy === "merchant") ?? product.categories?.[0];
  return {
    // A protocol id is often a GID (gid://shop/Product/1), which is no id of ours: the record's is then its URL's.
    ...(ProductIdSchema.safeParse(product.id).success ? { id: product.id } : {}),
    url,
    name: product.title,
    desc: plainText(product.description),
    media,
    brands: Array.isArray(brands) ? brands.filter((brand): brand is string => typeof brand === "string") : [],
    price_label: "",
    offers: {
      price,
      currency: featured.price.currency,
      availability: availabilityOf(featured.availability),
      ...(list && featured.list_price!.amount > featured.price.amount ? { was_price: list } : {}),
    },
    ...(featured.sku || barcode ? { identifiers: { sku: featured.sku ?? null, gtin: barcode?.value ?? null, mpn: null } } : {}),
    ...(category ? { category: category.value } : {}),
  };
}

/** A product as the UCP product this service answers for it (server/ucp/products.ts), or why it has none. */
export function productToUcp(product: Product, variants: readonly CatalogVariant[]): Mapped<UcpFeedProduct> {
  const draft = draftProduct(product, variants);
  if (!draft) return { skipped: "no price in a known currency: every UCP variant needs one" };
  return { line: ucpProduct(draft) };
}
