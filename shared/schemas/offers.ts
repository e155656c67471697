/** The answer of `GET /products/{id}/offers`: one product's offers, one a merchant, cheapest in stock first. */
import { z } from "zod";
import { PRODUCT_EXAMPLE, ProductGroupSchema, ProductIdSchema, ProductRecordSchema, TimestampSchema } from "./product.js";

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

export type Offer = z.infer<typeof OfferSchema>;
export type OffersResponse = z.infer<typeof OffersResponseSchema>;

/** The answer of `GET /products/{id}/similar`: other products, nearest first, none of them the product's own group. */
export const SimilarResponseSchema = z
  .object({ products: z.array(z.object({ pdp: ProductRecordSchema })).describe("Nearest first; possibly none.") })
  .meta({ id: "SimilarResponse", examples: [{ products: [{ pdp: PRODUCT_EXAMPLE }] }] });

export type SimilarResponse = z.infer<typeof SimilarResponseSchema>;
