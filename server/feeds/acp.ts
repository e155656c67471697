/**
 * The Agentic Commerce Protocol's product feed (OpenAI's commerce product-feed specification): one product a JSON
 * line, in the spec's field names. The schema is written from the spec's published field list (no machine-readable
 * schema is published): the fields this catalog reads or writes are declared with the spec's types, values and
 * length caps; the others pass through unread. What is required and what is relaxed: docs/decisions/0015-feeds-formats.md.
 */
import { z } from "zod";
import { AVAILABILITY_GROUPS, type Availability } from "../../shared/availability.js";
import { isCurrencyCode } from "../../shared/currency.js";
import { parseGtin } from "../../shared/gtin.js";
import type { Product } from "../../shared/schemas/index.js";
import { parseHttpUrl } from "../../shared/url.js";
import { required } from "../ingest/record.js";
import type { Mapped, RecordInput } from "./mapped.js";

/** The spec's `availability` values. */
const ACP_AVAILABILITY = ["in_stock", "out_of_stock", "preorder"] as const;
type AcpAvailability = (typeof ACP_AVAILABILITY)[number];

/** What an ACP availability is as a record's (schema.org) availability, and back through the shopper's groups. */
const RECORD_AVAILABILITY: Record<AcpAvailability, Availability> = { in_stock: "InStock", out_of_stock: "OutOfStock", preorder: "PreOrder" };

/** The spec's caps on the fields read. */
export const ACP_TITLE_MAX = 150;
export const ACP_DESCRIPTION_MAX = 5000;

const url = z.string(required).refine((value) => parseHttpUrl(value) !== null, "must be an absolute http(s) URL");

/** "79.99 USD": a non-negative decimal, a space, an ISO 4217 code. */
const PRICE = /^(\d{1,15}(?:\.\d{1,6})?) ([A-Z]{3})$/;
const AcpPriceSchema = z
  .string(required)
  .trim()
  .regex(PRICE, { message: 'must be an amount and an ISO 4217 currency code, such as "79.99 USD"', abort: true })
  .refine((value) => isCurrencyCode(PRICE.exec(value)?.[2] ?? ""), "must name an ISO 4217 currency code such as USD or EUR");

/** The spec writes its flags as lower-case strings; JSON booleans are taken too. */
const FlagSchema = z.union([z.boolean(), z.enum(["true", "false"], { error: "must be true or false" })]);

/** Comma-separated in the spec's flat files; a JSON array in a JSON feed. */
const ImageLinksSchema = z.union([
  z.array(url),
  z.string().transform((value, context) => {
    const links = value
      .split(",")
      .map((link) => link.trim())
      .filter(Boolean);
    for (const link of links) if (!parseHttpUrl(link)) context.addIssue({ code: "custom", message: `${link} is not an absolute http(s) URL` });
    return links;
  }),
]);

export const AcpProductSchema = z
  .looseObject({
    enable_search: FlagSchema.optional(),
    enable_checkout: FlagSchema.optional(),
    id: z.string(required).trim().min(1, "must not be empty").max(100, "must be at most 100 characters"),
    gtin: z
      .string()
      .regex(/^\d{8,14}$/, { message: "must be 8 to 14 digits", abort: true })
      .refine((value) => parseGtin(value).ok, "is not a valid GTIN (its check digit is wrong)")
      .optional(),
    mpn: z.string().trim().min(1).max(70, "must be at most 70 characters").optional(),
    title: z.string(required).trim().min(1, "must not be empty").max(ACP_TITLE_MAX, `must be at most ${ACP_TITLE_MAX} characters`),
    description: z.string(required).trim().min(1, "must not be empty").max(ACP_DESCRIPTION_MAX, `must be at most ${ACP_DESCRIPTION_MAX} characters`),
    link: url,
    product_category: z.string().trim().min(1).max(1000).optional(),
    brand: z.string().trim().min(1).max(70, "must be at most 70 characters").optional(),
    image_link: url,
    additional_image_links: ImageLinksSchema.optional(),
    video_link: url.optional(),
    price: AcpPriceSchema,
    sale_price: AcpPriceSchema.optional(),
    availability: z.enum(ACP_AVAILABILITY, {
      error: (issue) => (issue.input === undefined ? "is required" : `must be one of ${ACP_AVAILABILITY.join(", ")}`),
    }),
    inventory_quantity: z.int().min(0).optional(),
    item_group_id: z.string().max(70, "must be at most 70 characters").optional(),
    seller_name: z.string().max(70, "must be at most 70 characters").optional(),
    seller_url: url.optional(),
  })
  // Only when both are well formed (a malformed one is reported as such).
  .refine((item) => !PRICE.test(item.price ?? "") || !PRICE.test(item.sale_price ?? "") || currencyOf(item.sale_price) === currencyOf(item.price), {
    message: "must be in the currency of price",
    path: ["sale_price"],
  });

export type AcpProduct = z.infer<typeof AcpProductSchema>;

function currencyOf(price: string | undefined): string | undefined {
  return price?.trim().split(" ")[1];
}

function amountOf(price: string): { amount: string; currency: string } {
  const [, amount, currency] = PRICE.exec(price.trim()) as RegExpExecArray;
  return { amount: amount!, currency: currency! };
}

/** An ACP line as a record: the feed's price is the list price when a sale price is given. */
export function acpToRecord(item: AcpProduct): RecordInput {
  const price = amountOf(item.price);
  const sale = item.sale_price ? amountOf(item.sale_price) : undefined;
  const gtin = item.gtin ?? null;
  const mpn = item.mpn ?? null;
  return {
    id: item.id,
    url: item.link,
    name: item.title,
    desc: item.description,
    media: [
      ...[item.image_link, ...(item.additional_image_links ?? [])].map((link) => ({ url: link, type: "image" as const })),
      ...(item.video_link ? [{ url: item.video_link, type: "video" as const }] : []),
    ],
    brands: item.brand ? [item.brand] : [],
    price_label: "",
    offers: {
      price: sale ? sale.amount : price.amount,
      currency: price.currency,
      availability: RECORD_AVAILABILITY[item.availability],
      ...(sale ? { was_price: price.amount } : {}),
    },
    ...(gtin || mpn ? { identifiers: { sku: null, gtin, mpn } } : {}),
    ...(item.product_category ? { category: item.product_category } : {}),
  };
}

/** The ACP value of a record's availability, or undefined when the spec has none for it (backorder, Reserved). */
function acpAvailability(name: string | null | undefined): AcpAvailability | undefined {
  for (const value of ACP_AVAILABILITY) if ((AVAILABILITY_GROUPS[value] as readonly string[]).includes(name ?? "")) return value;
  return undefined;
}

/** The description within the spec's cap: cut at the last word that fits (the one field an export shortens). */
function description(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= ACP_DESCRIPTION_MAX) return trimmed;
  const cut = trimmed.slice(0, ACP_DESCRIPTION_MAX - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 1)).trimEnd()}…`;
}

/** A product as an ACP line, or why it cannot be one (a field the spec requires that the record lacks or overruns). */
export function productToAcp(product: Product): Mapped<AcpProduct> {
  const { offers } = product;
  if (!offers?.price || !offers.currency) return { skipped: "no price: ACP requires price" };
  const availability = acpAvailability(offers.availability);
  if (!availability) return { skipped: `availability ${offers.availability ?? "unknown"}: ACP requires one of ${ACP_AVAILABILITY.join(", ")}` };
  const images = product.media.filter((item) => item.type === "image").map((item) => item.url);
  const video = product.media.find((item) => item.type === "video");
  if (images.length === 0) return { skipped: "no image: ACP requires image_link" };
  if (!product.desc.trim()) return { skipped: "no description: ACP requires one" };
  if (product.name.trim().length > ACP_TITLE_MAX) return { skipped: `name longer than ACP's ${ACP_TITLE_MAX} characters (title)` };
  const sale = offers.was_price && Number(offers.was_price) > Number(offers.price);
  const brand = product.brands[0];
  return {
    line: {
      // The catalog sells nothing itself: its products are for search, not for checkout through it.
      enable_search: "true",
      enable_checkout: "false",
      id: product.id,
      ...(product.identifiers?.gtin ? { gtin: product.identifiers.gtin } : {}),
      ...(product.identifiers?.mpn ? { mpn: product.identifiers.mpn } : {}),
      title: product.name.trim(),
      description: description(product.desc),
      link: product.url,
      ...(product.category ? { product_category: product.category } : {}),
      ...(brand && brand.length <= 70 ? { brand } : {}),
      image_link: images[0]!,
      ...(images.length > 1 ? { additional_image_links: images.slice(1) } : {}),
      ...(video ? { video_link: video.url } : {}),
      price: `${sale ? offers.was_price : offers.price} ${offers.currency}`,
      ...(sale ? { sale_price: `${offers.price} ${offers.currency}` } : {}),
      availability,
      seller_url: new URL(product.url).origin,
    },
  };
}
