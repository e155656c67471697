/**
 * The parsed page every layer reads: one htmlparser2 parse, one walk that
 * lists the elements in document order, and small helpers over them.
 */
import { parseDocument } from "htmlparser2";
import { type AnyNode, type ChildNode, type Document, type Element, isTag, isText } from "domhandler";

export type { Document, Element };

export interface Page {
  document: Document;
  /** Every element, in document order. */
  elements: Element[];
  /** Elements by lower-case tag name. */
  byTag(name: string): Element[];
}

/**
 * Deeper than this, a page is malformed (unclosed tags nest without end): the
 * subtree below is flattened into one level, text kept, so that every walk
 * stays shallow and linear.
 */
export const MAX_DEPTH = 400;

export function parsePage(html: string): Page {
  const document = parseDocument(html, { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true });
  const elements: Element[] = [];
  const stack: { node: AnyNode; depth: number }[] = [...document.children].reverse().map((node) => ({ node, depth: 1 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (!isTag(node)) continue;
    elements.push(node);
    if (depth === MAX_DEPTH) flatten(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  const index = new Map<string, Element[]>();
  for (const element of elements) {
    const list = index.get(element.name);
    if (list) list.push(element);
    else index.set(element.name, [element]);
  }
  return { document, elements, byTag: (name) => index.get(name) ?? [] };
}

/** Makes every descendant of `root` a direct child, in document order, each element emptied. */
function flatten(root: Element): void {
  const flat: ChildNode[] = [];
  const stack: ChildNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    flat.push(node);
    if (isTag(node)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
      node.children = [];
    }
  }
  flat.forEach((node, index) => {
    node.parent = root;
    node.prev = flat[index - 1] ?? null;
    node.next = flat[index + 1] ?? null;
  });
  root.children = flat;
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

export function ancestors(element: Element): Element[] {
  const list: Element[] = [];
  let current = element.parent;
  while (current && isTag(current)) {
    list.push(current);
    current = current.parent;
  }
  return list;
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
