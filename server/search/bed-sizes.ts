/**
 * The bed size a query asks for and the one a product is made for: "queen size heated blanket" is not answered first
 * by the king, twin and full ones. A product naming several sizes ("Full/Queen") or none suits any. Read in a query only
 * beside a word for bedding, since "full", "double" and "twin" say other things too ("full zip hoodie"). The words are
 * data: rules/en/bed-sizes.json.
 */
import { wordsUnpossessed } from "./lexical.js";
import { derived, lookups } from "./rules/index.js";

/** A bed size, as rules/en/bed-sizes.json names it ("queen", "california king"). */
type BedSize = string;

const lists = derived(({ bedSizes: { sizes, bedding, compound } }) => ({ ...lookups({ sizes, bedding }), compound }));

/** The sizes `words` name ("California King" is its own size, not a king). */
function sizesIn(words: readonly string[]): Set<BedSize> {
  const { sizes: named, compound } = lists();
  const sizes = new Set<BedSize>();
  words.forEach((word, i) => {
    const size = named.get(word);
    const whole = size && compound.find((rule) => rule.size === size && rule.before.includes(words[i - 1]!));
    if (whole) sizes.add(whole.is);
    else if (size) sizes.add(size);
  });
  return sizes;
}

/** The bed sizes a query asks for: empty unless it names bedding. */
export function bedSizesAsked(query: string): Set<BedSize> {
  const words = wordsUnpossessed(query);
  const { bedding } = lists();
  return words.some((word) => bedding.has(word)) ? sizesIn(words) : new Set();
}

/** Whether the query's word `i` is a bed size beside a word for bedding ("duvet cover *double*"): a property, never the kind asked. */
export function isBedSize(words: readonly string[], i: number): boolean {
  const { sizes, bedding } = lists();
  return sizes.has(words[i]!) && words.some((word) => bedding.has(word));
}
