/**
 * Request parameters. The same schemas parse REST query strings (where every
 * value arrives as a string) and tRPC inputs (typed values), so each accepts
 * both, and each names its own failure in words a client can act on.
 */
import { z } from "zod";
import { isCurrencyCode } from "../currency.js";
import { parseGtin } from "../gtin.js";
import { brandHost, parseHttpUrl } from "../url.js";
import { AVAILABILITY_FILTERS, ProductIdSchema, VIEWS } from "./product.js";

/** Message for a value that is missing, repeated, or not text. */
function textError(issue: { input?: unknown }): string {
  if (issue.input === undefined) return "is required";
  if (Array.isArray(issue.input)) return "must be given once";
  return "must be a string";
}

const text = () => z.string({ error: textError });

/**
 * A name a filter matches exactly: a category, a brand, a SKU. Postgres text cannot hold NUL, so no stored name has one
 * (imports strip it), and a query parameter holding one is an error in Postgres: it is refused here, by name.
 */
export const nameValue = () =>
  text()
    .refine((value) => !value.includes("\u0000"), "must not contain the character U+0000")
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters");

/** A parameter's own message, except for a repeated one (`?limit=1&limit=2`), which every parameter words alike. */
const givenOnce = (message: string) => (issue: { input?: unknown }) => (Array.isArray(issue.input) ? "must be given once" : message);

/**
 * What zod-openapi's `override` meta is given, as far as these schemas use it. Typed here: the meta's type comes from
 * zod-openapi's augmentation of Zod, which a consumer compiling only shared/ (and the router's declaration) does not load.
 */
type JsonSchemaOverride = { jsonSchema: Record<string, unknown> };

/** Query strings carry `"false"`; coercion would read it as true. */
const BOOLEAN_WORDS: Record<string, boolean> = { true: true, "1": true, false: false, "0": false };
function flag(fallback: boolean, description: string) {
  return (
    z
      .preprocess(
        (value) => (typeof value === "string" && value in BOOLEAN_WORDS ? BOOLEAN_WORDS[value] : value),
        z.boolean({ error: givenOnce("must be true, false, 1 or 0") }),
      )
      .optional()
      .default(fallback)
      .describe(description)
      // 1 and 0 are documented too, so that validating proxies and generated clients accept what the server does.
      .meta({
        override: ({ jsonSchema }: JsonSchemaOverride) => {
          jsonSchema.type = undefined;
          jsonSchema.anyOf = [{ type: "boolean" }, { type: "integer", format: "int32", minimum: 0, maximum: 1 }];
          jsonSchema.default = fallback;
        },
      })
  );
}

export const IncludeRawDataSchema = flag(
  false,
  "Include `raw_data` (stripped HTML and the page's JSON) in each record: `true`, `false`, `1` or `0`. Same as `view=full`.",
);

/**
 * One or more values: a repeated query parameter (`brand=a&brand=b`), a JSON array, or, with
 * `commas`, a comma-separated string (`facets=brand,price`).
 */
function list<T extends z.ZodType>(item: T, options: { max: number; commas?: boolean }) {
  const schema = z.preprocess(
    (value) => {
      if (typeof value !== "string") return value;
      return options.commas
        ? value
            .split(",")
            .map((part) => part.trim())
            .filter(Boolean)
        : [value];
    },
    z
      .array(item, { error: "must be a string or a list of strings" })
      .min(1, "must not be empty")
      .max(options.max, `may hold at most ${options.max} values`),
  );
  return options.commas ? schema.meta({ override: ({ jsonSchema }: JsonSchemaOverride) => acceptCommas(jsonSchema) }) : schema;
}

/**
 * The document says what the server reads: a query array is exploded (`facets=brand&facets=price`), so a comma-separated
 * value (`facets=brand,price`) arrives as one item; an item of a list of names is then also a comma-separated list of
 * them, or validating proxies (Prism) and generated clients refuse what the server and the README take.
 */
function acceptCommas(jsonSchema: Record<string, unknown>): void {
  const items = jsonSchema.items;
  if (typeof items !== "object" || items === null || !("enum" in items) || !Array.isArray(items.enum)) return;
  const name = `(?:${items.enum.join("|")})`;
  jsonSchema.items = {
    anyOf: [items, { type: "string", maxLength: 200, pattern: `^\\s*${name}\\s*(?:,\\s*${name}?\\s*)*$`, description: "Several, comma-separated." }],
  };
}

export const ViewSchema = z
  .enum(VIEWS, { error: `must be one of ${VIEWS.join(", ")}` })
  .optional()
  .describe(
    "How much of each record to answer: `compact` (id, name, brand, price, availability, url, one image: for agents that pay per token), `standard` (the full record without raw data; the default), `full` (with `raw_data`, like `include_raw_data=true`).",
  );

export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;
const LIMIT_ERROR = `must be an integer from 1 to ${LIMIT_MAX}`;
export const LimitSchema = z
  .preprocess(
    (value) => (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : value),
    z
      .number({ error: givenOnce(LIMIT_ERROR) })
      .int(LIMIT_ERROR)
      .min(1, LIMIT_ERROR)
      .max(LIMIT_MAX, LIMIT_ERROR),
  )
  .optional()
  .default(LIMIT_DEFAULT)
  .describe(`How many products to return, 1–${LIMIT_MAX}.`)
  .meta({ override: { type: "integer", format: "int32", minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT } });

export const QUERY_MAX = 512;
export const URL_MAX = 2048;
export const SORTS = ["relevance", "price_asc", "price_desc", "newest"] as const;
export const FACETS = ["brand", "category", "availability", "price", "audience", "colour", "material"] as const;
/**
 * Whom a product is made for, as the catalog derives it at import (docs/search/attributes.md): `unisex` suits women and
 * men, `kids` girls and boys.
 */
export const AUDIENCES = ["women", "men", "unisex", "girls", "boys", "kids", "baby"] as const;
export const CURSOR_MAX = 4096;
const FILTERS = [
  "price_min",
  "price_max",
  "availability",
  "category",
  "brand",
  "brand_url",
  "updated_since",
  "exclude",
  "audience",
  "colour",
  "material",
] as const;
export const EXCLUDE_MAX = 10;

/**
 * An instant as a client writes it: an ISO 8601 date (`2026-11-01`, midnight UTC) or date and time with a zone
 * (`2026-11-01T09:30:00Z`, `…+01:00`). Parsed to a Date.
 */
const InstantSchema = text()
  .trim()
  .max(40, "must be an ISO 8601 date (2026-11-01) or date and time with a zone (2026-11-01T09:30:00Z)")
  .refine(
    (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value),
    "must be an ISO 8601 date (2026-11-01) or date and time with a zone (2026-11-01T09:30:00Z)",
  )
  .transform((value, context) => {
    const date = new Date(value);
    // `2026-02-30` would roll over to March: the day must exist as written.
    const day = new Date(`${value.slice(0, 10)}T00:00:00Z`);
    if (Number.isNaN(date.getTime()) || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value.slice(0, 10)) {
      context.addIssue({ code: "custom", message: "is not a real date" });
    }
    return date;
  })
  // The wire form is the string; the Date is what the server works with.
  .meta({ override: { type: "string", format: "date-time", maxLength: 40 } });

/** A price bound as the shopper writes it: a non-negative decimal in `currency`'s major unit. */
const PriceSchema = z
  .preprocess(
    (value) => (typeof value === "number" ? String(value) : value),
    text()
      .trim()
      .max(17, "must be a non-negative decimal such as 19.99")
      .regex(/^\d{1,12}(\.\d{1,4})?$/, "must be a non-negative decimal such as 19.99"),
  )
  .optional();

const CurrencySchema = text()
  .trim()
  .max(3, "must be an ISO 4217 currency code such as USD or EUR")
  .transform((value) => value.toUpperCase())
  .refine(isCurrencyCode, "must be an ISO 4217 currency code such as USD or EUR")
  .optional()
  .describe(
    "ISO 4217 code of the price bounds and price sorts. A price sort considers only products priced in it; so do price bounds, unless the operator set exchange rates (then prices in the currencies they know are compared converted, and a `converted` message says so).",
  );

/** A colour or material as a client writes it: letters, spaces and hyphens; whether the catalog knows it is the server's to say. */
const attributeWord = (what: string) =>
  text()
    .trim()
    .toLowerCase()
    .min(1, "must not be empty")
    .max(40, "must be at most 40 characters")
    .refine(
      (value) => /^\p{L}[\p{L} '-]*$/u.test(value),
      `must be a ${what} word, such as ${what === "colour" ? "grey or navy" : "wool or stainless steel"}`,
    );

export const SearchParamsSchema = z
  .object({
    q: text()
      .trim()
      .min(1, "must not be empty")
      .max(QUERY_MAX, `must be at most ${QUERY_MAX} characters`)
      .optional()
      .describe(
        `What the shopper is looking for, 1–${QUERY_MAX} characters after trimming. Optional when a filter is given (browse). Constraints written in it ("under $200", "in stock", a brand the catalog has) are applied as filters unless \`parse_query=false\`.`,
      )
      // What /docs' request console starts from, so that its first send is a search, not a 400.
      .meta({ examples: ["waterproof hiking jacket"] }),
    brand_url: text()
      .max(URL_MAX, `must be at most ${URL_MAX} characters`)
      .refine((value) => brandHost(value) !== null, "must be a domain such as brand.com or a URL on it")
      .describe("Limit results to one brand's site: a domain (`brand.com`) or any URL on it. Scheme, case, `www.`, port and path are ignored.")
      .optional(),
    price_min: PriceSchema.describe("Lowest price, a decimal in `currency` (which it needs), e.g. `20` or `19.99`."),
    price_max: PriceSchema.describe("Highest price, a decimal in `currency` (which it needs)."),
    currency: CurrencySchema,
    availability: list(z.enum(AVAILABILITY_FILTERS, { error: `must be one of ${AVAILABILITY_FILTERS.join(", ")}` }), { max: 4, commas: true })
      .optional()
      .describe(
        "Only products in these states (any of them): `in_stock` (buyable now: in stock, limited, online or in-store only), `out_of_stock` (out of stock, sold out, discontinued), `preorder`, `backorder`. Comma-separated or repeated. Products whose page states no availability are left out.",
      ),
    category: list(nameValue(), { max: 10 })
      .optional()
      .describe(
        'Only products under this category path (any of them, if repeated): a prefix of whole segments, case-insensitive, e.g. `Outdoor` or `outdoor > tents` matches "Outdoor > Tents > Backpacking".',
      ),
    brand: list(nameValue(), { max: 20 })
      .optional()
      .describe("Only products of these brands (any of them; repeat the parameter): brand names as the records give them, case-insensitive."),
    audience: list(z.enum(AUDIENCES, { error: `must be one of ${AUDIENCES.join(", ")}` }), { max: AUDIENCES.length, commas: true })
      .optional()
      .describe(
        "Only products made for these audiences (any of them), as the catalog reads them from names and categories: `women` (and unisex), `men` (and unisex), `unisex`, `girls` (and kids), `boys` (and kids), `kids` (girls, boys and babies too), `baby`. Comma-separated or repeated. Products that name no audience are left out.",
      ),
    colour: list(attributeWord("colour"), { max: 10, commas: true })
      .optional()
      .describe(
        "Only products of these colours (any of them): a colour family (`black`, `white`, `grey`, `blue`, `green`, `red`, `pink`, `purple`, `orange`, `yellow`, `brown`, `beige`, `silver`, `gold`, `multicolour`) or a word for one (`gray`, `navy`, `charcoal`), as the `colour` facet counts them. Comma-separated or repeated. Products that state no colour are left out.",
      ),
    material: list(attributeWord("material"), { max: 10, commas: true })
      .optional()
      .describe(
        "Only products of these materials (any of them): a material family (`wool`, `cotton`, `steel`, `wood`, `glass`, …) or a word for one (`merino`, `stainless`, `oak`), as the `material` facet counts them. Comma-separated or repeated.",
      ),
    exclude: list(
      nameValue().refine((value) => /[\p{L}\p{N}]/u.test(value), "must hold a letter or a digit"),
      { max: EXCLUDE_MAX, commas: true },
    )
      .optional()
      .describe(
        "Leave out products holding any of these words, matched as full text matches them (stemmed, in the name, brands or description): `exclude=down` for jackets that are not down jackets. Comma-separated or repeated. In `q`, a word written with a minus in front (`jacket -down`) is read as this unless `parse_query=false`.",
      ),
    updated_since: InstantSchema.optional().describe(
      "Only products whose record changed at or after this instant (its `updated_at`): an ISO 8601 date (`2026-11-01`) or date and time with a zone (`2026-11-01T09:30:00Z`).",
    ),
    sort: z
      .enum(SORTS, { error: `must be one of ${SORTS.join(", ")}` })
      .optional()
      .describe("`relevance` (the default with `q`), `price_asc` or `price_desc` (need `currency`), `newest` (the default without `q`)."),
    cursor: text()
      .max(CURSOR_MAX, `must be at most ${CURSOR_MAX} characters`)
      .optional()
      .describe("`next_cursor` of the previous page, to continue exactly where it stopped; valid only with the same query and filters."),
    facets: list(z.enum(FACETS, { error: `must be one of ${FACETS.join(", ")}` }), { max: FACETS.length, commas: true })
      .optional()
      .describe(
        "Counts over the whole matched set, for any of `brand`, `category`, `availability`, `price` (price as buckets per currency), `audience`, `colour`, `material`.",
      ),
    parse_query: flag(
      true,
      'Read constraints written in `q` (price, stock, brand) as filters, and leave out words that only ask ("help me find a", "please"); `false` searches every word of `q`.',
    ),
    typos: flag(
      true,
      "Correct words of `q` the catalog does not hold to its closest words, and join or split words as the catalog writes them (both are searched; `interpretation` shows each correction); `false` searches the words as typed. Numbers and codes are never corrected.",
    ),
    synonyms: flag(
      true,
      "Search the synonyms of the query's words beside them (the built-in set for shopping English and the operator's SYNONYMS_FILE; `interpretation.synonyms` lists those applied); `false` searches without them, as a shopper who removes one would.",
    ),
    explain: flag(false, "Add to each result why it matched: fields and words, lexical, semantic and rerank scores, filters applied."),
    collapse: z
      .enum(["group", "none"], { error: "must be group or none" })
      .optional()
      .describe(
        "`group` (the default): one result per product, the best-matching of the records of its product group (the same product at several merchants; its `product_group.offers` says how many, `GET /products/{id}/offers` lists them). `none`: every merchant's record.",
      ),
    view: ViewSchema,
    limit: LimitSchema,
    include_raw_data: IncludeRawDataSchema,
  })
  // Runs even when a parameter failed, so every bad parameter is reported at once; values may be unparsed here.
  .superRefine(
    (params, context) => {
      if (typeof params !== "object" || params === null) return;
      const issue = (path: string, message: string) => context.addIssue({ code: "custom", path: [path], message });
      if (params.q === undefined && !FILTERS.some((filter) => params[filter] !== undefined)) {
        issue("q", `is required unless a filter is given (${FILTERS.join(", ")})`);
      }
      for (const bound of ["price_min", "price_max"] as const) {
        if (params[bound] !== undefined && params.currency === undefined)
          issue("currency", `is required with ${bound}: it says what the amount is in`);
      }
      if (typeof params.sort === "string" && params.sort.startsWith("price_") && params.currency === undefined) {
        issue("currency", `is required with sort=${params.sort}: prices in different currencies cannot be ordered`);
      }
      const [low, high] = [Number(params.price_min), Number(params.price_max)];
      if (params.price_min !== undefined && params.price_max !== undefined && low > high) {
        issue("price_min", `must not be above price_max (${params.price_min} > ${params.price_max})`);
      }
      viewConflict(params, context);
    },
    { when: () => true },
  );

function viewConflict(params: { view?: string | undefined; include_raw_data: boolean }, context: z.RefinementCtx) {
  if (params.view === "compact" && params.include_raw_data) {
    context.addIssue({ code: "custom", path: ["view"], message: "compact leaves raw data out: drop include_raw_data or ask view=full" });
  }
}

export const GetProductParamsSchema = z
  .object({
    // The router has decoded the path segment once; an id is never decoded again (`abc%2541` is the id `abc%41`, refused).
    id: ProductIdSchema.describe("The product id.").meta({ examples: ["pdp_1af31756fb4791a7a2254914"] }),
    view: ViewSchema,
    include_raw_data: IncludeRawDataSchema,
  })
  .superRefine(viewConflict);

/** `GET /products/{id}/offers`: the product's offers at every merchant, with search's currency and availability filters. */
export const OffersParamsSchema = z.object({
  id: ProductIdSchema.describe("The id of any record of the product.").meta({ examples: ["pdp_1af31756fb4791a7a2254914"] }),
  currency: CurrencySchema.describe("Only offers priced in this ISO 4217 currency."),
  availability: list(z.enum(AVAILABILITY_FILTERS, { error: `must be one of ${AVAILABILITY_FILTERS.join(", ")}` }), { max: 4, commas: true })
    .optional()
    .describe(
      "Only offers in these states (any of them): `in_stock`, `out_of_stock`, `preorder`, `backorder`, as for search. Offers whose page states no availability are left out.",
    ),
  limit: LimitSchema.describe(`How many offers to return, 1–${LIMIT_MAX}.`),
});

/** `GET /products/{id}/similar`: other products like this one, with search's scope and offer filters. */
export const SimilarParamsSchema = z
  .object({
    id: ProductIdSchema.describe("The product to find others like.").meta({ examples: ["pdp_1af31756fb4791a7a2254914"] }),
    brand_url: text()
      .max(URL_MAX, `must be at most ${URL_MAX} characters`)
      .refine((value) => brandHost(value) !== null, "must be a domain such as brand.com or a URL on it")
      .describe("Only products of one brand's site: a domain (`brand.com`) or any URL on it.")
      .optional(),
    currency: CurrencySchema.describe("Only products priced in this ISO 4217 currency."),
    availability: list(z.enum(AVAILABILITY_FILTERS, { error: `must be one of ${AVAILABILITY_FILTERS.join(", ")}` }), { max: 4, commas: true })
      .optional()
      .describe("Only products in these states (any of them): `in_stock`, `out_of_stock`, `preorder`, `backorder`, as for search."),
    limit: LimitSchema.describe(`How many products to return, 1–${LIMIT_MAX}.`),
    view: ViewSchema,
    include_raw_data: IncludeRawDataSchema,
  })
  .superRefine(viewConflict);

/** `GET /products/{id}/prices`: the record's price history from `since`. */
export const PricesParamsSchema = z.object({
  id: ProductIdSchema.describe("The product.").meta({ examples: ["pdp_1af31756fb4791a7a2254914"] }),
  since: InstantSchema.optional().describe(
    "From when: an ISO 8601 date (`2026-11-01`) or date and time with a zone. The runs in effect at any time since are answered; the default is 90 days ago.",
  ),
});

const UrlSchema = text()
  .max(URL_MAX, `must be at most ${URL_MAX} characters`)
  .refine((value) => parseHttpUrl(value) !== null, "must be an absolute http(s) URL");

/** A GTIN as pages write it (UPC-A, EAN-13, ISBN-13, GTIN-8 or -14, spaces and hyphens allowed), with a check digit that checks out. */
export const GtinSchema = z
  // MCP clients (the Inspector's CLI among them) send digits as a number unless quoted; a number would lose leading zeros.
  .string({
    error: (issue) =>
      typeof issue.input === "number" ? "must be a string of digits, in quotes: a number loses a GTIN's leading zeros" : textError(issue),
  })
  .trim()
  .max(64, "must be at most 64 characters")
  .superRefine((value, context) => {
    const parsed = parseGtin(value);
    if (!parsed.ok) context.addIssue({ code: "custom", message: `is not a valid GTIN: ${parsed.reason}` });
  });

export const LookupByUrlParamsSchema = z
  .object({
    url: UrlSchema.optional()
      .describe(
        "The product detail page URL. Scheme, `www.`, case of the host, default port, trailing slash, `#fragment` and tracking parameters (`utm_*`, `gclid`, `fbclid`, …) are ignored.",
      )
      .meta({ examples: ["https://northpeak.example/products/ridgeline-2p-backpacking-tent?utm_source=newsletter"] }),
    gtin: GtinSchema.optional().describe(
      "Instead of `url`: the product's GTIN (UPC-A, EAN-13, ISBN-13, GTIN-8 or GTIN-14); any of its forms finds it (a UPC-A finds the same product as its EAN-13 with a leading 0).",
    ),
    view: ViewSchema,
    include_raw_data: IncludeRawDataSchema,
    fetch: flag(
      false,
      "Live lookup, with `url`: when the catalog does not hold the page, fetch it from the merchant now, store it and answer it (`true`, `false`, `1` or `0`). Only for the merchant hosts the operator allows (LIVE_LOOKUP_HOSTS; off unless set); costs more rate-limit units when it fetches. A page the catalog holds is answered without a fetch.",
    ),
  })
  .superRefine((params, context) => {
    // Each message reads after its parameter's name, as every problem's detail puts them ("url or gtin is required").
    if (params.url === undefined && params.gtin === undefined) {
      context.addIssue({ code: "custom", path: ["url"], message: "or gtin is required: give exactly one of them" });
    } else if (params.url !== undefined && params.gtin !== undefined) {
      context.addIssue({ code: "custom", path: ["gtin"], message: "cannot be given with url: give exactly one of them" });
    }
    if (params.fetch && params.gtin !== undefined) {
      context.addIssue({ code: "custom", path: ["fetch"], message: "fetches a page by its url; a gtin names no page to fetch" });
    }
    viewConflict(params, context);
  });

export const LOOKUP_MAX = 50;
const LookupInputSchema = z.union(
  [
    z.strictObject({ id: ProductIdSchema.describe("A product id.") }),
    z.strictObject({ url: UrlSchema.describe("A product page URL (normalised as for `GET /products?url=`).") }),
    z.strictObject({ gtin: GtinSchema.describe("A GTIN in any of its forms.") }),
    z.strictObject({
      sku: nameValue().describe("A SKU as the merchant gives it."),
      brand_url: text()
        .max(URL_MAX, `must be at most ${URL_MAX} characters`)
        .refine((value) => brandHost(value) !== null, "must be a domain such as brand.com or a URL on it")
        .optional()
        .describe("The merchant's site, when SKUs of several merchants may collide."),
    }),
  ],
  { error: "must be one of {id}, {url}, {gtin} or {sku, brand_url?}" },
);

export const BatchLookupParamsSchema = z
  .object({
    inputs: z
      .array(LookupInputSchema, { error: "must be a list of lookups" })
      .min(1, "must hold at least one lookup")
      .max(LOOKUP_MAX, `may hold at most ${LOOKUP_MAX} lookups`)
      .describe(`Up to ${LOOKUP_MAX} lookups, each one of {id}, {url}, {gtin} or {sku, brand_url?}; answered one each, in order.`),
    view: ViewSchema,
    include_raw_data: IncludeRawDataSchema,
  })
  .superRefine(viewConflict);

export type SearchParams = z.infer<typeof SearchParamsSchema>;
export type SearchParamsInput = z.input<typeof SearchParamsSchema>;
export type GetProductParams = z.infer<typeof GetProductParamsSchema>;
export type OffersParams = z.infer<typeof OffersParamsSchema>;
export type SimilarParams = z.infer<typeof SimilarParamsSchema>;
export type PricesParams = z.infer<typeof PricesParamsSchema>;
export type LookupByUrlParams = z.infer<typeof LookupByUrlParamsSchema>;
export type LookupInput = z.infer<typeof LookupInputSchema>;
export type BatchLookupParams = z.infer<typeof BatchLookupParamsSchema>;
export type View = NonNullable<z.infer<typeof ViewSchema>>;
export type Sort = (typeof SORTS)[number];
export type Facet = (typeof FACETS)[number];
