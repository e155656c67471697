/** A search's answer as the page shows it: cards, facets as filters, what the service understood, and its messages. */
import { AVAILABILITY_GROUPS } from "../../shared/availability.js";
import { inTreeOrder } from "./tree.js";
import { type Child, h, on } from "./dom.js";
import { availabilityText, isAvailable, money, shown, siteOf } from "./format.js";
import type { ListFilter, SearchState } from "./state.js";
import type { AppliedConstraint, Facets, Hit, Interpretation, Message } from "./types.js";

/** An image that may not load (merchants' hosts, or no network): a placeholder with the name's first letter takes its place. */
export function picture(url: string | undefined, name: string, className: string): HTMLElement {
  const placeholder = () => h("div", { class: `${className} placeholder`, "aria-hidden": "true" }, name.trim().charAt(0).toUpperCase());
  if (!url) return placeholder();
  const image = h("img", { class: className, src: url, alt: "", loading: "lazy", decoding: "async", referrerpolicy: "no-referrer" });
  return on(image, "error", () => image.replaceWith(placeholder()));
}

/** A link to one product's view (`?product=id`): a real link, so it opens in a new tab too. */
function productLink(id: string, text: string, open: (id: string) => void): HTMLAnchorElement {
  const link = h("a", { href: `?product=${encodeURIComponent(id)}` }, text);
  return on(link, "click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    open(id);
  });
}

export function card(hit: Hit, open: (id: string) => void): HTMLElement {
  const record = shown(hit.pdp);
  const availability = availabilityText(record.availability);
  return h(
    "li",
    { class: "card" },
    h(
      "article",
      {},
      picture(record.images[0], record.name, "thumb"),
      h("h3", {}, productLink(record.id, record.name, open)),
      record.brand && h("p", { class: "brand" }, record.brand),
      h("p", { class: "price" }, record.price ?? "Price not stated", record.wasPrice && " ", record.wasPrice && h("s", {}, record.wasPrice)),
      availability && h("p", { class: isAvailable(record.availability) ? "stock in" : "stock out" }, availability),
      h("p", { class: "site" }, h("a", { href: record.url, target: "_blank", rel: "noopener noreferrer" }, `${siteOf(record.url)} ↗`)),
    ),
  );
}

/** What a change to the filters does: toggle a list filter's value, set or clear the price range, or clear them all. */
export type FilterChange =
  | { kind: "toggle"; filter: ListFilter; value: string }
  | { kind: "price"; currency: string; min: string; max: string | null }
  | { kind: "clear" };

const GROUP_WORDS: Record<keyof typeof AVAILABILITY_GROUPS, string> = {
  in_stock: "In stock",
  out_of_stock: "Out of stock",
  preorder: "Pre-order",
  backorder: "Back-order",
};

/** The availability facet counts schema.org states; the filter takes the shopper's groups of them. */
function availabilityGroups(values: NonNullable<Facets["availability"]>): { value: string; label: string; count: number }[] {
  return Object.entries(AVAILABILITY_GROUPS)
    .map(([group, states]) => ({
      value: group,
      label: GROUP_WORDS[group as keyof typeof AVAILABILITY_GROUPS],
      count: values.filter((entry) => (states as readonly string[]).includes(entry.value)).reduce((sum, entry) => sum + entry.count, 0),
    }))
    .filter((entry) => entry.count > 0);
}

function option(label: string, count: number, checked: boolean, change: () => void, title?: string): HTMLElement {
  const box = on(h("input", { type: "checkbox", checked }), "change", change);
  return h("li", {}, h("label", { title }, box, ` ${label} `, h("span", { class: "count" }, String(count))));
}

function group(title: string, options: HTMLElement[]): HTMLElement | null {
  if (options.length === 0) return null;
  return h("details", { class: "facet", open: true }, h("summary", {}, title), h("ul", {}, ...options));
}

const FACET_TITLES: Record<Exclude<ListFilter, "availability">, string> = {
  brand: "Brand",
  category: "Category",
  audience: "For",
  colour: "Colour",
  material: "Material",
};

/** The facets as filters, in one "Filters" disclosure: open beside the results, closed above them on a phone (`open`). */
export function facetsPanel(
  facets: Facets | undefined,
  search: SearchState,
  open: boolean,
  change: (change: FilterChange) => void,
): HTMLElement | null {
  if (!facets) return null;
  const list = (filter: Exclude<ListFilter, "availability">) =>
    group(
      FACET_TITLES[filter],
      (filter === "category" ? inTreeOrder(facets.category ?? []) : (facets[filter] ?? [])).map((entry) => {
        const label = filter === "category" ? (entry.value.split(" > ").at(-1) ?? entry.value) : entry.value;
        const depth = filter === "category" ? entry.value.split(" > ").length - 1 : 0;
        const item = option(
          label,
          entry.count,
          search.filters[filter].includes(entry.value),
          () => change({ kind: "toggle", filter, value: entry.value }),
          entry.value,
        );
        if (depth > 0) item.classList.add(`depth-${Math.min(depth, 3)}`);
        return item;
      }),
    );
  const availability = availabilityGroups(facets.availability ?? []).map((entry) =>
    option(entry.label, entry.count, search.filters.availability.includes(entry.value), () =>
      change({ kind: "toggle", filter: "availability", value: entry.value }),
    ),
  );
  const prices = (facets.price ?? []).map((bucket) => {
    const low = money(bucket.min, bucket.currency) ?? bucket.min;
    const label = bucket.max === null ? `${low} and up` : `${low} – ${money(bucket.max, bucket.currency) ?? bucket.max}`;
    const checked = search.currency === bucket.currency && search.priceMin === bucket.min && search.priceMax === bucket.max;
    return option(label, bucket.count, checked, () => change({ kind: "price", currency: bucket.currency, min: bucket.min, max: bucket.max }));
  });
  const filtered = Object.values(search.filters).some((values) => values.length > 0) || search.priceMin !== null || search.priceMax !== null;
  return h(
    "details",
    { class: "filters", open },
    h("summary", {}, "Filters"),
    filtered && on(h("button", { type: "button", class: "clear" }, "Clear filters"), "click", () => change({ kind: "clear" })),
    list("brand"),
    list("category"),
    group("Price", prices),
    group("Availability", availability),
    list("audience"),
    list("colour"),
    list("material"),
  );
}

/** What removing a chip asks: search again without the words a constraint was read from, as typed, or without synonyms. */
export type ChipRemoval = { kind: "words"; text: string } | { kind: "typos" } | { kind: "synonyms" };

const CONSTRAINT_WORDS: Record<string, string> = {
  price_min: "From",
  price_max: "Up to",
  availability: "Availability",
  brand: "Brand",
  category: "Category",
  audience: "For",
  colour: "Colour",
  material: "Material",
  exclude: "Without",
};

function chip(text: string, title: string, remove: (() => void) | null): HTMLElement {
  const button = remove && on(h("button", { type: "button", class: "remove", "aria-label": `Remove: ${text}` }, "×"), "click", remove);
  return h("li", { class: remove ? "chip" : "chip fixed", title }, text, button);
}

/** A constraint's value in words: a price in its currency ("400 USD" is $400.00), an availability group by its name. */
function constraintValue({ filter, value }: AppliedConstraint): string {
  if (filter === "price_min" || filter === "price_max") {
    const [amount, currency] = value.split(" ");
    return money(amount, currency) ?? value;
  }
  return filter === "availability" && value in GROUP_WORDS ? GROUP_WORDS[value as keyof typeof GROUP_WORDS] : value;
}

function constraintChip(constraint: AppliedConstraint, remove: (removal: ChipRemoval) => void): HTMLElement {
  const label = `${CONSTRAINT_WORDS[constraint.filter] ?? constraint.filter}: ${constraintValue(constraint)}`;
  return chip(label, `Read from “${constraint.text}”`, () => remove({ kind: "words", text: constraint.text }));
}

/**
 * `interpretation` as chips: constraints and unwanted words remove their words from the query, corrections search it
 * as typed (`typos=false`), synonyms without synonyms (`synonyms=false`); translations are shown, not removable.
 */
export function chips(interpretation: Interpretation | undefined, remove: (removal: ChipRemoval) => void): HTMLElement | null {
  if (!interpretation) return null;
  const items = [
    ...interpretation.applied.map((constraint) => constraintChip(constraint, remove)),
    ...(interpretation.avoided ?? []).map((avoided) =>
      chip(`Not ${avoided.word}`, `Read from “${avoided.text}”`, () => remove({ kind: "words", text: avoided.text })),
    ),
    ...(interpretation.corrections ?? []).map((correction) =>
      chip(`${correction.from} → ${correction.to}`, "Also searched as corrected; remove to search only as typed", () => remove({ kind: "typos" })),
    ),
    ...(interpretation.synonyms ?? []).map((synonym) =>
      chip(`${synonym.from} ≈ ${synonym.to.join(", ")}`, "Also searched as; remove to search without synonyms", () => remove({ kind: "synonyms" })),
    ),
    ...(interpretation.translations ?? []).map((translation) => chip(`${translation.from} → ${translation.to.join(", ")}`, "Translated", null)),
  ];
  if (items.length === 0) return null;
  return h("ul", { class: "chips", "aria-label": "What the search understood" }, ...items);
}

/** The answer's messages in words, with a way to run the search a message suggests; a plain sentence when nothing matched. */
export function messageList(messages: Message[] | undefined, matched: number, searchFor: (q: string) => void): HTMLElement | null {
  const items: Child[] = (messages ?? []).map((message) =>
    h(
      "li",
      { class: `message ${message.code}` },
      message.text,
      message.query && " ",
      message.query &&
        on(h("button", { type: "button", class: "link" }, `Search for “${message.query}”`), "click", () => searchFor(message.query ?? "")),
    ),
  );
  if (matched === 0 && items.length === 0) items.push(h("li", { class: "message none" }, "Nothing in the catalog matches this search."));
  return items.length > 0 ? h("ul", { class: "messages", role: "status" }, ...items) : null;
}
