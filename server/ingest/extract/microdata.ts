/**
 * Microdata layer: `itemscope`/`itemtype`/`itemprop` items built into the
 * same JSON shape as JSON-LD (repeated properties become arrays), then the
 * page's Product read like any schema.org node. Also the loose `itemprop`s
 * some pages scatter outside any item (read by the visible layer).
 */
import type { Candidate, JsonObject } from "./candidate.js";
import { type Element, fold, isTag, type Page, textOf } from "./dom.js";
import type { Json } from "./lenient-json.js";
import { categoryFromCrumbs } from "./category.js";
import type { RuleSet } from "./rules.js";
import { breadcrumbs, isProductNode, productCandidate, typesOf } from "./schema-org.js";

const URL_PROPS = new Set(["a", "area", "link"]);
const SRC_PROPS = new Set(["img", "audio", "video", "source", "iframe", "embed", "track"]);

/** Value of a property element as the microdata spec reads it. */
export function propertyValue(element: Element): string {
  const a = element.attribs;
  if (a.content !== undefined) return fold(a.content);
  if (element.name === "meta") return "";
  if (URL_PROPS.has(element.name)) return a.href ?? "";
  if (SRC_PROPS.has(element.name)) return a.src ?? a["data-src"] ?? "";
  if (element.name === "object") return a.data ?? "";
  if (element.name === "data" || element.name === "meter") return a.value ?? "";
  if (element.name === "time") return a.datetime ?? textOf(element);
  return textOf(element, 20_000);
}

function add(item: JsonObject, name: string, value: Json): void {
  const existing = item[name];
  if (existing === undefined) item[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else item[name] = [existing, value];
}

export function buildItem(scope: Element, depth = 0): JsonObject {
  const item: JsonObject = {};
  const type = scope.attribs.itemtype;
  if (type) item["@type"] = type.split(/\s+/).filter(Boolean);
  if (depth > 8) return item;
  const visit = (element: Element): void => {
    for (const child of element.children) {
      if (!isTag(child)) continue;
      const names = child.attribs.itemprop;
      const isScope = child.attribs.itemscope !== undefined;
      if (names !== undefined) {
        const value: Json = isScope ? buildItem(child, depth + 1) : propertyValue(child);
        for (const name of names.split(/\s+/).filter(Boolean)) add(item, name.replace(/^.*[/#]/, ""), value);
      }
      if (!isScope) visit(child);
    }
  };
  visit(scope);
  return item;
}

/**
 * Top-level microdata items: scopes that are not a property of another item,
 * plus orphan property scopes (an `itemprop="offers" itemscope` outside any
 * item, which broken templates produce).
 */
export function microdataItems(page: Page): JsonObject[] {
  return page.elements
    .filter((element) => element.attribs.itemscope !== undefined)
    .filter((element) => element.attribs.itemprop === undefined || !hasScopeAncestor(element))
    .map((element) => buildItem(element));
}

function hasScopeAncestor(element: Element): boolean {
  for (let parent = element.parent; parent && isTag(parent); parent = parent.parent) {
    if (parent.attribs.itemscope !== undefined) return true;
  }
  return false;
}

export function microdataLayer(page: Page, pageUrl: string | undefined, rules: RuleSet): Candidate | undefined {
  const items = microdataItems(page);
  const products: JsonObject[] = [];
  for (const item of items) {
    if (isProductNode(item)) products.push(item);
    else {
      // An ItemPage / WebPage whose main entity (or any direct property) is a product.
      for (const value of Object.values(item)) {
        for (const inner of Array.isArray(value) ? value : [value]) {
          if (typeof inner === "object" && inner !== null && !Array.isArray(inner) && isProductNode(inner)) products.push(inner);
        }
      }
    }
  }
  if (products.length === 0) return undefined;
  // The richest product is the page's own; related products are usually sparse.
  const best = products
    .map((item, index) => ({
      item,
      index,
      score: (item.offers ? 3 : 0) + (item.name ? 1 : 0) + (item.sku ? 1 : 0) + Object.keys(item).length / 100,
    }))
    .sort((a, b) => b.score - a.score || a.index - b.index)[0]!;
  const product = best.item;
  if (product.offers === undefined && product.price === undefined) {
    const orphan = items.find((item) => typesOf(item).some((type) => type === "offer" || type === "aggregateoffer"));
    if (orphan) product.offers = orphan;
  }
  const candidate = productCandidate(product, "microdata", pageUrl, rules);
  delete candidate.raw;
  if (!candidate.category) {
    const trail = items.filter((item) => typesOf(item).includes("breadcrumblist")).map(breadcrumbs)[0];
    const category = trail && categoryFromCrumbs(trail);
    if (category) candidate.category = category;
  }
  return candidate;
}
