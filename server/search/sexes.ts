/**
 * Whom a product is made for by sex, and whom a query asks for: a watch "for men" is not answered by "Women's Riley"
 * watches, nor "womens sandals" by a men's pair. A product naming both sexes, or neither, suits either. The words are
 * data: rules/en/sexes.json.
 */
import { wordsUnpossessed as words } from "./lexical.js";
import { anyOf, derived, lookups } from "./rules/index.js";

export type Sex = "male" | "female";

/**
 * The lists as lookups (rules/en/sexes.json): `product`, words saying a product is made for one sex, as names and
 * categories say it ("Men's", "Ladies'", "Boys", "for Her"); `person`, "man" and "woman", which count only where they
 * name the shopper's person ("watch for a man"), not a character ("spider man costume"): first, or after a word of
 * `beforePerson`; `anyAge`, people of any age ("daughter"), the sex they name no sign the product is for adults.
 */
const lists = derived(({ sexes }) => {
  const read = lookups(sexes);
  return {
    ...read,
    /** The product's words in a query too, and the people named by their relation ("necklace for my *wife*"). */
    query: new Map([...read.product, ...read.query]),
    /** Words naming both ("unisex"). */
    both: new RegExp(String.raw`\b${anyOf(sexes.both)}\b`, "iu"),
  };
});

/** The sexes a query asks for, empty when it names none; `adults`: only by words that name adults ("wife", "men's"). */
export function sexesAsked(query: string, options: { adults?: boolean } = {}): Set<Sex> {
  const { query: named, person, beforePerson, anyAge } = lists();
  const asked = new Set<Sex>();
  const tokens = words(query);
  tokens.forEach((word, i) => {
    if (options.adults && anyAge.has(word)) return;
    const sex = named.get(word) ?? (i === 0 || beforePerson.has(tokens[i - 1]!) ? person.get(word) : undefined);
    if (sex) asked.add(sex);
  });
  return asked;
}

/**
 * The sexes a product's name and category say it is made for, or else its description ("Sassy Scholar Adult Halloween
 * Costume" is "an adult women's costume"); empty when none names any.
 */
export function sexesOf(name: string, category: string | null | undefined, desc = "", departments: readonly string[] = []): Set<Sex> {
  const named = sexesIn(`${name} ${category ?? ""}`);
  // A category segment of "Man" or "Woman" alone is whom the shop sells it to (Zara's "WOMAN > Boots").
  const { person } = lists();
  const department = (segment: string) => person.get(segment.trim().toLowerCase());
  for (const segment of (category ?? "").split(">")) {
    const sex = department(segment);
    if (sex) named.add(sex);
  }
  // Where name and category say nothing, the shop's department in the page's address does ("/en/women/shirt-…").
  if (named.size === 0) for (const segment of departments) for (const sex of [...sexesIn(segment), department(segment)]) if (sex) named.add(sex);
  return named.size > 0 ? named : sexesIn(desc);
}

function sexesIn(text: string): Set<Sex> {
  const { product, both } = lists();
  const made = new Set(words(text).flatMap((word) => product.get(word) ?? []));
  if (both.test(text)) made.add("male").add("female");
  return made;
}
