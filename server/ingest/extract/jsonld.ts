/**
 * JSON-LD layer: every `application/ld+json` block, parsed leniently,
 * flattened (arrays, `@graph`, `mainEntity`), `@id` references resolved, and
 * the page's own Product (or ProductGroup) chosen among the products found.
 */
import { asArray, type Candidate, isObject, type JsonObject, str } from "./candidate.js";
import { type Page, rawText } from "./dom.js";
import { categoryFromCrumbs } from "./category.js";
import { type Json, parseLenientJson } from "./lenient-json.js";
import { isBuyable } from "./price.js";
import { ALL_RULES, type RuleSet } from "./rules.js";
import { breadcrumbs, type Crumb, isProductNode, productCandidate, prop, typesOf } from "./schema-org.js";

export function jsonLdNodes(page: Page): JsonObject[] {
  const nodes: JsonObject[] = [];
  for (const script of page.byTag("script")) {
    const type = (script.attribs.type ?? "").toLowerCase();
    if (!type.includes("ld+json")) continue;
    const parsed = parseLenientJson(rawText(script), page.budget);
    if (parsed !== undefined) collect(parsed, nodes, 0);
  }
  return nodes;
}

function collect(value: Json, into: JsonObject[], depth: number): void {
  if (depth > 6) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, into, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  const graph = value["@graph"];
  if (graph !== undefined) collect(graph, into, depth + 1);
  if (value["@type"] !== undefined || value["@id"] !== undefined) into.push(value);
  // A page node may hold the product as its main entity.
  for (const key of ["mainEntity", "mainEntityOfPage", "about"]) {
    const inner = value[key];
    for (const item of asArray(inner)) if (isObject(item) && isProductNode(item)) into.push(item);
  }
}

/** Replaces `{"@id": …}` references with the node that has that id (one level deep per property). */
function resolve(node: JsonObject, byId: Map<string, JsonObject>, depth = 0): JsonObject {
  if (depth > 3) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = resolveValue(value, byId, depth);
  }
  return out;
}

function resolveValue(value: Json, byId: Map<string, JsonObject>, depth: number): Json {
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, byId, depth));
  if (!isObject(value)) return value;
  const id = value["@id"];
  if (typeof id === "string" && Object.keys(value).length === 1) {
    const target = byId.get(id);
    return target ? resolve(target, byId, depth + 1) : value;
  }
  return resolve(value, byId, depth + 1);
}

export function jsonLdLayer(page: Page, pageUrl?: string, rules: RuleSet = ALL_RULES): Candidate | undefined {
  const nodes = jsonLdNodes(page);
  if (nodes.length === 0) return undefined;
  const byId = new Map<string, JsonObject>();
  for (const node of nodes) {
    const id = node["@id"];
    if (typeof id === "string" && Object.keys(node).length > 1 && !byId.has(id)) byId.set(id, node);
  }
  const products = nodes.filter(isProductNode);
  // Variants listed beside their group are not separate products of the page.
  const variantIds = new Set(
    products.flatMap((node) => asArray(prop(node, "hasVariant")).map((item) => (isObject(item) ? str(item["@id"]) : str(item)))),
  );
  const candidates = products.filter((node) => !(typeof node["@id"] === "string" && variantIds.has(node["@id"])));
  if (candidates.length === 0) {
    // Offers alone still say price and availability.
    const offer = nodes.find((node) => typesOf(node).some((type) => type === "offer" || type === "aggregateoffer"));
    return offer ? withCrumbs(productCandidate(resolve({ "@type": "Product", offers: offer }, byId), "ld_json", pageUrl, rules), nodes) : undefined;
  }
  const scored = candidates.map((node, index) => ({ node: resolve(node, byId), score: score(node, pageUrl), index }));
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen = withCrumbs(productCandidate(scored[0]!.node, "ld_json", pageUrl, rules), nodes);
  // One product per size or colour, each with its own offer: in stock when any of them is.
  const name = chosen.name;
  const siblings = name ? scored.slice(1).filter((item) => str(prop(item.node, "name")) === name) : [];
  if (siblings.length > 0 && !isBuyable(chosen.availability ?? null) && rules.on("ld_json.same_name_in_stock")) {
    const buyable = siblings
      .map((item) => productCandidate(item.node, "ld_json", pageUrl, rules))
      .find((item) => isBuyable(item.availability ?? null));
    if (buyable?.availability) chosen.availability = buyable.availability;
  }
  return chosen;
}

/** The category from the page's BreadcrumbList when the product states none (the longest list: the product's own trail). */
function withCrumbs(candidate: Candidate, nodes: JsonObject[]): Candidate {
  if (candidate.category) return candidate;
  const trails = nodes.filter((node) => typesOf(node).includes("breadcrumblist")).map(breadcrumbs);
  const longest = trails.reduce<Crumb[]>((best, trail) => (trail.length > best.length ? trail : best), []);
  const category = categoryFromCrumbs(longest);
  if (category) candidate.category = category;
  return candidate;
}

function score(node: JsonObject, pageUrl: string | undefined): number {
  let total = 0;
  if (prop(node, "offers") !== undefined || prop(node, "hasVariant") !== undefined) total += 3;
  if (str(prop(node, "name"))) total += 1;
  if (prop(node, "sku") !== undefined || prop(node, "gtin13") !== undefined) total += 1;
  if (prop(node, "image") !== undefined) total += 0.5;
  if (prop(node, "description") !== undefined) total += 0.5;
  const url = str(prop(node, "url"));
  if (url && pageUrl && sameishUrl(url, pageUrl)) total += 5;
  return total;
}

function sameishUrl(a: string, b: string): boolean {
  const key = (value: string) =>
    value
      .replace(/^https?:\/\/(www\.)?/i, "")
      .replace(/[?#].*$/, "")
      .replace(/\/$/, "")
      .toLowerCase();
  return key(a) === key(b);
}
