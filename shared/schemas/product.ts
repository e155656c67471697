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

export { AVAILABILITIES, AVAILABILITY_FILTERS, AVAILABILITY_GROUPS, type Availability } from "../availability.js";

/** How much of a record an answer holds (see ViewSchema). */
export const VIEWS = ["compact", "standard", "full"] as const;

export const OffersSchema = z
  .object({
    price: z
      .string()
      .nullable()
      .describe(
        "Lowest current price as a decimal string with as many decimals as the currency's minor unit (ISO 4217), e.g. `24.99`, `45.00`; `1200` in JPY.",
      ),
    currency: z.string().nullable().describe("ISO 4217 code, e.g. `USD`."),
    availability: z.string().nullable().describe("schema.org availability name, e.g. `InStock`, `OutOfStock`, `PreOrder`."),
    was_price: z
      .string()
      .nullable()
      .optional()
      .describe("The crossed-out or list price as a decimal string, when the page states one above `price`; same currency and decimals."),
  })
  .meta({ id: "Offers" });

export const IdentifiersSchema = z
  .object({
    sku: z.string().nullable(),
    gtin: z.string().nullable().describe("GTIN-8/12/13/14 (UPC, EAN, ISBN) as digits."),
    mpn: z.string().nullable().describe("Manufacturer part number."),
  })
  .meta({ id: "Identifiers" });

/** Where an extracted field was read, most trustworthy first (see docs/extraction.md). */
export const EXTRACTION_LAYERS = ["ld_json", "microdata", "rdfa", "opengraph", "page_state", "visible"] as const;
export const ExtractionLayerSchema = z.enum(EXTRACTION_LAYERS);

export const FieldProvenanceSchema = z.object({
  source: ExtractionLayerSchema,
  confidence: z.number().min(0).max(1).describe("Estimated probability that the value is right; below CONFIDENT_AT it is a guess."),
  rule: z
    .string()
    .max(100)
    .optional()
    .describe("The heuristic that found the value when it is not the layer's plain statement, e.g. `visible.price_near_buy_button`, `sku.from_url`."),
});

/** Confidence from which an extracted field counts as stated by the page rather than guessed. */
export const CONFIDENT_AT = 0.5;

const provenance = FieldProvenanceSchema.optional();
export const ProvenanceSchema = z.object({
  name: provenance,
  brand: provenance,
  category: provenance,
  price: provenance,
  currency: provenance,
  was_price: provenance,
  availability: provenance,
  sku: provenance,
  gtin: provenance,
  mpn: provenance,
});

/** An instant as answers give it: ISO 8601 in UTC, with milliseconds (`2026-11-24T09:30:00.000Z`). */
export const TimestampSchema = z.iso.datetime();

const ID_MESSAGE = "must be 1–128 characters of letters, digits and . _ ~ : -";
export const ProductIdSchema = z
  .string()
  .max(128, ID_MESSAGE)
  .regex(/^[A-Za-z0-9._~:-]{1,128}$/, ID_MESSAGE);

/** The prices of a product group's offers in one currency. */
export const GroupPriceRangeSchema = z
  .object({
    min: z.string().describe("The lowest price, a decimal in `currency`."),
    max: z.string().describe("The highest price, a decimal in `currency`."),
    currency: z.string().describe("ISO 4217: the record's own currency; offers in other currencies are not counted."),
  })
  .meta({ id: "GroupPriceRange" });

/** The product group a record belongs to: the records of the same product at every merchant (docs/matching.md). */
export const ProductGroupSchema = z
  .object({
    id: z.string().describe("The group's id: stable while the group lasts; the records of the same product share it."),
    offers: z
      .int32()
      .min(1)
      .describe("How many merchants sell the product: 1 when this record is its only one.")
      .meta({ override: { type: "integer", format: "int32", minimum: 1 } }),
    price_range: GroupPriceRangeSchema.optional().describe(
      "The lowest and highest price of the group's offers in this record's currency (each merchant's record still there that states one, in stock or not); absent when this record states no price.",
    ),
  })
  .describe("Beyond the spec, additive: the product this record is one merchant's offer of (`GET /products/{id}/offers` answers every offer).")
  .meta({ id: "ProductGroup" });

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
    category: z
      .string()
      .optional()
      .describe('Beyond the spec, additive: the category path, segments joined by " > " (e.g. `Outdoor > Tents`), when known.'),
    fetched_at: TimestampSchema.describe(
      "Beyond the spec, additive: when the merchant's page was last read whole (fetched, or imported from a saved page or a feed), ISO 8601.",
    ),
    checked_at: TimestampSchema.describe(
      "Beyond the spec, additive: when this record was last confirmed against the merchant's page (a fetch that found it unchanged counts), ISO 8601. How fresh the price and availability are.",
    ),
    updated_at: TimestampSchema.describe("Beyond the spec, additive: when the record's content last changed, ISO 8601."),
    product_group: ProductGroupSchema,
    price_low_30d: z
      .string()
      .nullable()
      .describe(
        "Beyond the spec, additive: the lowest price this page has stated in the last 30 days, a decimal in `offers.currency` (`GET /products/{id}/prices` has the history); null when unknown.",
      ),
    price_low_90d: z.string().nullable().describe("Beyond the spec, additive: the same over the last 90 days."),
  })
  .meta({ id: "Product" });

/** `view=compact`: what an agent needs to choose, at a fraction of the tokens. */
export const CompactProductSchema = z
  .object({
    id: ProductIdSchema,
    url: z.string(),
    name: z.string(),
    brand: z.string().nullable().describe("The first brand the page names."),
    price_label: z.string(),
    price: z.string().nullable().describe("Decimal price in `currency`, when the page states one."),
    currency: z.string().nullable(),
    availability: z.string().nullable().describe("schema.org availability name."),
    image: z.string().nullable().describe("The first image's URL."),
    checked_at: TimestampSchema.describe("When the price and availability were last confirmed on the merchant's page, ISO 8601."),
    product_group: ProductGroupSchema,
  })
  .meta({ id: "CompactProduct" });

/**
 * A record from the sample catalog, as an answer gives it: the answers' examples in /docs. Scalar cannot make one up for
 * the record's union (it showed `"pdp": null`), so each answer that holds records carries a whole example of its own.
 */
export const PRODUCT_EXAMPLE: z.output<typeof ProductSchema> = {
  id: "pdp_1af31756fb4791a7a2254914",
  url: "https://www.northpeak.example/products/ridgeline-2p-backpacking-tent",
  name: "Ridgeline 2P Backpacking Tent",
  desc: "A freestanding two-person tent built around a single-hub aluminium pole set that pitches in under four minutes.",
  media: [{ url: "https://cdn.northpeak.example/files/NP-10037_front.jpg", type: "image" }],
  brands: ["NorthPeak"],
  price_label: "$349.00",
  offers: { price: "349.00", currency: "USD", availability: "InStock" },
  identifiers: { sku: "NP-10037", gtin: null, mpn: null },
  category: "Outdoor > Tents",
  fetched_at: "2026-11-24T09:30:00.000Z",
  checked_at: "2026-11-24T09:30:00.000Z",
  updated_at: "2026-11-24T09:30:00.000Z",
  product_group: { id: "grp_5f0c2a7e91d3b84a6c10", offers: 1, price_range: { min: "349.00", max: "349.00", currency: "USD" } },
  price_low_30d: "349.00",
  price_low_90d: "329.00",
};

/** A record as an answer holds it: the whole record (`standard`, `full`) or the compact one. */
export const ProductRecordSchema = z.union([ProductSchema, CompactProductSchema]).meta({ id: "ProductRecord" });

export const ProductEnvelopeSchema = z.object({ pdp: ProductRecordSchema }).meta({ id: "ProductEnvelope", examples: [{ pdp: PRODUCT_EXAMPLE }] });

export type Media = z.infer<typeof MediaSchema>;
export type Offers = z.infer<typeof OffersSchema>;
export type Identifiers = z.infer<typeof IdentifiersSchema>;
export type ExtractionLayer = z.infer<typeof ExtractionLayerSchema>;
export type FieldProvenance = z.infer<typeof FieldProvenanceSchema>;
export type Provenance = z.infer<typeof ProvenanceSchema>;
export type RawData = z.infer<typeof RawDataSchema>;
export type Product = z.infer<typeof ProductSchema>;
export type ProductGroup = z.infer<typeof ProductGroupSchema>;
export type GroupPriceRange = z.infer<typeof GroupPriceRangeSchema>;
export type CompactProduct = z.infer<typeof CompactProductSchema>;
export type ProductRecord = z.infer<typeof ProductRecordSchema>;
export type ProductEnvelope = z.infer<typeof ProductEnvelopeSchema>;

/** Whether a record is the whole one (not `view=compact`); generic, so it narrows the typed client's records too. */
export function isWholeRecord<R extends object>(record: R): record is Extract<R, { desc: string }> {
  return "desc" in record;
}
