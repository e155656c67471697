/**
 * The parsed page every layer reads: one htmlparser2 parse (depth bounded, html-parser.ts), one walk that
 * lists the elements in document order, and small helpers over them.
 */
import type { ParserOptions } from "htmlparser2";
import { type AnyNode, type Document, type Element, isTag, isText } from "domhandler";
import { type Budget, UNBOUNDED } from "./budget.js";
import { BoundedDomHandler, parseBounded } from "./html-parser.js";

export type { Document, Element };

export interface Page {
  document: Document;
  /** Every element, in document order. */
  elements: Element[];
  /** Elements by lower-case tag name. */
  byTag(name: string): Element[];
  /** What the extraction of this page may still spend; each layer ticks it in its loops. */
  budget: Budget;
}

const OPTIONS = { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true };

/** A document from HTML, open tags past HTML_MAX_DEPTH dropped (their text kept). */
export function parseHtml(html: string, options: ParserOptions = OPTIONS, budget: Budget = UNBOUNDED): Document {
  const handler = new BoundedDomHandler();
  parseBounded(html, handler, options, budget);
  return handler.root;
}

export function parsePage(html: string, budget: Budget = UNBOUNDED): Page {
  const document = parseHtml(html, OPTIONS, budget);
  const elements: Element[] = [];
  const stack: AnyNode[] = [...document.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    elements.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  budget.check();
  const index = new Map<string, Element[]>();
  for (const element of elements) {
    const list = index.get(element.name);
    if (list) list.push(element);
    else index.set(element.name, [element]);
  }
  return { document, elements, byTag: (name) => index.get(name) ?? [], budget };
}

export function attr(element: Element, name: string): string | undefined {
  return element.attribs[name];
}

/** Whitespace (including NBSP) folded to single spaces, trimmed. */
export function fold(text: string): string {
  return text.replace(/[\s\u00a0\u200b\ufeff]+/g, " ").trim();
}

const SKIP_TEXT = new Set(["script", "style", "noscript", "template", "svg"]);

/** Visible-ish text of a node (scripts and styles skipped), folded; stops collecting after about `limit` characters. */
export function textOf(node: AnyNode, limit = 100_000): string {
  const parts: string[] = [];
  let length = 0;
  const stack: (AnyNode | " ")[] = [node];
  while (stack.length > 0 && length <= limit) {
    const current = stack.pop()!;
    if (current === " ") {
      parts.push(" ");
    } else if (isText(current)) {
      parts.push(current.data);
      length += current.data.length;
    } else if (isTag(current)) {
      if (SKIP_TEXT.has(current.name)) continue;
      const block = BLOCK.has(current.name);
      if (block) stack.push(" ");
      for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i]!);
      if (block) parts.push(" ");
    } else if ("children" in current) {
      for (let i = current.children.length - 1; i >= 0; i--) stack.push(current.children[i]!);
    }
  }
  return fold(parts.join(""));
}

const BLOCK = new Set([
  "p",
  "div",
  "br",
  "li",
  "ul",
  "ol",
  "tr",
  "td",
  "th",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "section",
  "article",
  "dd",
  "dt",
  "table",
]);

/** The raw text inside a script or style element. */
export function rawText(element: Element): string {
  let out = "";
  for (const child of element.children) if (isText(child)) out += child.data;
  return out;
}

/** The element's ancestors, nearest first; the nearest `limit` of them when given (a page can be hundreds deep). */
export function ancestors(element: Element, limit = Number.POSITIVE_INFINITY): Element[] {
  const list: Element[] = [];
  let current = element.parent;
  while (current && isTag(current) && list.length < limit) {
    list.push(current);
    current = current.parent;
  }
  return list;
}

/**
 * Whether any ancestor of an element passes `test`, remembered per ancestor: asked of every element of a page, it
 * costs one walk up in all, where asking each element's ancestors afresh cost the page's size times its depth.
 */
export function someAncestor(test: (ancestor: Element) => boolean): (element: Element) => boolean {
  const known = new Map<Element, boolean>();
  return (element) => {
    const path: Element[] = [];
    let found = false;
    for (let node = element.parent; node && isTag(node); node = node.parent) {
      const remembered = known.get(node);
      if (remembered !== undefined) {
        found = remembered;
        break;
      }
      path.push(node);
      if (test(node)) {
        found = true;
        break;
      }
    }
    // Each node walked is below the one that decided, so the same holds of it (and of its ancestors' tests).
    for (const node of path) known.set(node, found);
    return found;
  };
}

/** Descendant elements of `root` in document order. */
export function descendants(root: Element): Element[] {
  const list: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    list.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return list;
}

export { isTag, isText };
