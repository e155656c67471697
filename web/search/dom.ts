/**
 * Building the page's elements. Text always goes in as text nodes and attributes through setAttribute, never as HTML:
 * records are merchants' pages, and nothing in them may become markup.
 */
export type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, "");
    else if (typeof value === "string") element.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) element.append(child);
  return element;
}

/** `element`, with `listener` on `type`: for building a control in one expression. */
export function on<E extends HTMLElement, T extends keyof HTMLElementEventMap>(
  element: E,
  type: T,
  listener: (event: HTMLElementEventMap[T]) => void,
): E {
  element.addEventListener(type, listener);
  return element;
}

/** The element of the page's shell with this id (server/api/http/search-page.ts writes them). */
export function byId<E extends HTMLElement>(id: string): E {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as E;
}
