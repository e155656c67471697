/**
 * The filters of a search or browse, normalised once from the parameters (and
 * from constraints read in the query, interpret.ts), and their one SQL form,
 * which every retrieval, browse query and facet count applies inside the
 * query (never afterwards, so a page is always filled when it can be). It is
 * also where gone products (their page answered 404 or 410) leave every
 * search, browse and facet: the condition always holds `gone_at is null`.
 */
import { and, arrayOverlaps, eq, gte, inArray, isNotNull, isNull, lte, not, notInArray, or, type SQL, sql } from "drizzle-orm";
import { toMinorUnits } from "../../shared/currency.js";
import { AVAILABILITY_GROUPS, type SearchParams } from "../../shared/schemas/index.js";
import { brandHost } from "../../shared/url.js";
import { brandKey, categoryKey } from "../catalog/structured.js";
import { type productFacets, products } from "../db/schema.js";
import { attributeFilters } from "./attributes.js";
import { convertBounds, type ExchangeRates, type PriceBounds } from "./exchange-rates.js";
import { productConfig } from "./languages/sql.js";

export interface Filters {
  /** Host of `brand_url`. */
  brandHost?: string;
  currency?: string;
  /** Inclusive bounds in minor units of `currency`. */
  priceMin?: number;
  priceMax?: number;
  /** The same bounds in the other currencies the operator's exchange rates know: products priced in them pass too. */
  converted?: PriceBounds[];
  /**
   * Products priced in a currency the bounds are in neither as asked nor converted pass, uncompared: a bound read from
   * the query's words that left nothing (see the search service).
   */
  uncompared?: boolean;
  /** schema.org names, any of them. */
  availability?: string[];
  /** Category keys (structured.ts), any of them, each matching itself or anything under it. */
  categories?: string[];
  /** Brand keys, any of them. */
  brands?: string[];
  /**
   * The brands were read from the query's words ("babybjorn carier"): the brand is a word read, so the reranker may
   * answer weak matches within it though no other word is read (rank.ts).
   */
  brandsNamed?: boolean;
  /** Only products with a price in `currency` (a price sort needs one). */
  priced?: boolean;
  /** Only products whose record changed at or after this instant. */
  updatedSince?: Date;
  /** Words (as given): products whose full text holds any of them, stemmed, are left out. */
  excluded?: string[];
  /** Stored audiences, any of them (those that suit the audiences asked: attributes.ts `suitingAudiences`). */
  audiences?: string[];
  /** Colour and material families, any of them. */
  colours?: string[];
  materials?: string[];
  /**
   * Products stating no audience, no colour or no availability pass too: a filter read from the query's words, which
   * leaves out only products made for another audience, of another colour, or stated not to be in the state asked
   * ("in stock": a page that says nothing of its stock may well sell it) (docs/decisions/0005-attributes.md).
   */
  unstatedPass?: { audience?: boolean; colour?: boolean; availability?: boolean };
  /**
   * With `unstatedPass.colour`: the colour words as the query wrote them. A product whose name holds one passes too: it
   * names the colour asked, if only as a name ("Gold Toe … Sock, Black" for "gold toe socks").
   */
  namedColours?: string[];
}

export type FilterParams = Pick<
  SearchParams,
  | "brand_url"
  | "currency"
  | "price_min"
  | "price_max"
  | "availability"
  | "category"
  | "brand"
  | "updated_since"
  | "exclude"
  | "audience"
  | "colour"
  | "material"
>;

/**
 * The filters the parameters ask for; the parameters have been validated (currency known, bounds decimal).
 * `priced`: only products priced in the currency (for a price sort, which orders prices in one currency only).
 * `rates`: price bounds also apply, converted, to products priced in the other currencies they know.
 */
export function filtersFrom(
  params: FilterParams,
  options: { priced?: boolean; rates?: ExchangeRates | null; unstatedPass?: Filters["unstatedPass"] } = {},
): Filters {
  const filters: Filters = options.priced ? { priced: true } : {};
  if (params.brand_url !== undefined) {
    const host = brandHost(params.brand_url);
    if (host) filters.brandHost = host;
  }
  if (params.currency) filters.currency = params.currency;
  const minor = (amount: string | undefined) =>
    amount !== undefined && params.currency ? (toMinorUnits(amount, params.currency) ?? undefined) : undefined;
  const priceMin = minor(params.price_min);
  const priceMax = minor(params.price_max);
  if (priceMin !== undefined) filters.priceMin = priceMin;
  if (priceMax !== undefined) filters.priceMax = priceMax;
  if (options.rates && !options.priced && params.currency && (priceMin !== undefined || priceMax !== undefined)) {
    const converted = convertBounds({ currency: params.currency, min: priceMin, max: priceMax }, options.rates);
    if (converted.length > 0) filters.converted = converted;
  }
  if (params.availability) filters.availability = [...new Set(params.availability.flatMap((group) => AVAILABILITY_GROUPS[group]))];
  if (params.category) filters.categories = [...new Set(params.category.map(categoryKey).filter(Boolean))];
  if (params.brand) filters.brands = [...new Set(params.brand.map(brandKey).filter(Boolean))];
  if (params.updated_since) filters.updatedSince = params.updated_since;
  if (params.exclude) filters.excluded = [...new Set(params.exclude)];
  Object.assign(filters, attributeFilters(params));
  if (options.unstatedPass) filters.unstatedPass = options.unstatedPass;
  return filters;
}

/**
 * Whether any filter narrows the catalog (a currency alone does not: it only says what price bounds mean; nor do
 * excluded words, which leave out a few of the products a search finds, not most of the catalog).
 */
export function narrows(filters: Filters): boolean {
  return (
    filters.brandHost !== undefined ||
    filters.priceMin !== undefined ||
    filters.priceMax !== undefined ||
    filters.availability !== undefined ||
    filters.categories !== undefined ||
    filters.brands !== undefined ||
    filters.updatedSince !== undefined ||
    filters.audiences !== undefined ||
    filters.colours !== undefined ||
    filters.materials !== undefined ||
    filters.priced === true
  );
}

/**
 * The filters without those on the offer (price bounds, a price in the currency, availability): where to look, but not
 * what the offer must be. Undefined when the filters hold none of those.
 */
export function withoutOfferConstraints(filters: Filters): Filters | undefined {
  const { priceMin, priceMax, converted, uncompared, availability, priced, ...scope } = filters;
  const constrained = priceMin !== undefined || priceMax !== undefined || availability !== undefined || priced === true;
  return constrained ? scope : undefined;
}

/** A LIKE pattern matching what starts with `prefix`, wildcards in it taken literally. */
function startsWith(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The columns filters read: in `products` (retrieval), or in the narrow `product_facets` that mirrors them (browse, facets). */
type Columns =
  | "id"
  | "brandHost"
  | "currency"
  | "priceMinor"
  | "availability"
  | "categoryKey"
  | "brandKeys"
  | "updatedAt"
  | "goneAt"
  | "audience"
  | "colours"
  | "materials";
type FilterColumns = Pick<typeof products, Columns>;
type FacetColumns = Pick<typeof productFacets, Columns>;

/** The filters as one SQL condition on `table`'s columns; without filters, every product that is there (not gone). */
export function filterSql(filters: Filters, table: FilterColumns | FacetColumns = products): SQL {
  const conditions: (SQL | undefined)[] = [isNull(table.goneAt)];
  if (filters.brandHost !== undefined) conditions.push(eq(table.brandHost, filters.brandHost));
  const pricing = filters.priceMin !== undefined || filters.priceMax !== undefined || filters.priced;
  if (pricing && filters.currency) {
    const within = ({ currency, min, max }: PriceBounds) =>
      and(
        eq(table.currency, currency),
        isNotNull(table.priceMinor),
        min === undefined ? undefined : gte(table.priceMinor, min),
        max === undefined ? undefined : lte(table.priceMinor, max),
      );
    const bounds = [{ currency: filters.currency, min: filters.priceMin, max: filters.priceMax }, ...(filters.converted ?? [])];
    const compared = bounds.map((bound) => bound.currency);
    const uncompared = filters.uncompared ? and(isNotNull(table.priceMinor), notInArray(table.currency, compared)) : undefined;
    conditions.push(or(...bounds.map(within), uncompared));
  }
  if (filters.availability) {
    const stated = inArray(table.availability, filters.availability);
    conditions.push(filters.unstatedPass?.availability ? or(isNull(table.availability), stated)! : stated);
  }
  if (filters.categories) {
    // A whole-segment prefix: the path itself, or anything below it (" > " follows the prefix).
    conditions.push(
      or(...filters.categories.flatMap((key) => [eq(table.categoryKey, key), sql`${table.categoryKey} like ${startsWith(`${key} > `)}`])),
    );
  }
  if (filters.brands) conditions.push(arrayOverlaps(table.brandKeys, filters.brands));
  if (filters.updatedSince) conditions.push(gte(table.updatedAt, filters.updatedSince));
  if (filters.excluded) conditions.push(not(excludedSql(filters.excluded, table)));
  if (filters.audiences) {
    const suits = inArray(table.audience, filters.audiences);
    conditions.push(filters.unstatedPass?.audience ? or(isNull(table.audience), suits) : suits);
  }
  if (filters.colours) {
    const of = arrayOverlaps(table.colours, filters.colours);
    conditions.push(filters.unstatedPass?.colour ? or(sql`cardinality(${table.colours}) = 0`, of, namedSql(filters.namedColours ?? [], table)) : of);
  }
  if (filters.materials) conditions.push(arrayOverlaps(table.materials, filters.materials));
  return and(...conditions) ?? isNull(table.goneAt);
}

/**
 * Products holding any of `words`: as full text matches a word (plainto_tsquery: stemmed, so "fills" leaves out
 * "800-fill"), or, for a word full text drops as a stop word ("down", "over", "off"), as that whole word,
 * case-insensitive, in the name, brands or description. `product_facets` has no text: there it is a lookup in `products`.
 */
function excludedSql(words: readonly string[], table: FilterColumns | FacetColumns): SQL {
  const holds =
    or(
      ...words.map((word) => {
        // In each product's own language: the word is stemmed as its document was.
        const query = sql`plainto_tsquery(${productConfig()}, ${word})`;
        const whole = wholeWord(word);
        return sql`(case when numnode(${query}) > 0 then ${products.search} @@ ${query}
        else ${products.name} ~* ${whole} or ${products.desc} ~* ${whole} or ${products.brands}::text ~* ${whole} end)`;
      }),
    ) ?? sql`false`;
  return onProducts(holds, table);
}

/** Products whose name holds any of `words`, whole and case-insensitive (through `products` from `product_facets`). */
function namedSql(words: readonly string[], table: FilterColumns | FacetColumns): SQL | undefined {
  return words.length === 0 ? undefined : onProducts(or(...words.map((word) => sql`${products.name} ~* ${wholeWord(word)}`))!, table);
}

/** A case-insensitive pattern of the word whole, its characters taken literally. */
const wholeWord = (word: string) => `\\m${word.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&")}\\M`;

/** A condition on `products`' text columns, on `table`: itself, or `product_facets` through `products`. */
const onProducts = (condition: SQL, table: FilterColumns | FacetColumns): SQL =>
  table === products ? condition : sql`${table.id} in (select ${products.id} from ${products} where ${condition})`;

/** `name=value` lines for `explain`: what a result passed. */
export function describeFilters(params: FilterParams): string[] {
  const lines: string[] = [];
  if (params.brand_url) lines.push(`brand_url=${params.brand_url}`);
  if (params.price_min) lines.push(`price_min=${params.price_min} ${params.currency}`);
  if (params.price_max) lines.push(`price_max=${params.price_max} ${params.currency}`);
  for (const value of params.availability ?? []) lines.push(`availability=${value}`);
  for (const value of params.category ?? []) lines.push(`category=${value}`);
  for (const value of params.brand ?? []) lines.push(`brand=${value}`);
  if (params.updated_since) lines.push(`updated_since=${params.updated_since.toISOString()}`);
  for (const value of params.exclude ?? []) lines.push(`exclude=${value}`);
  for (const name of ["audience", "colour", "material"] as const) for (const value of params[name] ?? []) lines.push(`${name}=${value}`);
  return lines;
}
