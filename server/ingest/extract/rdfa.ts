/**
 * RDFa layer: `typeof` scopes with `property` children (schema.org through
 * `vocab` or a `schema:` prefix), built into the JSON-LD shape and read like
 * any schema.org Product.
 */
import type { Candidate, JsonObject } from "./candidate.js";
import { type Element, fold, isTag, type Page, textOf } from "./dom.js";
import type { Json } from "./lenient-json.js";
import type { RuleSet } from "./rules.js";
import { isProductNode, productCandidate } from "./schema-org.js";

function value(element: Element): string {
  const a = element.attribs;
  if (a.content !== undefined) return fold(a.content);
  if (a.resource !== undefined) return a.resource;
  if (element.name === "a" || element.name === "link") return a.href ?? "";
  if (element.name === "img" || element.name === "video" || element.name === "source") return a.src ?? "";
  if (element.name === "time") return a.datetime ?? textOf(element);
  return textOf(element, 20_000);
}

function add(item: JsonObject, name: string, entry: Json): void {
  const existing = item[name];
  if (existing === undefined) item[name] = entry;
  else if (Array.isArray(existing)) existing.push(entry);
  else item[name] = [existing, entry];
}

function buildItem(scope: Element, depth = 0): JsonObject {
  const item: JsonObject = { "@type": (scope.attribs.typeof ?? "").split(/\s+/).filter(Boolean) };
  if (depth > 8) return item;
  const visit = (element: Element): void => {
    for (const child of element.children) {
      if (!isTag(child)) continue;
      const names = child.attribs.property;
      const isScope = child.attribs.typeof !== undefined;
      if (names !== undefined && !/^(og|fb|twitter|article|product):/i.test(names)) {
        const entry: Json = isScope ? buildItem(child, depth + 1) : value(child);
        for (const name of names.split(/\s+/).filter(Boolean)) add(item, name.replace(/^.*[/#:]/, ""), entry);
      }
      if (!isScope) visit(child);
    }
  };
  visit(scope);
  return item;
}

export function rdfaLayer(page: Page, pageUrl: string | undefined, rules: RuleSet): Candidate | undefined {
  const products = page.elements
    .filter((element) => element.attribs.typeof !== undefined && element.attribs.property === undefined)
    .map((element) => buildItem(element))
    .filter(isProductNode);
  if (products.length === 0) return undefined;
  const best = products.reduce((a, b) => (Object.keys(b).length > Object.keys(a).length ? b : a));
  const candidate = productCandidate(best, "rdfa", pageUrl, rules);
  delete candidate.raw;
  return candidate;
}
