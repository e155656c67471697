/**
 * The search page (/search): a client of the API like any other, through the typed tRPC client. The key is entered
 * once and kept in this browser's storage; what is shown lives in the URL (state.ts), so the back button, bookmarks
 * and reloads work. Answers to a navigation the person has since left are dropped.
 */
import { type CatalogClient, createCatalogClient } from "../../shared/client.js";
import { byId, h, on } from "./dom.js";
import { describeTrouble } from "./errors.js";
import { productView } from "./product.js";
import { type ChipRemoval, card, chips, type FilterChange, facetsPanel, messageList } from "./results.js";
import type { Facets, SearchAnswer } from "./types.js";
import { emptyFilters, newSearch, type PageState, readState, type SearchState, searchParams, writeState } from "./state.js";

const KEY_STORAGE = "catalog-search:api-key";

const form = byId<HTMLFormElement>("search-form");
const queryBox = byId<HTMLInputElement>("q");
const keyForm = byId<HTMLFormElement>("key-form");
const keyBox = byId<HTMLInputElement>("key");
const keyButton = byId<HTMLButtonElement>("key-button");
const notice = byId<HTMLParagraphElement>("notice");
const facetsArea = byId<HTMLElement>("facets");
const resultsArea = byId<HTMLElement>("results");

/** The last answer's Retry-After, in seconds: tRPC's errors carry the body, not the headers. */
let retryAfter: number | null = null;
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const header = response.headers.get("retry-after");
  retryAfter = header !== null && /^\d+$/.test(header) ? Number(header) : null;
  return response;
};

let client: CatalogClient | null = null;
let generation = 0;
/** Set once the person has searched on this page: the product view's "back" then goes back rather than to an empty page. */
let searchedHere = false;

function connect(key: string | null): void {
  client = key ? createCatalogClient({ baseUrl: location.origin, apiKey: key, fetch: recordingFetch }) : null;
  keyForm.hidden = client !== null;
  keyButton.hidden = client === null;
}

function say(text: string | null): void {
  notice.textContent = text ?? "";
  notice.hidden = text === null;
}

function fail(error: unknown): void {
  const trouble = describeTrouble(error, retryAfter);
  say(trouble.text);
  resultsArea.replaceChildren();
  if (trouble.askKey) {
    keyForm.hidden = false;
    keyBox.focus();
  }
}

function navigate(state: PageState): void {
  history.pushState(null, "", `/search${writeState(state)}`);
  void route();
}

async function route(): Promise<void> {
  const run = ++generation;
  const state = readState(location.search);
  say(null);
  queryBox.value = state.view === "search" ? state.search.q : "";
  if (!client) {
    say("Enter an API key to search the catalog.");
    keyBox.focus();
    return;
  }
  if (state.view === "product") return showProduct(client, state.id, run);
  facetsArea.replaceChildren();
  if (state.view === "search") return showSearch(client, state.search, run);
  document.title = "Search the catalog";
  resultsArea.replaceChildren(
    h("p", { class: "hint" }, "Type what you are looking for: “tent under $400 in stock”, “merino socks”, “espresso beans”."),
  );
}

async function showProduct(catalog: CatalogClient, id: string, run: number): Promise<void> {
  resultsArea.replaceChildren(h("p", { class: "hint" }, "Loading…"));
  try {
    const { pdp } = await catalog.products.byId.query({ id });
    if (run !== generation) return;
    document.title = pdp.name;
    facetsArea.replaceChildren();
    const back = searchedHere
      ? on(h("button", { type: "button", class: "link" }, "← Back to results"), "click", () => history.back())
      : h("a", { href: "/search" }, "← Search the catalog");
    resultsArea.replaceChildren(productView(pdp, back));
    byId("product-title").focus();
  } catch (error) {
    if (run === generation) fail(error);
  }
}

async function showSearch(catalog: CatalogClient, search: SearchState, run: number): Promise<void> {
  document.title = search.q ? `${search.q} – Search the catalog` : "Search the catalog";
  resultsArea.setAttribute("aria-busy", "true");
  try {
    const answer = await catalog.products.search.query(searchParams(search));
    if (run !== generation) return;
    // bench/search-page.ts reads the time from the answer to the painted results.
    performance.mark("answer");
    searchedHere = true;
    paint(catalog, search, answer);
    requestAnimationFrame(() => performance.measure("answer-to-paint", "answer"));
  } catch (error) {
    if (run === generation) fail(error);
  } finally {
    resultsArea.removeAttribute("aria-busy");
  }
}

/** The currency a price sort is in when the person chose none: the one most of the matched products are priced in. */
function commonestCurrency(facets: Facets | undefined): string | null {
  const totals = new Map<string, number>();
  for (const bucket of facets?.price ?? []) totals.set(bucket.currency, (totals.get(bucket.currency) ?? 0) + bucket.count);
  return [...totals].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

function sortControl(search: SearchState, facets: Facets | undefined): HTMLElement {
  const choices = { relevance: "Best match", price_asc: "Price, lowest first", price_desc: "Price, highest first", newest: "Newest" } as const;
  const select = h(
    "select",
    { id: "sort" },
    ...Object.entries(choices).map(([value, label]) => h("option", { value, selected: search.sort === value }, label)),
  );
  if (!search.sort) select.value = search.q ? "relevance" : "newest";
  on(select, "change", () => {
    const sort = select.value as keyof typeof choices;
    const currency = sort.startsWith("price_") ? (search.currency ?? commonestCurrency(facets)) : search.currency;
    navigate({ view: "search", search: { ...search, sort, currency } });
  });
  return h("label", { class: "sort" }, "Sort ", select);
}

function paint(catalog: CatalogClient, search: SearchState, answer: SearchAnswer): void {
  const wide = matchMedia("(min-width: 45rem)").matches;
  const filters = facetsPanel(answer.facets, search, wide, (change) => navigate({ view: "search", search: filtered(search, change) }));
  facetsArea.replaceChildren(...(filters ? [filters] : []));

  const open = (id: string) => navigate({ view: "product", id });
  const list = h("ul", { class: "cards" }, ...answer.products.map((hit) => card(hit, open)));
  const more = answer.next_cursor ? moreButton(catalog, search, answer.next_cursor, list, open) : null;
  const count = answer.products.length;
  resultsArea.replaceChildren(
    h(
      "div",
      { class: "bar" },
      h("p", { class: "count", role: "status" }, count === 0 ? "No results" : `${count}${more ? "+" : ""} result${count === 1 && !more ? "" : "s"}`),
      sortControl(search, answer.facets),
    ),
    chips(answer.interpretation, (removal) => navigate({ view: "search", search: withoutChip(search, removal) })) ?? "",
    messageList(answer.messages, count, (q) => navigate({ view: "search", search: { ...search, q } })) ?? "",
    list,
    more ?? "",
  );
}

/** "More results": the next page through `next_cursor`, added below; focus moves to its first card for keyboard users. */
function moreButton(catalog: CatalogClient, search: SearchState, first: string, list: HTMLElement, open: (id: string) => void): HTMLElement {
  let cursor = first;
  const button = h("button", { type: "button", class: "more" }, "More results");
  return on(button, "click", async () => {
    const run = generation;
    button.disabled = true;
    try {
      const answer = await catalog.products.search.query(searchParams(search, cursor));
      if (run !== generation) return;
      const cards = answer.products.map((hit) => card(hit, open));
      list.append(...cards);
      cards[0]?.querySelector("a")?.focus();
      if (answer.next_cursor) cursor = answer.next_cursor;
      else button.remove();
    } catch (error) {
      if (run === generation) say(describeTrouble(error, retryAfter).text);
    } finally {
      button.disabled = false;
    }
  });
}

function filtered(search: SearchState, change: FilterChange): SearchState {
  if (change.kind === "clear") return { ...search, filters: emptyFilters(), priceMin: null, priceMax: null };
  if (change.kind === "price") {
    const same = search.currency === change.currency && search.priceMin === change.min && search.priceMax === change.max;
    return same
      ? { ...search, priceMin: null, priceMax: null }
      : { ...search, currency: change.currency, priceMin: change.min, priceMax: change.max };
  }
  const values = search.filters[change.filter];
  const next = values.includes(change.value) ? values.filter((value) => value !== change.value) : [...values, change.value];
  return { ...search, filters: { ...search.filters, [change.filter]: next } };
}

function withoutChip(search: SearchState, removal: ChipRemoval): SearchState {
  if (removal.kind === "typos") return { ...search, typos: false };
  if (removal.kind === "synonyms") return { ...search, synonyms: false };
  const at = search.q.toLowerCase().indexOf(removal.text.toLowerCase());
  if (at < 0) return search;
  const q = `${search.q.slice(0, at)} ${search.q.slice(at + removal.text.length)}`.replace(/\s+/g, " ").trim();
  return { ...search, q };
}

on(form, "submit", (event) => {
  event.preventDefault();
  const q = queryBox.value.trim();
  if (!q) return;
  const current = readState(location.search);
  const sort = current.view === "search" ? current.search.sort : null;
  // A new query starts afresh, keeping only the order asked (a price order needs the currency of the new matches).
  navigate({ view: "search", search: { ...newSearch(q), sort: sort?.startsWith("price_") ? null : sort } });
});

on(keyForm, "submit", (event) => {
  event.preventDefault();
  const key = keyBox.value.trim();
  if (!key) return;
  localStorage.setItem(KEY_STORAGE, key);
  keyBox.value = "";
  connect(key);
  void route();
});

on(keyButton, "click", () => {
  keyForm.hidden = false;
  keyBox.focus();
});

// "/" goes to the search box, as on most search pages, unless the person is typing somewhere.
document.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement;
  if (event.key !== "/" || target.closest("input, select, textarea")) return;
  event.preventDefault();
  queryBox.focus();
});

addEventListener("popstate", () => void route());
connect(localStorage.getItem(KEY_STORAGE));
void route();
