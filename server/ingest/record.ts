/**
 * The importable record: the API's product shape, where only `url` and `name`
 * are required. The id, if absent, is derived from the normalised URL.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { isCurrencyCode } from "../../shared/currency.js";
import { parseGtin } from "../../shared/gtin.js";
import { MediaSchema, ProductIdSchema, ProvenanceSchema, RawDataSchema } from "../../shared/schemas/index.js";
import { brandHost, parseHttpUrl, productUrlKey } from "../../shared/url.js";
import { productIdFromUrlKey } from "../catalog/ids.js";
import { deriveAttributes } from "../catalog/attributes/derive.js";
import { CATEGORY_SEPARATOR, deriveStructured, normalizeAvailability } from "../catalog/structured.js";
import { variantSkuKeys } from "../catalog/variants.js";
import { ownGroupId } from "../matching/groups.js";
import type { NewProductRow } from "../db/schema.js";
import { embeddingText } from "../search/embedding-text.js";
import { productLanguage } from "../search/languages/detect.js";
import { type ImportLimits, overCap } from "./limits.js";
import { cleanStrings, MAX_JSON_DEPTH, nestedDeeperThan } from "./sanitize.js";

/**
 * A required string's own error: "is required" only when it is missing. (A message given as the schema's `error` is
 * also every check's message that has none of its own: a 200,000-character name was reported as "is required".)
 */
export const required = { error: (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : "must be a string") };

/** A length cap's message: the limit, and how long the value was, so the operator knows what to cut. */
function atMost(max: number) {
  return {
    error: (issue: { input?: unknown }) =>
      `is too long: at most ${max.toLocaleString("en")} characters${typeof issue.input === "string" ? `, this one has ${issue.input.length.toLocaleString("en")}` : ""}`,
  };
}

/** A price as feeds write it: a decimal string, or a JSON number. */
const DecimalSchema = z
  .union([z.string().trim(), z.number().nonnegative().transform(String)], { error: "must be a decimal such as 24.99" })
  .pipe(z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, "must be a non-negative decimal such as 24.99"));

/** Offers as an import takes them: every member checked, and spelled the one way the catalog stores. */
const ImportOffersSchema = z.object({
  price: DecimalSchema.nullable().default(null),
  currency: z
    .string()
    .trim()
    .transform((value) => value.toUpperCase())
    .refine(isCurrencyCode, "must be an ISO 4217 currency code such as USD or EUR")
    .nullable()
    .default(null),
  availability: z
    .string()
    .transform((value, context) => {
      const name = normalizeAvailability(value);
      if (name === null) context.addIssue({ code: "custom", message: "must be a schema.org availability such as InStock, OutOfStock, PreOrder" });
      return name ?? value;
    })
    .nullable()
    .default(null),
  was_price: DecimalSchema.nullable().optional(),
});

const ImportIdentifiersSchema = z.object({
  sku: z.string().trim().max(200, atMost(200)).nullable().default(null),
  gtin: z
    .string()
    .transform((value, context) => {
      const parsed = parseGtin(value);
      if (!parsed.ok) context.addIssue({ code: "custom", message: `is not a valid GTIN: ${parsed.reason}` });
      return parsed.ok ? parsed.digits : value;
    })
    .nullable()
    .default(null),
  mpn: z.string().trim().max(200, atMost(200)).nullable().default(null),
});

/**
 * A supplied vector's numbers, checked in one loop: as an array of `z.number()`, zod's parse of each of 512 elements
 * was half of a line's check (~55 of 120 µs), which a bulk load does a million times.
 */
const VectorSchema = z.custom<number[]>().superRefine((value, context) => {
  if (!Array.isArray(value)) return context.addIssue({ code: "custom", message: "must be an array of numbers" });
  // Finite, as z.number() is: a record built in code (a feed's, a crawl's) can hold NaN or Infinity where JSON cannot.
  const at = value.findIndex((x) => !Number.isFinite(x));
  if (at >= 0) context.addIssue({ code: "custom", message: "must hold numbers only", path: [at] });
  if (value.length === 0) context.addIssue({ code: "custom", message: "must not be empty" });
  if (value.length > 16_000) context.addIssue({ code: "custom", message: "holds at most 16,000 numbers" });
});

export const ImportRecordSchema = z.object({
  id: ProductIdSchema.optional(),
  url: z
    .string(required)
    .max(2048, atMost(2048))
    .refine((value) => parseHttpUrl(value) !== null, "must be an absolute http(s) URL"),
  name: z.string(required).trim().min(1, "must not be empty").max(1000, atMost(1000)),
  desc: z.string().max(100_000, atMost(100_000)).default(""),
  media: z
    .array(MediaSchema.extend({ url: z.string().refine((value) => parseHttpUrl(value) !== null, "must be an absolute http(s) URL") }))
    .max(200)
    .default([]),
  brands: z
    .array(z.string().trim().min(1).max(200, atMost(200)))
    .max(20)
    .default([]),
  price_label: z.string().max(200, atMost(200)).default(""),
  raw_data: RawDataSchema.nullable()
    .optional()
    .refine((value) => !nestedDeeperThan(value), `must not nest JSON deeper than ${MAX_JSON_DEPTH} levels`),
  offers: ImportOffersSchema.nullable().optional(),
  identifiers: ImportIdentifiersSchema.nullable().optional(),
  /** The product's category as a path; an array of segments is joined with " > ". */
  category: z
    .union([z.string(), z.array(z.string().trim().min(1).max(200, atMost(200))).max(20)])
    .transform((value) => (Array.isArray(value) ? value.join(CATEGORY_SEPARATOR) : value.trim()))
    .pipe(z.string().max(1000, atMost(1000)))
    .nullable()
    .optional(),
  /** Per field, the layer it was read from and how sure the extractor is (see docs/extraction.md). */
  provenance: ProvenanceSchema.nullable().optional(),
  /**
   * The record's vector, made beforehand by the catalog's model, so the import stores it instead of embedding the
   * record (checked against the model's name and dimensions in ingest/vectors.ts). Not part of the content hash.
   */
  embedding: z
    .object({
      model: z.string(required).trim().min(1, "must not be empty").max(200, atMost(200)),
      vector: VectorSchema,
    })
    .optional(),
});

export type ImportRecord = z.infer<typeof ImportRecordSchema>;

/** A record ready to store, except for its vector. */
export type PreparedRecord = Omit<NewProductRow, "embedding" | "embeddingModel"> & { id: string; embeddingText: string };

/** Key order fixed, so the same content always hashes the same. */
function contentHash(record: ImportRecord, id: string): string {
  const canonical = [
    id,
    record.url,
    record.name,
    record.desc,
    record.media,
    record.brands,
    record.price_label,
    record.raw_data ?? null,
    record.offers ?? null,
    record.identifiers ?? null,
    record.category ?? null,
    record.provenance ?? null,
  ];
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/** Why a valid record is still refused under the import's caps; undefined when it is within them. */
export function exceedsLimits(record: ImportRecord, limits: ImportLimits): string | undefined {
  const html = record.raw_data?.strippedHtml;
  // At most 3 UTF-8 bytes per UTF-16 unit: bytes are counted only when the cap is within reach.
  if (html && html.length > limits.maxStrippedHtmlBytes / 3) {
    const size = Buffer.byteLength(html);
    if (size > limits.maxStrippedHtmlBytes)
      return overCap("raw_data.strippedHtml", "IMPORT_MAX_STRIPPED_HTML_BYTES", limits.maxStrippedHtmlBytes, size);
  }
  return undefined;
}

/** The record ready to store: text cleaned of what Postgres refuses (NUL, unpaired surrogates), id and hash derived. */
export function prepareRecord(input: ImportRecord): PreparedRecord {
  const record = cleanStrings(input);
  const urlKey = productUrlKey(record.url) ?? "";
  const id = record.id ?? productIdFromUrlKey(urlKey);
  return {
    id,
    url: record.url,
    urlKey,
    brandHost: brandHost(record.url) ?? "",
    name: record.name,
    desc: record.desc,
    media: dedupeMedia(record.media),
    brands: [...new Set(record.brands)],
    priceLabel: record.price_label,
    rawData: record.raw_data ?? null,
    offers: record.offers ?? null,
    identifiers: record.identifiers ?? null,
    category: record.category || null,
    provenance: record.provenance ?? null,
    ...deriveStructured(record),
    ...deriveAttributes({ name: record.name, url: record.url, desc: record.desc, category: record.category, rawData: record.raw_data }),
    variantSkuKeys: variantSkuKeys(record.raw_data),
    lang: productLanguage(record),
    contentHash: contentHash(record, id),
    // A new record starts alone; an update keeps its group (the upsert never writes this column), matching moves it.
    groupId: ownGroupId(id),
    embeddingText: embeddingText(record),
  };
}

function dedupeMedia(media: ImportRecord["media"]): ImportRecord["media"] {
  const seen = new Set<string>();
  return media.filter((item) => !seen.has(item.url) && seen.add(item.url));
}

/** One line's failure, in words an operator can fix; `at` is where in the line the object checked is (`products.2.`). */
export function describeIssues(error: z.ZodError, at = ""): string {
  const where = (path: PropertyKey[]) => (path.length ? `${at}${path.join(".")}` : at ? at.slice(0, -1) : "record");
  return error.issues.map((issue) => `${where(issue.path)}: ${issue.message}`).join("; ");
}
