import { z } from "zod";

export const MediaSchema = z
  .object({
    url: z.string().describe("Absolute URL of the image or video."),
    type: z.enum(["image", "video"]),
  })
  .meta({ id: "Media" });

export const RawDataSchema = z
  .object({
    strippedHtml: z.string().nullable().describe("The PDP's HTML with scripts, styles, comments and non-content attributes removed; structure kept."),
    jsons: z.object({
      ld_json: z.unknown().nullable().describe("The product's JSON-LD object from the page, or null."),
      props_data: z.unknown().nullable().describe("The page-state JSON that describes the product, or null."),
    }),
  })
  .meta({ id: "RawData" });

export const OffersSchema = z
  .object({
    price: z.string().nullable().describe("Lowest current price as a decimal string, e.g. `24.99`."),
    currency: z.string().nullable().describe("ISO 4217 code, e.g. `USD`."),
    availability: z.string().nullable().describe("schema.org availability name, e.g. `InStock`, `OutOfStock`, `PreOrder`."),
  })
  .meta({ id: "Offers" });

export const IdentifiersSchema = z
  .object({
    sku: z.string().nullable(),
    gtin: z.string().nullable().describe("GTIN-8/12/13/14 (UPC, EAN, ISBN) as digits."),
    mpn: z.string().nullable().describe("Manufacturer part number."),
  })
  .meta({ id: "Identifiers" });

const ID_MESSAGE = "must be 1–128 characters of letters, digits and . _ ~ : -";
export const ProductIdSchema = z
  .string()
  .max(128, ID_MESSAGE)
  .regex(/^[A-Za-z0-9._~:-]{1,128}$/, ID_MESSAGE);

export const ProductSchema = z
  .object({
    id: ProductIdSchema.describe("Stable product id (derived from the normalised PDP URL unless the importer gave one)."),
    url: z.string().describe("The product detail page (PDP) URL."),
    name: z.string(),
    desc: z.string().describe("Plain-text description; may be empty."),
    media: z.array(MediaSchema),
    brands: z.array(z.string()),
    price_label: z.string().describe("Price as a shopper reads it on the page, e.g. `$24.99`, `39,90 €`, `$20.00 – $35.00`; empty when unknown."),
    raw_data: RawDataSchema.optional().describe("Present only when `include_raw_data` is true."),
    offers: OffersSchema.optional().describe("Beyond the spec, additive: price, currency and availability, when the page states them."),
    identifiers: IdentifiersSchema.optional().describe("Beyond the spec, additive: SKU, GTIN and MPN, when the page states them."),
  })
  .meta({ id: "Product" });

export const ProductEnvelopeSchema = z.object({ pdp: ProductSchema }).meta({ id: "ProductEnvelope" });
export const SearchResponseSchema = z
  .object({ products: z.array(ProductEnvelopeSchema).describe("Best match first.") })
  .meta({ id: "SearchResponse" });

export type Media = z.infer<typeof MediaSchema>;
export type Offers = z.infer<typeof OffersSchema>;
export type Identifiers = z.infer<typeof IdentifiersSchema>;
export type RawData = z.infer<typeof RawDataSchema>;
export type Product = z.infer<typeof ProductSchema>;
export type ProductEnvelope = z.infer<typeof ProductEnvelopeSchema>;
export type SearchResponse = z.infer<typeof SearchResponseSchema>;
