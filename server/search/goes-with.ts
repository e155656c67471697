/**
 * What goes with the thing a query says a product is for ("something cosy for the *sofa*": a throw, a cushion): kinds
 * of product no page need say, since a throw's page seldom names the sofa it is laid on. Searched beside the word, and
 * ranked as the kind asked only when the query names no kind the catalog sells (rerankers/ranking.ts); "cushion for
 * the sofa" still asks for cushions. A short list of shopping English, as the built-in synonyms are: furniture and
 * the soft furnishings shops sell for it: rules/en/goes-with.json.
 */
import { STOP_WORDS } from "./common-words.js";
import { derived, rules } from "./rules/index.js";

// Only kinds made for the thing and little else: a "bed", "toy" or "bag" goes with a dog, a cat or a laptop, but as
// often with something else (measured with bench:probe: a sofa bed and a soft toy for "flea treatment for cats", a
// sleeping bag for "running out of space on my laptop"), and accessories' pages name what they fit anyway. Several
// words name the kind their last word names where the name holds them all ("Linen *Cushion Cover*").
const things = derived(({ goesWith }) => new Map(Object.entries(goesWith.things)));

/** The kinds that go with a word in the list, in the singular or plural ("sofas"); undefined for any other. */
function kindsFor(word: string): readonly string[] | undefined {
  const kinds = things();
  return kinds.get(word) ?? (word.endsWith("s") ? (kinds.get(word.slice(0, -1)) ?? kinds.get(word.slice(0, -2))) : undefined);
}

/**
 * For each of the query's words (lower-cased, in order) that the list knows and that follows a preposition of purpose
 * after some other word, only stop words between ("something cosy for *the* sofa"): its position and the kinds.
 */
export function goesWith(words: readonly string[]): { at: number; kinds: readonly string[] }[] {
  // Prepositions after which a query names what the product is for or where it goes ("for the sofa", "on my bed").
  const { purposes } = rules().goesWith;
  return words.flatMap((word, i) => {
    const kinds = kindsFor(word);
    if (!kinds) return [];
    let before = i - 1;
    while (before > 0 && STOP_WORDS.has(words[before]!) && !purposes.includes(words[before]!)) before--;
    return before > 0 && purposes.includes(words[before]!) ? [{ at: i, kinds }] : [];
  });
}
