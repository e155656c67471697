/** Plain text from a value that may hold HTML or entities. */
import { decodeHTML } from "entities";
import { fold, parseHtml, textOf } from "./dom.js";

export function htmlToText(raw: string): string {
  // HTML that was entity-encoded once more (`&lt;p&gt;…`) is decoded before the tags are removed.
  const value = /&lt;\/?[a-z]/i.test(raw) ? decodeHTML(raw) : raw;
  if (/<[a-zA-Z!/]/.test(value)) {
    const document = parseHtml(value, { decodeEntities: true });
    // Entities encoded twice (`&amp;amp;`) are common in feeds copied into pages.
    return fold(decodeHTML(textOf(document)));
  }
  return fold(decodeHTML(decodeHTML(value)));
}
