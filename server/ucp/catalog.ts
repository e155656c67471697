/**
 * The catalog capability's three operations, mapped onto the catalog's own
 * services: search runs the search service with the request's query and
 * filters (so it answers the products the GET API answers, in its order);
 * lookup and get_product resolve identifiers through the catalog's batch
 * lookup. Nothing here searches or reads the database itself.
 */
import { convertedText, currencyOnlyText, type ExchangeRates } from "../search/exchange-rates.js";
import { parseGtin } from "../../shared/gtin.js";
import {
  type LookupInput,
  ProductIdSchema,
  SearchParamsSchema,
  type SearchParamsInput,
  UCP_LIMIT_DEFAULT,
  UCP_LOOKUP,
  UCP_SEARCH,
  type UcpGetProductRequest,
  type UcpGetProductResponse,
  type UcpLookupProduct,
  type UcpLookupRequest,
  type UcpLookupResponse,
  type UcpMessage,
  type UcpSearchRequest,
  type UcpSearchResponse,
  type UcpSelectedOption,
  LIMIT_MAX,
} from "../../shared/schemas/index.js";
import { parseHttpUrl, productUrlKey } from "../../shared/url.js";
import type { Product } from "../../shared/schemas/index.js";
import type { SearchResult } from "../search/service.js";
import { parseVariantId } from "../catalog/variants.js";
import { RequestError } from "../errors.js";
import type { Services } from "../services.js";
import { errorResponse, info, ucpMeta } from "./envelope.js";
import { type AppliedFilters, decimal, isEmpty, productPasses, readFilters, variantPasses } from "./filters.js";
import { type DraftProduct, type DraftVariant, draftProduct, ucpOffer, ucpProduct } from "./products.js";

type CatalogServices = Pick<Services, "catalog" | "search" | "groups">;

/** How many merchants' offers a UCP variant lists. */
const UCP_OFFERS_MAX = 20;

function noPrice(ids: readonly string[]): UcpMessage {
  return info(
    "price_unknown",
    `${ids.join(", ")}: the page states no price in a known currency, which a UCP product needs; the catalog's own API has the record (GET /api/v1/products/{id}).`,
  );
}

/** The products as UCP drafts, in the order given, each with its page's variants; those without a price are named apart. */
async function drafts(services: CatalogServices, products: readonly Product[]): Promise<{ drafts: DraftProduct[]; unpriced: string[] }> {
  const variants = await services.catalog.variants(products.map((product) => product.id));
  const made: DraftProduct[] = [];
  const unpriced: string[] = [];
  for (const product of products) {
    const draft = draftProduct(product, variants.get(product.id) ?? []);
    if (draft) made.push(draft);
    else unpriced.push(product.id);
  }
  await withOffers(services, made);
  return { drafts: made, unpriced };
}

/**
 * The group is one product and each merchant's record an offer: the featured variant (the one the record's page
 * selects) lists every merchant's offer, when more than one sells it (one query for all the products).
 */
async function withOffers(services: CatalogServices, made: readonly DraftProduct[]): Promise<void> {
  const shared = made.filter((draft) => draft.product.product_group.offers > 1);
  const offers = await services.groups.offersOfGroups(
    shared.map((draft) => draft.product.product_group.id),
    UCP_OFFERS_MAX,
  );
  for (const draft of shared) {
    const listed = (offers.get(draft.product.product_group.id) ?? []).flatMap((offer) => ucpOffer(offer) ?? []);
    const featured = draft.variants[0];
    if (featured && listed.length > 0) featured.ucp = { ...featured.ucp, offers: listed };
  }
}

/** The search parameters a UCP search asks for, with the messages about what it did not apply. */
function searchParams(
  input: UcpSearchRequest,
  rates: ExchangeRates | null,
): { params: SearchParamsInput; applied: AppliedFilters; messages: UcpMessage[] } {
  const query = input.query?.trim();
  if (input.query !== undefined && !query)
    throw new RequestError("invalid_parameter", "query must not be empty: leave it out to browse by filters.", "query");
  const { applied, messages } = readFilters(input.filters, input.context, rates);
  if (!query && isEmpty(applied)) {
    throw new RequestError(
      "invalid_parameter",
      "A search needs a query or a filter this catalog applies (categories, brands, availability, audience, colors, or price with context.currency).",
      "query",
    );
  }
  const requested = input.pagination?.limit ?? UCP_LIMIT_DEFAULT;
  if (requested > LIMIT_MAX)
    messages.push(info("limit_clamped", `pagination.limit ${requested} was lowered to ${LIMIT_MAX}, the most one page holds.`));
  const params: SearchParamsInput = { limit: Math.min(requested, LIMIT_MAX), view: "standard" };
  if (query) params.q = query;
  if (applied.categories) params.category = applied.categories;
  if (applied.brands) params.brand = applied.brands;
  if (applied.availability) params.availability = applied.availability;
  if (applied.audience) params.audience = applied.audience;
  if (applied.colors) params.colour = applied.colors;
  if (applied.price) {
    const { currency, min, max } = applied.price;
    params.currency = currency;
    for (const [bound, amount, name] of [
      ["min", min, "price_min"],
      ["max", max, "price_max"],
    ] as const) {
      if (amount === undefined) continue;
      const value = decimal(amount, currency);
      if (value === undefined)
        throw new RequestError("invalid_parameter", `filters.price.${bound} is larger than any price.`, `filters.price.${bound}`);
      params[name] = value;
    }
  }
  if (input.pagination?.cursor !== undefined) params.cursor = input.pagination.cursor;
  return { params, applied, messages };
}

export async function ucpSearch(services: CatalogServices, input: UcpSearchRequest): Promise<{ response: UcpSearchResponse; result: SearchResult }> {
  const { params, applied, messages } = searchParams(input, services.search.exchangeRates);
  const parsed = SearchParamsSchema.safeParse(params);
  // Everything was checked above; a refusal here is a request member this mapping let through.
  if (!parsed.success) throw new RequestError("invalid_parameter", parsed.error.issues.map((issue) => issue.message).join("; "));
  const result = await services.search.search(parsed.data).catch((thrown: unknown) => {
    // The search service names its own parameter; the request named the protocol's member.
    if (thrown instanceof RequestError && thrown.param === "cursor") throw new RequestError(thrown.code, thrown.message, "pagination.cursor");
    throw thrown;
  });
  const made = await drafts(
    services,
    result.hits.map((hit) => hit.product),
  );
  for (const message of result.messages ?? []) messages.push(info(message.code, message.text));
  if (made.unpriced.length > 0) messages.push(noPrice(made.unpriced));
  const products = made.drafts.map((draft) => {
    // The search matched the product; its variants are those that pass the filters too (all of them if none does).
    const passing = draft.variants.filter((variant) => variantPasses(variant, applied));
    return ucpProduct(draft, passing.length > 0 ? passing : draft.variants);
  });
  const response: UcpSearchResponse = {
    ucp: ucpMeta(UCP_SEARCH),
    products,
    pagination: { has_next_page: result.nextCursor !== undefined, ...(result.nextCursor ? { cursor: result.nextCursor } : {}) },
    ...(messages.length > 0 ? { messages } : {}),
  };
  return { response, result };
}

// Lookups.

interface Resolution {
  product: Product;
  /** `exact`: the identifier names this variant (by key, URL, GTIN or SKU); `featured`: it names the product. */
  variantKey?: string;
  variantUrl?: string;
  gtin14?: string;
  sku?: string;
}

/** The catalog lookups an identifier may be, most specific reading first. */
function readings(id: string): { input: LookupInput; as: "product" | "variant" | "url" | "gtin" | "sku"; key?: string }[] {
  const found: ReturnType<typeof readings> = [];
  if (ProductIdSchema.safeParse(id).success) found.push({ input: { id }, as: "product" });
  const variant = parseVariantId(id);
  if (variant && ProductIdSchema.safeParse(variant.productId).success)
    found.push({ input: { id: variant.productId }, as: "variant", key: variant.key });
  if (parseHttpUrl(id)) found.push({ input: { url: id }, as: "url" });
  if (/^[\d\s-]+$/.test(id) && parseGtin(id).ok) found.push({ input: { gtin: id }, as: "gtin" });
  if (id.trim() && id.length <= 200) found.push({ input: { sku: id.trim() }, as: "sku" });
  return found;
}

/** What each identifier resolves to (one catalog batch lookup for all of them), or nothing. */
async function resolve(services: CatalogServices, ids: readonly string[]): Promise<Map<string, Resolution>> {
  const tries = ids.flatMap((id) => readings(id).map((reading) => ({ id, ...reading })));
  const outcomes = await services.catalog.lookup(
    tries.map((entry) => entry.input),
    false,
  );
  const resolved = new Map<string, Resolution>();
  const variantsOf = await services.catalog.variants([...new Set(outcomes.flatMap((outcome) => (outcome.product ? [outcome.product.id] : [])))]);
  tries.forEach((entry, index) => {
    const product = outcomes[index]?.product ?? oneGroup(entry.as === "gtin" ? outcomes[index]?.candidates : undefined);
    if (!product || resolved.has(entry.id)) return;
    if (entry.as === "product") resolved.set(entry.id, { product });
    else if (entry.as === "variant") {
      const draft = draftProduct(product, variantsOf.get(product.id) ?? []);
      if (entry.key && draft?.variants.some((variant) => variant.key === entry.key)) resolved.set(entry.id, { product, variantKey: entry.key });
    } else if (entry.as === "url") resolved.set(entry.id, { product, variantUrl: productUrlKey(entry.id) ?? entry.id });
    else if (entry.as === "gtin") {
      const parsed = parseGtin(entry.id);
      if (parsed.ok) resolved.set(entry.id, { product, gtin14: parsed.gtin14 });
    } else resolved.set(entry.id, { product, sku: entry.id.trim().toLowerCase() });
  });
  return resolved;
}

/**
 * The group is one product: an identifier that resolves to another merchant's record of a product an earlier
 * identifier resolved to answers that product (featured; its variant's offers list the record asked for).
 */
function oneProductPerGroup(ids: readonly string[], resolved: Map<string, Resolution>): Map<string, Resolution> {
  const first = new Map<string, Product>();
  const out = new Map<string, Resolution>();
  for (const id of ids) {
    const resolution = resolved.get(id);
    if (!resolution) continue;
    const group = resolution.product.product_group.id;
    const held = first.get(group);
    if (!held) first.set(group, resolution.product);
    out.set(id, !held || held.id === resolution.product.id ? resolution : { product: held });
  }
  return out;
}

/** A GTIN several merchants' records carry names their product group, when they are one: its first record by id. */
function oneGroup(candidates: readonly Product[] | undefined): Product | undefined {
  const first = candidates?.[0];
  return first && candidates.every((candidate) => candidate.product_group.id === first.product_group.id) ? first : undefined;
}

/** The variant an identifier names exactly, if it names one. */
function exactVariant(draft: DraftProduct, resolution: Resolution): DraftVariant | undefined {
  const { variantKey, variantUrl, gtin14, sku } = resolution;
  return draft.variants.find((variant) => {
    if (variantKey !== undefined) return variant.key === variantKey;
    if (variantUrl !== undefined) return variant.ucp.url !== undefined && productUrlKey(variant.ucp.url) === variantUrl;
    if (gtin14 !== undefined) {
      const barcode = variant.ucp.barcodes?.[0]?.value;
      return barcode !== undefined && barcode.padStart(14, "0") === gtin14;
    }
    if (sku !== undefined) return variant.ucp.sku?.toLowerCase() === sku;
    return false;
  });
}

function currencyMessage(applied: AppliedFilters, rates: ExchangeRates | null): UcpMessage[] {
  const { price } = applied;
  if (!price) return [];
  if (price.converted && rates) return [info("converted", convertedText(price.currency, price.converted.length, rates))];
  return [info("currency_only", currencyOnlyText(price.currency, rates, { sort: false, items: "variants" }))];
}

export async function ucpLookup(services: CatalogServices, input: UcpLookupRequest): Promise<UcpLookupResponse> {
  const { applied, messages } = readFilters(input.filters, input.context, services.search.exchangeRates);
  messages.push(...currencyMessage(applied, services.search.exchangeRates));
  const ids = [...new Set(input.ids)];
  const resolved = oneProductPerGroup(ids, await resolve(services, ids));
  const unique = [...new Map([...resolved.values()].map((resolution) => [resolution.product.id, resolution.product])).values()];
  const made = await drafts(services, unique);
  const byId = new Map(made.drafts.map((draft) => [draft.product.id, draft]));
  // Per product, the variants its identifiers resolved to and how: the products in the order first asked for.
  const inputs = new Map<string, Map<DraftVariant, { id: string; match: "exact" | "featured" }[]>>();
  for (const id of ids) {
    const resolution = resolved.get(id);
    if (!resolution) {
      messages.push(info("not_found", id));
      continue;
    }
    const draft = byId.get(resolution.product.id);
    if (!draft) continue;
    const exact = exactVariant(draft, resolution);
    const variant = exact ?? draft.variants[0]!;
    const correlations = inputs.get(draft.product.id) ?? new Map<DraftVariant, { id: string; match: "exact" | "featured" }[]>();
    correlations.set(variant, [...(correlations.get(variant) ?? []), { id, match: exact ? "exact" : "featured" }]);
    inputs.set(draft.product.id, correlations);
  }
  if (made.unpriced.length > 0) messages.push(noPrice(made.unpriced));
  const products: UcpLookupProduct[] = [];
  for (const [productId, correlations] of inputs) {
    const draft = byId.get(productId)!;
    if (!productPasses(draft, applied)) continue;
    // Only variants an identifier resolved to appear, each with its inputs, in the product's own order (featured first).
    const shown = draft.variants.filter((variant) => correlations.has(variant) && variantPasses(variant, applied));
    if (shown.length === 0) continue;
    const product = ucpProduct(draft, shown);
    products.push({
      ...product,
      variants: shown.map((variant, index) => ({ ...product.variants[index]!, inputs: correlations.get(variant)! })),
    });
  }
  return { ucp: ucpMeta(UCP_LOOKUP), products, ...(messages.length > 0 ? { messages } : {}) };
}

// Get product.

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

function matches(variant: DraftVariant, selections: readonly UcpSelectedOption[]): boolean {
  return selections.every((selection) => variant.options.some((option) => same(option.name, selection.name) && same(option.label, selection.label)));
}

/**
 * The selections some variant matches: the request's, less the options dropped to find one (those not in
 * `preferences` first, last asked first; then `preferences` from its end).
 */
function relaxed(variants: readonly DraftVariant[], selected: readonly UcpSelectedOption[], preferences: readonly string[]): UcpSelectedOption[] {
  const rank = (selection: UcpSelectedOption) => {
    const at = preferences.findIndex((name) => same(name, selection.name));
    return at === -1 ? Number.POSITIVE_INFINITY : at;
  };
  // Dropped from the end of this order.
  const order = [...selected]
    .map((selection, index) => ({ selection, index }))
    .sort((a, b) => rank(a.selection) - rank(b.selection) || a.index - b.index);
  const kept = order.map((entry) => entry.selection);
  while (kept.length > 0 && !variants.some((variant) => matches(variant, kept))) kept.pop();
  return selected.filter((selection) => kept.includes(selection));
}

function failed(code: string, content: string, severity: "recoverable" | "unrecoverable"): UcpGetProductResponse {
  return errorResponse([{ type: "error", code, content, severity }], UCP_LOOKUP);
}

export async function ucpGetProduct(services: CatalogServices, input: UcpGetProductRequest): Promise<UcpGetProductResponse> {
  const { applied, messages } = readFilters(input.filters, input.context, services.search.exchangeRates);
  messages.push(...currencyMessage(applied, services.search.exchangeRates));
  const resolution = (await resolve(services, [input.id])).get(input.id);
  if (!resolution) return failed("not_found", `Product not found: ${input.id}`, "unrecoverable");
  const made = await drafts(services, [resolution.product]);
  const draft = made.drafts[0];
  if (!draft) {
    return failed(
      "price_unknown",
      `Product ${resolution.product.id} states no price in a known currency, which a UCP product needs.`,
      "unrecoverable",
    );
  }
  const variants = productPasses(draft, applied) ? draft.variants.filter((variant) => variantPasses(variant, applied)) : [];
  if (variants.length === 0) return failed("filtered_out", `Product ${draft.product.id} has no variant that passes the filters.`, "recoverable");
  const exact = exactVariant(draft, resolution);
  const featured = exact && variants.includes(exact) ? exact : variants[0]!;
  // A variant id fixes the selection; otherwise the request's (relaxed until some variant matches), else the featured variant's.
  const selected: UcpSelectedOption[] = exact
    ? featured.options.map((option) => ({ name: option.name, label: option.label }))
    : input.selected?.length
      ? relaxed(variants, input.selected, input.preferences ?? [])
      : featured.options.map((option) => ({ name: option.name, label: option.label }));
  const matching = variants.filter((variant) => matches(variant, selected));
  const first = matching.includes(featured) ? featured : (matching[0] ?? featured);
  const shown = [first, ...matching.filter((variant) => variant !== first)];
  const product = ucpProduct(draft, shown);
  const { options: offered = [], ...rest } = product;
  const options = offered.map((option) => ({
    name: option.name,
    values: option.values.map((value) => {
      const trial = [...selected.filter((selection) => !same(selection.name, option.name)), { name: option.name, label: value.label }];
      const candidates = variants.filter((variant) => matches(variant, trial));
      return { label: value.label, exists: candidates.length > 0, available: candidates.some((variant) => variant.available === true) };
    }),
  }));
  return {
    ucp: ucpMeta(UCP_LOOKUP),
    product: { ...rest, ...(options.length > 0 ? { options, selected } : {}) },
    ...(messages.length > 0 ? { messages } : {}),
  };
}
