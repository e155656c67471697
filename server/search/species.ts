/**
 * Which pet a product is made for, and which a query asks for: "dog food" is not answered by cat food, nor "flea
 * treatment for cats" by a treatment for dogs. Unlike a sex (sexes.ts), which only orders, another animal's product
 * is no answer at all: the relevance floor leaves it out. Read from the name and category only: descriptions say
 * "safe around cats" of a dog's bed. A product naming both animals, or neither, suits either. The words are data:
 * rules/en/species.json.
 */
import { wordsUnpossessed } from "./lexical.js";
import { derived, lookups } from "./rules/index.js";

/** An animal, as rules/en/species.json names it ("dog", "cat"). */
export type Species = string;

/** Each word naming an animal, and the animal ("puppies" → dog). */
const WORDS = derived(({ species }) => lookups(species).words);

/** The animals named in `text` ("Flea and Tick Treatment for Dogs", "Dogs' Bed"). */
export function speciesIn(text: string): Set<Species> {
  return new Set(wordsUnpossessed(text).flatMap((word) => WORDS().get(word) ?? []));
}
