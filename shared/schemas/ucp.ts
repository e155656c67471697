/**
 * The Universal Commerce Protocol's catalog capability (dev.ucp.shopping.catalog.search and .lookup),
 * release 2026-04-08, written from its JSON Schemas (../shared/reference/ucp/source/schemas) as the
 * contract the server validates with. Requests are open where the protocol's schemas are open
 * (context, signals, attribution, filters accept members they do not name); answers hold only what
 * this catalog states. tests/integration/ucp*.test.ts validate both against the protocol's own schemas.
 */
import { z } from "zod";
import { AUDIENCES, nameValue } from "./params.js";

/** The protocol release this service implements (`ucp.version` in every answer and in /.well-known/ucp). */
export const UCP_VERSION = "2026-04-08";
export const UCP_SEARCH = "dev.ucp.shopping.catalog.search";
export const UCP_LOOKUP = "dev.ucp.shopping.catalog.lookup";
export const UCP_SHOPPING = "dev.ucp.shopping";

/** The protocol's page size when a request names none (pagination.json: `default: 10`). */
export const UCP_LIMIT_DEFAULT = 10;
/** Most identifiers one lookup takes, as the REST API's batch lookup; more is `request_too_large`. */
export const UCP_LOOKUP_MAX = 50;
/** Statuses the `availability` filter takes: the protocol's well-known `availability.status` values this catalog can tell apart. */
export const UCP_AVAILABILITY_FILTERS = ["in_stock", "out_of_stock", "preorder", "backorder"] as const;

const VersionSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD");
const amount = z.int("must be an integer amount in minor units").min(0, "must not be negative").max(Number.MAX_SAFE_INTEGER);

// Requests.

export const UcpContextSchema = z
  .looseObject({
    address_country: z.string().optional(),
    address_region: z.string().optional(),
    postal_code: z.string().optional(),
    location: z.string().optional(),
    intent: z.string().optional(),
    language: z.string().optional(),
    currency: z
      .string()
      .optional()
      .describe("ISO 4217: the currency the price filter is in (converted to others only with the operator's exchange rates)."),
    eligibility: z.array(z.string()).optional(),
    payment: z.array(z.looseObject({ handler: z.string(), types: z.array(z.string()).optional() })).optional(),
  })
  .describe("Provisional buyer context. `currency` denominates the price filter; the rest are hints this catalog does not use.");

const opaque = z.looseObject({});

export const UcpPriceFilterSchema = z
  .object({
    min: amount.optional().describe("Lowest price, in minor units of `context.currency` (cents for USD)."),
    max: amount.optional().describe("Highest price, in minor units of `context.currency`."),
  })
  .describe("A price range in minor units of `context.currency`; ignored (with a message) without it.");

export const UcpSearchFiltersSchema = z
  .looseObject({
    categories: z
      .array(nameValue())
      .max(10, "may hold at most 10 categories")
      .optional()
      .describe('Any of these category paths, as answers give them (`"Outdoor > Tents"`); a path also matches the categories under it.'),
    price: UcpPriceFilterSchema.optional(),
    brands: z
      .array(nameValue())
      .max(20, "may hold at most 20 brands")
      .optional()
      .describe("This catalog's own filter: any of these brand names (case-insensitive)."),
    availability: z
      .array(z.enum(UCP_AVAILABILITY_FILTERS, { error: `must be one of ${UCP_AVAILABILITY_FILTERS.join(", ")}` }))
      .min(1, "must not be empty")
      .optional()
      .describe("This catalog's own filter: any of these `availability.status` values."),
    audience: z
      .array(z.enum(AUDIENCES, { error: `must be one of ${AUDIENCES.join(", ")}` }))
      .min(1, "must not be empty")
      .max(AUDIENCES.length, `may hold at most ${AUDIENCES.length} audiences`)
      .optional()
      .describe(
        "This catalog's own filter: products made for any of these audiences, as the catalog reads them from names and categories (`women` takes unisex products too, `kids` girls' and boys').",
      ),
    colors: z
      .array(nameValue())
      .min(1, "must not be empty")
      .max(10, "may hold at most 10 colors")
      .optional()
      .describe("This catalog's own filter: products of any of these colour families (`grey`, `blue`, …) or words for one (`gray`, `navy`)."),
  })
  .describe("All given filters apply (AND). Filters this catalog does not know are ignored, and the answer's messages say so.");

export const UcpSearchRequestSchema = z
  .looseObject({
    query: z.string().max(512, "must be at most 512 characters").optional().describe("Free-text search query."),
    context: UcpContextSchema.optional(),
    signals: opaque.optional(),
    attribution: opaque.optional(),
    filters: UcpSearchFiltersSchema.optional(),
    pagination: z
      .object({
        cursor: z.string().max(4096, "must be at most 4096 characters").optional().describe("`pagination.cursor` of the previous answer."),
        limit: z.int("must be an integer").min(1, "must be at least 1").optional().describe("Page size; at most 100 are answered."),
      })
      .optional(),
  })
  .meta({ id: "UcpSearchRequest" });

export const UcpLookupRequestSchema = z
  .looseObject({
    ids: z
      .array(z.string().min(1, "must not be empty").max(2048, "must be at most 2048 characters"), { error: "must be a list of identifiers" })
      .min(1, "must hold at least one identifier")
      .max(UCP_LOOKUP_MAX, `may hold at most ${UCP_LOOKUP_MAX} identifiers`)
      .describe("Product ids, variant ids, page URLs, GTINs (UPC, EAN, ISBN) or SKUs."),
    filters: UcpSearchFiltersSchema.optional(),
    context: UcpContextSchema.optional(),
    signals: opaque.optional(),
    attribution: opaque.optional(),
  })
  .meta({ id: "UcpLookupRequest" });

export const UcpSelectedOptionSchema = z.object({ name: z.string(), id: z.string().optional(), label: z.string() });

export const UcpGetProductRequestSchema = z
  .looseObject({
    id: z
      .string()
      .min(1, "must not be empty")
      .max(2048, "must be at most 2048 characters")
      .describe("A product id or a variant id (or a page URL, GTIN or SKU)."),
    selected: z
      .array(UcpSelectedOptionSchema)
      .optional()
      .refine((selected) => new Set(selected?.map((option) => option.name)).size === (selected?.length ?? 0), "may name each option once")
      .describe("Options chosen so far, e.g. `[{name: Size, label: M}]`."),
    preferences: z.array(z.string()).optional().describe("Option names in the order to keep them when no variant matches every selection."),
    filters: UcpSearchFiltersSchema.optional(),
    context: UcpContextSchema.optional(),
    signals: opaque.optional(),
    attribution: opaque.optional(),
  })
  .meta({ id: "UcpGetProductRequest" });

/** MCP's request metadata (`meta["ucp-agent"].profile`), the HTTP binding's `UCP-Agent` header. */
export const UcpMetaSchema = z.looseObject({
  "ucp-agent": z.object({ profile: z.url({ error: "must be the URL of the platform's UCP profile" }) }),
  "idempotency-key": z.string().optional(),
});

// Answers.

export const UcpCapabilityRefSchema = z.object({ version: VersionSchema });

export const UcpResponseMetaSchema = z.object({
  version: VersionSchema,
  status: z.enum(["success", "error"]).optional(),
  capabilities: z.record(z.string(), z.array(UcpCapabilityRefSchema)).optional(),
});

const messageBase = {
  path: z.string().optional().describe("JSONPath (RFC 9535) to what the message is about."),
  content_type: z.enum(["plain", "markdown"]).optional(),
  content: z.string(),
};

export const UcpMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("error"),
    code: z.string(),
    severity: z.enum(["recoverable", "requires_buyer_input", "requires_buyer_review", "unrecoverable"]),
    ...messageBase,
  }),
  z.object({ type: z.literal("warning"), code: z.string(), presentation: z.string().optional(), ...messageBase }),
  z.object({ type: z.literal("info"), code: z.string().optional(), ...messageBase }),
]);

export const UcpPriceSchema = z.object({
  amount: amount.describe("In minor units of `currency` (cents for USD, yen for JPY)."),
  currency: z.string().regex(/^[A-Z]{3}$/),
});
const PriceRangeSchema = z.object({ min: UcpPriceSchema, max: UcpPriceSchema });
const DescriptionSchema = z.object({ plain: z.string() });
const MediaSchema = z.object({ type: z.string(), url: z.url(), alt_text: z.string().optional() });
const CategorySchema = z.object({ value: z.string(), taxonomy: z.string().optional() });
const AvailabilitySchema = z.object({ available: z.boolean().optional(), status: z.string().optional() });
const BarcodeSchema = z.object({ type: z.string(), value: z.string() });

/**
 * One merchant's offer of a variant: the shape of the upstream proposal for per-seller offers (UCP issue #810, pull
 * request #811: `offer.json`), not of the ratified release. The seller is the merchant whose page the record is;
 * `item_id` is this catalog's id of that merchant's record (the proposal's seller checkout item id is not known here).
 */
export const UcpOfferSchema = z.object({
  seller: z.object({ domain: z.string(), name: z.string().optional() }),
  item_id: z.string(),
  price: UcpPriceSchema,
  availability: AvailabilitySchema.optional(),
  url: z.url().optional(),
});

export const UcpVariantSchema = z.object({
  id: z.string(),
  sku: z.string().optional(),
  barcodes: z.array(BarcodeSchema).optional(),
  title: z.string(),
  description: DescriptionSchema,
  url: z.url().optional(),
  price: UcpPriceSchema,
  list_price: UcpPriceSchema.optional(),
  availability: AvailabilitySchema.optional(),
  options: z.array(UcpSelectedOptionSchema).optional(),
  media: z.array(MediaSchema).optional(),
  seller: z.object({ name: z.string().optional() }).optional(),
  offers: z
    .array(UcpOfferSchema)
    .optional()
    .describe(
      "Proposed upstream (UCP #810/#811), not in the ratified release: every merchant's offer of this product (its product group), in stock first, then cheapest; on the variant the record's page selects, when more than one merchant sells it.",
    ),
});

const ProductOptionSchema = z.object({ name: z.string(), values: z.array(z.object({ label: z.string() })).min(1) });

export const UcpProductSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: DescriptionSchema,
  url: z.url().optional(),
  categories: z.array(CategorySchema).optional(),
  price_range: PriceRangeSchema,
  list_price_range: PriceRangeSchema.optional(),
  media: z.array(MediaSchema).optional(),
  options: z.array(ProductOptionSchema).optional(),
  variants: z.array(UcpVariantSchema).min(1),
  metadata: z.object({ brands: z.array(z.string()).optional() }).optional(),
});

export const UcpInputCorrelationSchema = z.object({ id: z.string(), match: z.enum(["exact", "featured"]) });

export const UcpLookupVariantSchema = UcpVariantSchema.extend({ inputs: z.array(UcpInputCorrelationSchema).min(1) });
export const UcpLookupProductSchema = UcpProductSchema.extend({ variants: z.array(UcpLookupVariantSchema).min(1) });

export const UcpDetailProductSchema = UcpProductSchema.extend({
  selected: z.array(UcpSelectedOptionSchema).optional(),
  options: z
    .array(
      z.object({
        name: z.string(),
        values: z.array(z.object({ label: z.string(), available: z.boolean(), exists: z.boolean() })).min(1),
      }),
    )
    .optional(),
});

export const UcpSearchResponseSchema = z
  .object({
    ucp: UcpResponseMetaSchema,
    products: z.array(UcpProductSchema),
    pagination: z.object({ cursor: z.string().optional(), has_next_page: z.boolean() }).optional(),
    messages: z.array(UcpMessageSchema).optional(),
  })
  .meta({ id: "UcpSearchResponse" });

export const UcpLookupResponseSchema = z
  .object({ ucp: UcpResponseMetaSchema, products: z.array(UcpLookupProductSchema), messages: z.array(UcpMessageSchema).optional() })
  .meta({ id: "UcpLookupResponse" });

/** An application error (`ucp.status: "error"`): get_product's answer when the id resolves to nothing; and every transport error's body. */
export const UcpErrorResponseSchema = z
  .strictObject({ ucp: UcpResponseMetaSchema, messages: z.array(UcpMessageSchema).min(1), continue_url: z.url().optional() })
  .meta({ id: "UcpErrorResponse" });

export const UcpGetProductResponseSchema = z
  .union([
    z.object({ ucp: UcpResponseMetaSchema, product: UcpDetailProductSchema, messages: z.array(UcpMessageSchema).optional() }),
    UcpErrorResponseSchema,
  ])
  .meta({ id: "UcpGetProductResponse" });

// Discovery.

const EntitySchema = z.object({ version: VersionSchema, spec: z.url().optional(), schema: z.url().optional() });

export const UcpBusinessProfileSchema = z.object({
  ucp: z.object({
    version: VersionSchema,
    services: z.record(z.string(), z.array(EntitySchema.extend({ transport: z.enum(["rest", "mcp"]), endpoint: z.url() }))),
    capabilities: z.record(z.string(), z.array(EntitySchema)),
    payment_handlers: z.record(z.string(), z.array(z.unknown())),
  }),
});

export type UcpSearchRequest = z.infer<typeof UcpSearchRequestSchema>;
export type UcpLookupRequest = z.infer<typeof UcpLookupRequestSchema>;
export type UcpGetProductRequest = z.infer<typeof UcpGetProductRequestSchema>;
export type UcpSearchFilters = z.infer<typeof UcpSearchFiltersSchema>;
export type UcpContext = z.infer<typeof UcpContextSchema>;
export type UcpMessage = z.infer<typeof UcpMessageSchema>;
export type UcpPrice = z.infer<typeof UcpPriceSchema>;
export type UcpVariant = z.infer<typeof UcpVariantSchema>;
export type UcpOffer = z.infer<typeof UcpOfferSchema>;
export type UcpProduct = z.infer<typeof UcpProductSchema>;
export type UcpLookupProduct = z.infer<typeof UcpLookupProductSchema>;
export type UcpDetailProduct = z.infer<typeof UcpDetailProductSchema>;
export type UcpSelectedOption = z.infer<typeof UcpSelectedOptionSchema>;
export type UcpErrorResponse = z.infer<typeof UcpErrorResponseSchema>;
export type UcpSearchResponse = z.infer<typeof UcpSearchResponseSchema>;
export type UcpLookupResponse = z.infer<typeof UcpLookupResponseSchema>;
export type UcpGetProductResponse = z.infer<typeof UcpGetProductResponseSchema>;
export type UcpBusinessProfile = z.infer<typeof UcpBusinessProfileSchema>;
