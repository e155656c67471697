/**
 * The bed size a query asks for and the one a product is made for: "queen size heated blanket" is not answered first
 * by the king, twin and full ones. A product naming several sizes ("Full/Queen") or none suits any. Read in a query only
 * beside a word for bedding, since "full", "double" and "twin" say other things too ("full zip hoodie").
 */
import { wordsUnpossessed } from "./lexical.js";
import { onlyOther } from "./made-for.js";

type BedSize = "twin" | "full" | "queen" | "king" | "california king";

const SIZES: Record<string, BedSize> = { twin: "twin", single: "twin", full: "full", double: "full", queen: "queen", king: "king" };

const BEDDING = new Set(
  "bed beds bedding sheet sheets comforter comforters duvet duvets blanket blankets quilt quilts mattress mattresses topper toppers bedspread coverlet pillowcase pillowcases headboard".split(
    " ",
  ),
);

/** The sizes `words` name ("California King" is its own size, not a king). */
function sizesIn(words: readonly string[]): Set<BedSize> {
  const sizes = new Set<BedSize>();
  words.forEach((word, i) => {
    const size = SIZES[word];
    if (size === "king" && (words[i - 1] === "california" || words[i - 1] === "cal")) sizes.add("california king");
    else if (size) sizes.add(size);
  });
  return sizes;
}

/** The bed sizes a query asks for: empty unless it names bedding. */
export function bedSizesAsked(query: string): Set<BedSize> {
  const words = wordsUnpossessed(query);
  return words.some((word) => BEDDING.has(word)) ? sizesIn(words) : new Set();
}

/** Whether the query's word `i` is a bed size beside a word for bedding ("duvet cover *double*"): a property, never the kind asked. */
export function isBedSize(words: readonly string[], i: number): boolean {
  return SIZES[words[i]!] !== undefined && words.some((word) => BEDDING.has(word));
}

/** Whether a product's name is for one bed size only, and not one the query asks for. */
export function otherBedSize(asked: ReadonlySet<BedSize>, name: string): boolean {
  return onlyOther(asked, sizesIn(wordsUnpossessed(name)));
}
