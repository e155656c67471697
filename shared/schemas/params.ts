/**
 * Request parameters. The same schemas parse REST query strings (where every
 * value arrives as a string) and tRPC inputs (typed values), so each accepts
 * both, and each names its own failure in words a client can act on.
 */
import { z } from "zod";
import { brandHost, parseHttpUrl } from "../url.js";
import { ProductIdSchema } from "./product.js";

/** Message for a value that is missing, repeated, or not text. */
function textError(issue: { input?: unknown }): string {
  if (issue.input === undefined) return "is required";
  if (Array.isArray(issue.input)) return "must be given once";
  return "must be a string";
}

const text = () => z.string({ error: textError });

/** A parameter's own message, except for a repeated one (`?limit=1&limit=2`), which every parameter words alike. */
const givenOnce = (message: string) => (issue: { input?: unknown }) => (Array.isArray(issue.input) ? "must be given once" : message);

/** Query strings carry `"false"`; coercion would read it as true. */
const BOOLEAN_WORDS: Record<string, boolean> = { true: true, "1": true, false: false, "0": false };
export const IncludeRawDataSchema = z
  .preprocess(
    (value) => (typeof value === "string" && value in BOOLEAN_WORDS ? BOOLEAN_WORDS[value] : value),
    z.boolean({ error: givenOnce("must be true, false, 1 or 0") }),
  )
  .optional()
  .default(false)
  .describe("Include `raw_data` (stripped HTML and the page's JSON) in each record: `true`, `false`, `1` or `0`.")
  // 1 and 0 are documented too, so that validating proxies and generated clients accept what the server does.
  .meta({
    override: ({ jsonSchema }) => {
      jsonSchema.type = undefined;
      jsonSchema.anyOf = [{ type: "boolean" }, { type: "integer", format: "int32", minimum: 0, maximum: 1 }];
      jsonSchema.default = false;
    },
  });

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
export const SearchParamsSchema = z.object({
  q: text()
    .trim()
    .min(1, "must not be empty")
    .max(QUERY_MAX, `must be at most ${QUERY_MAX} characters`)
    .describe(`What the shopper is looking for, 1–${QUERY_MAX} characters after trimming.`),
  brand_url: text()
    .max(URL_MAX, `must be at most ${URL_MAX} characters`)
    .refine((value) => brandHost(value) !== null, "must be a domain such as brand.com or a URL on it")
    .describe("Limit results to one brand's site: a domain (`brand.com`) or any URL on it. Scheme, case, `www.`, port and path are ignored.")
    .optional(),
  limit: LimitSchema,
  include_raw_data: IncludeRawDataSchema,
});

export const GetProductParamsSchema = z.object({
  // The router has decoded the path segment once; an id is never decoded again (`abc%2541` is the id `abc%41`, refused).
  id: ProductIdSchema.describe("The product id."),
  include_raw_data: IncludeRawDataSchema,
});

export const LookupByUrlParamsSchema = z.object({
  url: text()
    .max(URL_MAX, `must be at most ${URL_MAX} characters`)
    .refine((value) => parseHttpUrl(value) !== null, "must be an absolute http(s) URL")
    .describe(
      "The product detail page URL. Scheme, `www.`, case of the host, default port, trailing slash, `#fragment` and tracking parameters (`utm_*`, `gclid`, `fbclid`, …) are ignored.",
    ),
  include_raw_data: IncludeRawDataSchema,
});

export type SearchParams = z.infer<typeof SearchParamsSchema>;
export type SearchParamsInput = z.input<typeof SearchParamsSchema>;
export type GetProductParams = z.infer<typeof GetProductParamsSchema>;
export type LookupByUrlParams = z.infer<typeof LookupByUrlParamsSchema>;
