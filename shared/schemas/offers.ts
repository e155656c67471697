/** The answer of `GET /products/{id}/offers`: one product's offers, one a merchant, cheapest in stock first. */
import { z } from "zod";
import { PRODUCT_EXAMPLE, ProductEnvelopeSchema, ProductGroupSchema, ProductIdSchema, ProductRecordSchema, TimestampSchema } from "./product.js";

export const OfferSchema = z
  .object({
    id: ProductIdSchema.describe("The merchant's record of the product."),
    merchant: z.string().describe("The merchant's site (the host of its page, without `www.`)."),
    url: z.string().describe("The merchant's product page."),
    name: z.string().describe("The product's name on that page."),
    price: z.string().nullable().describe("Decimal price in `currency`, when the page states one."),
    currency: z.string().nullable().describe("ISO 4217."),
    availability: z.string().nullable().describe("schema.org availability name, when the page states one."),
    checked_at: TimestampSchema.describe("When the price and availability were last confirmed on the merchant's page, ISO 8601."),
  })
  .meta({ id: "Offer" });

export const OffersResponseSchema = z
  .object({
    product_group: ProductGroupSchema,
    offers: z
      .array(OfferSchema)
      .describe(
        "The offers that pass the filters: in stock before the rest, then by price (lowest first, within a currency; unpriced last), then by merchant.",
      ),
  })
  .meta({
    id: "OffersResponse",
    examples: [
      {
        product_group: { id: "grp_5f0c2a7e91d3b84a6c10", offers: 2 },
        offers: [
          {
            id: "buy-10221960",
            merchant: "buy.example",
            url: "https://buy.example/p/10221960",
            name: "Netgear ProSafe FS105 Ethernet Switch - FS105NA",
            price: "29.99",
            currency: "USD",
            availability: "InStock",
            checked_at: "2026-11-24T09:30:00.000Z",
          },
        ],
      },
    ],
  });

/** How many of a group's offers a lookup by GTIN answers (`GET /products/{id}/offers` pages up to LIMIT_MAX). */
export const GTIN_OFFERS_MAX = 20;

/** Beside a lookup by GTIN's record: the offers of the product it is (every group holding a record with that GTIN). */
export const GtinOffersSchema = z
  .array(OfferSchema)
  .describe(
    `With \`gtin\` only: every merchant's offer of the product that GTIN names — the records of each product group holding a record with that GTIN (most often one group), as \`GET /products/{id}/offers\` orders them (in stock first, then cheapest), at most ${GTIN_OFFERS_MAX}.`,
  );

/** A lookup by URL or GTIN: the record, and with a GTIN its product's offers. */
export const ProductLookupEnvelopeSchema = ProductEnvelopeSchema.extend({ offers: GtinOffersSchema.optional() }).meta({
  id: "ProductLookupEnvelope",
  examples: [{ pdp: PRODUCT_EXAMPLE }],
});

export type Offer = z.infer<typeof OfferSchema>;
export type ProductLookupEnvelope = z.infer<typeof ProductLookupEnvelopeSchema>;
export type OffersResponse = z.infer<typeof OffersResponseSchema>;

/** The answer of `GET /products/{id}/similar`: other products, nearest first, none of them the product's own group. */
export const SimilarResponseSchema = z
  .object({ products: z.array(z.object({ pdp: ProductRecordSchema })).describe("Nearest first; possibly none.") })
  .meta({ id: "SimilarResponse", examples: [{ products: [{ pdp: PRODUCT_EXAMPLE }] }] });

export type SimilarResponse = z.infer<typeof SimilarResponseSchema>;

/** The answer of `GET /products/{id}/prices`: the record's price and availability as runs of one state. */
export const PricesResponseSchema = z
  .object({
    id: ProductIdSchema,
    price_low_30d: z.string().nullable().describe("The lowest price in the last 30 days, in the record's currency; null when unknown."),
    price_low_90d: z.string().nullable().describe("The same over the last 90 days."),
    series: z
      .array(
        z.object({
          since: TimestampSchema.describe("When an import or refresh first found this state."),
          until: TimestampSchema.nullable().describe("When a different state replaced it; null for the state now."),
          price: z.string().nullable().describe("Decimal price in `currency`; null when the page stated none."),
          currency: z.string().nullable(),
          availability: z.string().nullable().describe("schema.org availability name; null when the page stated none."),
        }),
      )
      .describe("Oldest first; a run where nothing changed is one entry, however often the page was read."),
  })
  .meta({
    id: "PricesResponse",
    examples: [
      {
        id: "pdp_1af31756fb4791a7a2254914",
        price_low_30d: "329.00",
        price_low_90d: "329.00",
        series: [
          { since: "2026-10-01T08:00:00.000Z", until: "2026-11-20T08:00:00.000Z", price: "329.00", currency: "USD", availability: "InStock" },
          { since: "2026-11-20T08:00:00.000Z", until: null, price: "349.00", currency: "USD", availability: "InStock" },
        ],
      },
    ],
  });

export type PricesResponse = z.infer<typeof PricesResponseSchema>;
