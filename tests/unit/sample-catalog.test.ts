/**
 * The sample catalog carries the structured data that search filters on
 * (issue 13): a category, offers agreeing with the price label, and
 * identifiers with valid GTINs; and bench/sample-queries.json grades its
 * products (issue 15). Each check collects every offending line, so a failure
 * names them all.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isCurrencyCode, toMinorUnits } from "../../shared/currency.js";
import { parseGtin } from "../../shared/gtin.js";
import { currencyInText, parseAmount } from "../../server/ingest/extract/price.js";
import { describeIssues, type ImportRecord, ImportRecordSchema } from "../../server/ingest/record.js";
import { CATEGORY_SEPARATOR } from "../../server/catalog/structured.js";
import { SAMPLE_CATALOG_PATH } from "../../server/sample/index.js";

const QUERIES_PATH = new URL("../../bench/sample-queries.json", import.meta.url);

/** bench/sample-queries.json: shopper queries with products graded 3 (exact), 2 (substitute), 1 (related). */
const SampleQueriesSchema = z
  .array(
    z.object({
      q: z.string().min(1),
      grades: z.record(z.string(), z.union([z.literal(1), z.literal(2), z.literal(3)])),
      note: z.string().optional(),
    }),
  )
  .min(40);

/** schema.org's ItemAvailability names. */
const AVAILABILITY = [
  "BackOrder",
  "Discontinued",
  "InStock",
  "InStoreOnly",
  "LimitedAvailability",
  "MadeToOrder",
  "OnlineOnly",
  "OutOfStock",
  "PreOrder",
  "PreSale",
  "Reserved",
  "SoldOut",
];

/** How the sample's pages word each availability they use. */
const STOCK_WORDING: Record<string, RegExp> = {
  InStock: /<p>In stock<\/p>/,
  OutOfStock: /<p>Out of stock\b/,
  PreOrder: /<p>Pre-order\b/,
  BackOrder: /<p>Backordered\b/,
  LimitedAvailability: /<p>Only \d+ left in stock<\/p>/,
};

/** What the sample's JSON-LD Product states about the offer and identifiers. */
const SampleJsonLdSchema = z.object({
  sku: z.string(),
  gtin13: z.string().optional(),
  gtin12: z.string().optional(),
  mpn: z.string().optional(),
  offers: z.object({ price: z.string(), priceCurrency: z.string(), availability: z.string() }),
});

const lines = readFileSync(SAMPLE_CATALOG_PATH, "utf8").trimEnd().split("\n");
const parsed = lines.map((line, i) => ({ line: i + 1, result: ImportRecordSchema.safeParse(JSON.parse(line)) }));
const records = parsed.flatMap(({ line, result }) => (result.success ? [{ line, record: result.data }] : []));

/** `line N: problem` for every record where `check` finds one. */
function problems(check: (record: ImportRecord) => string | undefined): string[] {
  return records.flatMap(({ line, record }) => {
    const problem = check(record);
    return problem ? [`line ${line}: ${problem}`] : [];
  });
}

/** The label's price (the low end of a range) and its crossed-out price: `$20.00 – $35.00`, `249,00 € (was 299,00 €)`. */
function readLabel(label: string, currency: string): { price: number | null; was: number | null } {
  const [now = "", was] = label.split(" (was ");
  const units = (text: string) => {
    const amount = parseAmount(text, currency);
    return amount === null ? null : toMinorUnits(amount, currency);
  };
  return { price: units(now.split(" – ")[0]!), was: was === undefined ? null : units(was.replace(/\)$/, "")) };
}

describe("the sample catalog", () => {
  it("is a valid import record on every line", () => {
    expect(parsed.flatMap(({ line, result }) => (result.success ? [] : [`line ${line}: ${describeIssues(result.error)}`]))).toEqual([]);
    expect(records.length).toBeGreaterThan(200);
  });

  it("gives every product a category path of two or three segments", () => {
    expect(
      problems(({ category }) => {
        const segments = category?.split(CATEGORY_SEPARATOR) ?? [];
        return segments.length >= 2 && segments.length <= 3 && segments.every((s) => s.trim() === s && s !== "") ? undefined : `category ${category}`;
      }),
    ).toEqual([]);
  });

  it("gives every product a price in a known currency and a schema.org availability", () => {
    expect(
      problems(({ offers }) => {
        if (!offers?.price || !offers.currency) return "no price or currency";
        if (!isCurrencyCode(offers.currency)) return `unknown currency ${offers.currency}`;
        if (toMinorUnits(offers.price, offers.currency) === null) return `price ${offers.price} is not an amount`;
        if (!AVAILABILITY.includes(offers.availability ?? "")) return `availability ${offers.availability}`;
        if (offers.was_price != null && !(Number(offers.was_price) > Number(offers.price)))
          return `was_price ${offers.was_price} not above ${offers.price}`;
        return undefined;
      }),
    ).toEqual([]);
  });

  it("states prices that agree with the price label", () => {
    expect(
      problems(({ price_label, offers }) => {
        const currency = offers?.currency ?? "";
        if (currencyInText(price_label) !== currency) return `label ${price_label} is not in ${currency}`;
        const label = readLabel(price_label, currency);
        const price = toMinorUnits(offers?.price ?? "", currency);
        const was = offers?.was_price == null ? null : toMinorUnits(offers.was_price, currency);
        return label.price === price && label.was === was ? undefined : `label ${price_label} vs price ${offers?.price} was ${offers?.was_price}`;
      }),
    ).toEqual([]);
  });

  it("gives every product a SKU, and only valid GTINs written as digits", () => {
    expect(
      problems(({ identifiers }) => {
        if (!identifiers?.sku) return "no sku";
        if (identifiers.gtin === null) return undefined;
        const gtin = parseGtin(identifiers.gtin);
        if (!gtin.ok) return `gtin ${identifiers.gtin}: ${gtin.reason}`;
        return gtin.digits === identifiers.gtin ? undefined : `gtin ${identifiers.gtin} is not bare digits`;
      }),
    ).toEqual([]);
  });

  it("says on the page what its availability is", () => {
    expect(
      problems(({ raw_data, offers }) => {
        const wording = STOCK_WORDING[offers?.availability ?? ""];
        return wording?.test(raw_data?.strippedHtml ?? "") ? undefined : `the page does not say ${offers?.availability}`;
      }),
    ).toEqual([]);
  });

  it("agrees with its own page: the JSON-LD states the same offer and identifiers", () => {
    expect(
      problems(({ raw_data, offers, identifiers }) => {
        const ld = SampleJsonLdSchema.safeParse(raw_data?.jsons.ld_json);
        if (!ld.success) return `JSON-LD: ${describeIssues(ld.error)}`;
        const { offers: offer, sku, gtin13, gtin12, mpn } = ld.data;
        const stated = {
          price: offer.price,
          currency: offer.priceCurrency,
          availability: offer.availability.replace("https://schema.org/", ""),
          sku,
          gtin: gtin13 ?? gtin12 ?? null,
          mpn: mpn ?? null,
        };
        const record = { price: offers?.price, currency: offers?.currency, availability: offers?.availability, ...identifiers };
        return JSON.stringify(stated) === JSON.stringify(record) ? undefined : `JSON-LD ${JSON.stringify(stated)} vs ${JSON.stringify(record)}`;
      }),
    ).toEqual([]);
  });

  it("is what the graded shopper queries grade: every graded URL is a product here", () => {
    const queries = SampleQueriesSchema.parse(JSON.parse(readFileSync(QUERIES_PATH, "utf8")));
    const urls = new Set(records.map(({ record }) => record.url));
    expect(queries.flatMap(({ q, grades }) => Object.keys(grades).flatMap((url) => (urls.has(url) ? [] : [`${q}: ${url}`])))).toEqual([]);
    expect(new Set(queries.map(({ q }) => q)).size).toBe(queries.length);
  });
});
