/**
 * What the page shows, kept in its URL (`/search?q=tent&brand=NorthPeak&sort=price_asc`, `/search?product=pdp_…`) so
 * that a search can be bookmarked, shared and gone back to, and turned into the search's parameters.
 */
import type { Facet, SearchParamsInput, Sort } from "../../shared/schemas/params.js";

/** The list filters the page offers, each a facet of the same name (availability's values are grouped: see render.ts). */
export const LIST_FILTERS = ["brand", "category", "availability", "audience", "colour", "material"] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

export interface SearchState {
  q: string;
  filters: Record<ListFilter, string[]>;
  currency: string | null;
  priceMin: string | null;
  priceMax: string | null;
  sort: Sort | null;
  /** false after the shopper removed a correction: the words are searched as typed. */
  typos: boolean;
  /** false after the shopper removed a synonym: the words are searched without their synonyms. */
  synonyms: boolean;
  /** Results per page; the page's own default unless the URL gives one. */
  limit: number;
}

export type PageState = { view: "product"; id: string } | { view: "search"; search: SearchState } | { view: "start" };

export const PAGE_SIZE = 24;
const SORT_NAMES: Record<Sort, true> = { relevance: true, price_asc: true, price_desc: true, newest: true };

function isSort(value: string | null): value is Sort {
  return value !== null && value in SORT_NAMES;
}

export function emptyFilters(): Record<ListFilter, string[]> {
  return { brand: [], category: [], availability: [], audience: [], colour: [], material: [] };
}

/** A search for `q`, with nothing else asked. */
export function newSearch(q: string): SearchState {
  return { q, filters: emptyFilters(), currency: null, priceMin: null, priceMax: null, sort: null, typos: true, synonyms: true, limit: PAGE_SIZE };
}

export function readState(query: string): PageState {
  const url = new URLSearchParams(query);
  const product = url.get("product");
  if (product) return { view: "product", id: product };
  const filters = emptyFilters();
  for (const name of LIST_FILTERS) filters[name] = url.getAll(name).filter(Boolean);
  const sort = url.get("sort");
  const limit = Number(url.get("limit"));
  const search: SearchState = {
    q: url.get("q")?.trim() ?? "",
    filters,
    currency: url.get("currency"),
    priceMin: url.get("price_min"),
    priceMax: url.get("price_max"),
    sort: isSort(sort) ? sort : null,
    typos: url.get("typos") !== "false",
    synonyms: url.get("synonyms") !== "false",
    limit: Number.isInteger(limit) && limit > 0 ? limit : PAGE_SIZE,
  };
  return hasSearch(search) ? { view: "search", search } : { view: "start" };
}

/** A search asks something: words, or a filter alone (browsing). */
export function hasSearch(search: SearchState): boolean {
  return search.q !== "" || LIST_FILTERS.some((name) => search.filters[name].length > 0) || search.priceMin !== null || search.priceMax !== null;
}

export function writeState(state: PageState): string {
  const url = new URLSearchParams();
  if (state.view === "product") url.set("product", state.id);
  if (state.view === "search") {
    const { search } = state;
    if (search.q) url.set("q", search.q);
    for (const name of LIST_FILTERS) for (const value of search.filters[name]) url.append(name, value);
    if (search.currency) url.set("currency", search.currency);
    if (search.priceMin) url.set("price_min", search.priceMin);
    if (search.priceMax) url.set("price_max", search.priceMax);
    if (search.sort) url.set("sort", search.sort);
    if (!search.typos) url.set("typos", "false");
    if (!search.synonyms) url.set("synonyms", "false");
    if (search.limit !== PAGE_SIZE) url.set("limit", String(search.limit));
  }
  const text = url.toString();
  return text ? `?${text}` : "";
}

/** Every facet the API counts (the compiler checks that none is missing): the page shows each as a filter. */
const FACETS_ASKED: Record<Facet, true> = {
  brand: true,
  category: true,
  availability: true,
  price: true,
  audience: true,
  colour: true,
  material: true,
};

/** The search's parameters, as the typed client takes them. */
export function searchParams(search: SearchState, cursor?: string): SearchParamsInput {
  const list = (name: ListFilter) => (search.filters[name].length > 0 ? search.filters[name] : undefined);
  return {
    q: search.q || undefined,
    brand: list("brand"),
    category: list("category"),
    availability: list("availability"),
    audience: list("audience"),
    colour: list("colour"),
    material: list("material"),
    currency: search.currency ?? undefined,
    price_min: search.priceMin ?? undefined,
    price_max: search.priceMax ?? undefined,
    sort: search.sort ?? undefined,
    typos: search.typos,
    synonyms: search.synonyms,
    facets: Object.keys(FACETS_ASKED) as Facet[],
    limit: search.limit,
    cursor,
  };
}
