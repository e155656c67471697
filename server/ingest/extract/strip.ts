/**
 * `raw_data.strippedHtml`: the page's content structure without what a
 * reader of the content never needs — scripts, styles, comments, SVG,
 * forms' plumbing, the head (except its title), presentational and
 * behavioural attributes, and elements left empty by all that. Text is
 * whitespace-folded; the attributes that carry content (links, image
 * sources, alt text, microdata/RDFa) are kept.
 */
import type { AnyNode } from "domhandler";
import type { Budget } from "./budget.js";
import { type Element, isTag, isText, type Page } from "./dom.js";

const DROP = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "canvas",
  "iframe",
  "object",
  "embed",
  "link",
  "meta",
  "base",
  "head",
  "input",
  "select",
  "textarea",
  "button",
  "option",
  "form-data",
  "map",
  "area",
  "audio",
  "track",
]);
const VOID = new Set(["br", "hr", "img", "source", "wbr", "col"]);
const KEEP_ATTRIBUTES = new Set([
  "href",
  "src",
  "alt",
  "title",
  "lang",
  "colspan",
  "rowspan",
  "datetime",
  "value",
  "content",
  "itemprop",
  "itemscope",
  "itemtype",
  "property",
  "typeof",
  "vocab",
  "resource",
]);
/** Elements kept even when empty, because they carry content through attributes. */
const KEEP_EMPTY = new Set(["img", "source", "br", "hr", "video", "td", "th"]);

export function stripHtml(page: Page): string {
  const title = page.byTag("title")[0];
  const body = page.byTag("body")[0];
  const roots: AnyNode[] = body ? [body] : page.document.children;
  const out: string[] = [];
  if (title) out.push(`<title>${escapeText(collapse(textContent(title)))}</title>`);
  for (const root of roots) serialize(root, out, page.budget);
  return out.join("").replace(/ {2,}/g, " ");
}

function textContent(element: Element): string {
  return element.children.map((child) => (isText(child) ? child.data : "")).join("");
}

/** Appends the node's stripped HTML to `out`; true when it holds content (text or a content-bearing element). */
function serialize(node: AnyNode, out: string[], budget: Budget): boolean {
  budget.tick();
  if (isText(node)) {
    const text = collapse(node.data);
    if (text === "") return false;
    out.push(escapeText(text));
    return text !== " ";
  }
  if (!isTag(node)) {
    let content = false;
    if (node.type === "root" && "children" in node) for (const child of node.children) content = serialize(child, out, budget) || content;
    return content; // comments, doctype, CDATA, processing instructions: nothing
  }
  if (DROP.has(node.name)) return false;
  if (node.attribs.hidden !== undefined || /display\s*:\s*none/i.test(node.attribs.style ?? "")) return false;
  const attributes = attributeText(node);
  if (VOID.has(node.name)) {
    if (node.name === "img" && !node.attribs.src && !node.attribs["data-src"]) return false;
    out.push(`<${node.name}${attributes}>`);
    return true;
  }
  const start = out.length;
  out.push(`<${node.name}${attributes}>`);
  let content = false;
  for (const child of node.children) content = serialize(child, out, budget) || content;
  if (!content && !KEEP_EMPTY.has(node.name) && !hasContentAttribute(node)) {
    // Nothing worth keeping inside: drop the element, keep at most a separating space.
    const hadSpace = out.length > start + 1;
    out.length = start;
    if (hadSpace) out.push(" ");
    return false;
  }
  out.push(`</${node.name}>`);
  return true;
}

function hasContentAttribute(element: Element): boolean {
  return element.attribs.itemprop !== undefined || element.attribs.content !== undefined;
}

function attributeText(element: Element): string {
  let out = "";
  for (const [name, raw] of Object.entries(element.attribs)) {
    let value = raw;
    if (name === "src" || (name === "data-src" && !element.attribs.src)) {
      if (value.startsWith("data:")) continue;
      out += ` src="${escapeAttribute(value)}"`;
      continue;
    }
    if (!KEEP_ATTRIBUTES.has(name)) continue;
    if (name === "href" && /^javascript:/i.test(value)) continue;
    if (name === "value" && element.name !== "data" && element.name !== "meter" && element.name !== "li") continue;
    if (name === "content" && element.attribs.itemprop === undefined && element.attribs.property === undefined) continue;
    value = collapse(value).trim();
    out += value === "" && name === "itemscope" ? " itemscope" : ` ${name}="${escapeAttribute(value)}"`;
  }
  return out;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ");
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
}
