/**
 * What kind of product a name or category names, and what kind a query asks
 * for, as reranking evidence: in English the kind comes last in a compound
 * ("Stormline 3L Rain *Shell*", "Ridgeline 2P Backpacking *Tent*"), before
 * what qualifies it (", Men's", " with Straps", " for iPhone", " - Black").
 * A product of the kind asked for beats one that only shares adjectives
 * ("waterproof *gaiters*" for "waterproof jacket").
 */

import { isBedSize } from "./bed-sizes.js";
import { anyOf, derived, lookups } from "./rules/index.js";
import { isEnglishWord } from "./common-words.js";

/**
 * The word lists, data in rules/en/product-type.json (server/search/rules/README.md says what each holds), as sets,
 * with where a name's qualifiers begin as one pattern and the word "&" stands for, made again only when other rules
 * are installed.
 */
const lists = derived(({ productType: r }) => ({
  ...lookups(r),
  /** Where the qualifiers after a name's head begin: a mark, or a word of `qualifiers` (", Men's", " with Straps"). */
  qualifier: new RegExp(String.raw`,|;|\(|\[|\s[-–—|/]\s|\s${anyOf(r.qualifiers)}\s`, "iu"),
  /** Words joining two kinds ("Kettle *and* Teapot"); the first stands for "&". */
  and: r.conjunctions[0]!,
}));

/** The head word of each hyphenated or possessive token: "T-Shirt" → "shirt", "Chef's" → "chef". */
function bare(token: string): string {
  const last = token.split(/[-‐/]/u).at(-1) ?? token;
  return last.replace(/['’]s?$/u, "").toLowerCase();
}

/** A name's plain words before its qualifiers, lower-cased: codes (digits, or two or three capitals: "PA", "GTX") and sizes left out. */
function nameWords(name: string): string[] {
  const segment = (name.split(lists().qualifier)[0] ?? name).replace(/\s&\s/gu, ` ${lists().and} `);
  const tokens = segment.match(/[\p{L}\p{N}][\p{L}\p{N}'’\-‐/.+]*/gu) ?? [];
  // A unit after a number is a size, not a kind ("Chef's Knife 20 *cm*").
  const words = tokens
    .filter(
      (token, i) =>
        !/\p{N}/u.test(token) &&
        !/^\p{Lu}{2,3}$/u.test(token) &&
        !(i > 0 && /^\p{N}/u.test(tokens[i - 1]!) && lists().units.has(token.toLowerCase())),
    )
    .map(bare)
    .filter((word) => word.length > 1);
  // A colour ending the name is its variant, not its kind ("Cotton Tote Black", "Earl Grey"): the word before it is.
  while (words.length > 1 && lists().colours.has(words.at(-1)!)) words.pop();
  return words;
}

/**
 * What a product name says it is. `kinds`, most telling first: the last plain word before the qualifiers, and the
 * word before it when that one only says how it is sold ("Spatula *Set*"), or the word before "and" ("&"): two
 * kinds joined. `sort`: the word right before the kind, which says which sort of it ("Alder *Dining* Chair", "Cast
 * Iron *Grill* Pan"); undefined when the kind stands alone or two kinds are joined.
 */
export function readName(name: string): { kinds: string[]; sort: string | undefined } {
  const words = nameWords(name);
  const last = words.at(-1);
  if (last === undefined) return { kinds: [], sort: undefined };
  const before = words.at(-2);
  // Two kinds joined ("Refrigerator and Freezer", "Kettle & Teapot"): the product is both.
  if (before !== undefined && lists().conjunctions.has(before) && words.length > 2) return { kinds: [last, words.at(-3)!], sort: undefined };
  const sold = lists().packaging.has(last) && before !== undefined;
  const kind = sold ? words.length - 2 : words.length - 1;
  const sort = words[kind - 1];
  return {
    kinds: sold ? [last, before] : [last],
    sort: lists().conjunctions.has(sort!) || lists().conjunctions.has(words[kind - 2]!) ? undefined : sort,
  };
}

/** What joins several kinds in one segment ("Coffee & Tea", "Kitchen, Dining", "Bed and Bath"): as schema.ts's `search` reads it. */
const JOINERS = String.raw`&|,|\/|\band\b`;
const JOINED = new RegExp(JOINERS, "iu");
const JOINS = new RegExp(String.raw`\s*(?:${JOINERS})\s*`, "iu");

/** A segment ending in a number and the word it counts ("Up to 10 seats", "10-13 anni"). */
const COUNTED = /\d\s+[\p{L}'’-]+\s*$/u;

/**
 * The kinds a category names, the last segment's first: "Kitchen > Cookware > Pans" → pans, cookware, kitchen. The last
 * segment may join several, and the product is one of them ("Kettles & Teapots" → both); a segment before it that joins
 * several names none ("Coffee & Tea > Coffee" is no tea).
 */
export function categoryHeads(category: string | null | undefined): string[] {
  const segments = (category ?? "").split(">").map((segment) => segment.trim());
  const leaf = segments.pop();
  if (!leaf) return [];
  const parts = [...leaf.split(JOINS), ...segments.filter((segment) => !JOINED.test(segment)).reverse()];
  return [
    ...new Set(
      parts
        .flatMap((part) => {
          const last = part.match(/[\p{L}'’-]+/gu)?.at(-1);
          // A count of something sizes the kind the segments before name ("Dining tables > Up to 10 *seats*").
          return last && !COUNTED.test(part) ? [bare(last)] : [];
        })
        // "Sleeping Gear", "Brewing Equipment" name no kind: what the gear is for is no kind either; nor does whom a
        // category is for ("Men > Wrist Watches").
        .filter((word) => word.length > 1 && !lists().vague.has(word) && !lists().wearers.has(word)),
    ),
  ];
}

/** Whether a lower-cased word says how a product is sold ("set", "pack") rather than what it is. */
export function isPackaging(word: string): boolean {
  return lists().packaging.has(word);
}

/**
 * Whether the query (lower-cased words, in order) describes what the product is to do rather than naming it: it opens,
 * after an article, with a word for anything and says more ("*something* to cook with on a camping trip"); a word for
 * a gift only before a preposition, as in `isVague` ("gift box" names a product).
 */
export function describesUse(words: readonly string[]): boolean {
  const first = words.findIndex((word) => !lists().articles.has(word));
  return first >= 0 && first < words.length - 1 && lists().any.has(words[first]!) && isVague(words, first);
}

/**
 * Whether a product lacking the query's word `i` (lower-cased words, in order) lacks little: a word naming no kind
 * ("hiking *gear*", "*something* cosy"), but a word for a gift only before a preposition ("*gift* ideas for a
 * runner"; "coffee gift" and "gift set" ask for what is sold as a gift); a letter size ("jacket *xl*"), which
 * a shop sells as a variant of a product, seldom in its words ("Polar Expedition Mittens, XL" is no jacket); and an
 * occasion ("*birthday* gift").
 */
export function isVague(words: readonly string[], i: number): boolean {
  if (lists().sizes.has(words[i]!) || lists().occasions.has(words[i]!)) return true;
  if (!lists().vague.has(words[i]!)) return false;
  if (!lists().gifts.has(words[i]!)) return true;
  let next = i + 1;
  while (next < words.length && lists().vague.has(words[next]!)) next++;
  return next < words.length && lists().prepositions.has(words[next]!);
}

/**
 * Whether the query's word `i` names whom the product is for, by who they are or what they do, after a preposition
 * ("gift for *dad*"). Not a person named by what they like ("coffee *lover*"): weighed as nothing, "lover" left
 * "coffee" alone to ask, and the coffee table came into the top five of "gift for a coffee lover".
 */
export function isWhom(words: readonly string[], i: number): boolean {
  return isPerson(words, i) && afterPreposition(words, i);
}

/**
 * Whether the query's word `i` is whom a product is for: one named by what they like ("coffee *lover*"), or a person
 * after a preposition ("gift for a *runner*"; a runner alone may be a table's). No product's word, so no typo of one
 * ("lover" is no "cover").
 */
export function namesWhom(words: readonly string[], i: number): boolean {
  return lists().likers.has(words[i]!) || isWhom(words, i);
}

/**
 * Whether the query's word `i` says which person a product is for, between a preposition and the word for them ("gift
 * for a *new* dad", "for my *little* sister"), or that they like what follows ("for my sister *who loves* hiking"): it
 * describes the person, not the product. Not a person itself, nor one named by what they like ("gift for a *coffee*
 * lover" asks for coffee things).
 */
export function describesWhom(words: readonly string[], i: number): boolean {
  if (lists().liking.has(words[i]!)) {
    let person = i - 1;
    while (person >= 0 && lists().liking.has(words[person]!)) person--;
    if (person >= 0 && isWhom(words, person)) return true;
  }
  if (lists().prepositions.has(words[i]!) || lists().people.has(words[i]!) || lists().likers.has(words[i]!)) return false;
  const person = words.findIndex((word, j) => j > i && (lists().prepositions.has(word) || isPerson(words, j) || lists().likers.has(word)));
  return person > i && isPerson(words, person) && afterPreposition(words, i);
}

/**
 * Prepositions after which a query names what the product is for or where it goes ("cushion *for* the sofa", "lamp *by*
 * the bed"); not "with" (a tea cup with saucer may be sold as a cup and saucer set), "like", "from", "that" or "under".
 */

/**
 * The first preposition of purpose after the query's head word, outside a compound ("slip *on*"): the words after it
 * say what the product is for or where it goes, not what it is.
 */
export function purposeAfter(words: readonly string[], head: number, inCompound: (index: number) => boolean): number | undefined {
  const found = words.findIndex((word, i) => i > head && lists().purposes.has(word) && !inCompound(i));
  return found < 0 ? undefined : found;
}

/** Whether a preposition comes before the query's word `i`: what follows it qualifies ("gift *for* a runner"). */
function afterPreposition(words: readonly string[], i: number): boolean {
  return words.slice(0, i).some((word) => lists().prepositions.has(word));
}

/** A word for a person, but not as a verb after "to" ("something to *cook* with"). */
function isPerson(words: readonly string[], i: number): boolean {
  return lists().people.has(words[i]!) && !lists().verbMarkers.has(words[i - 1]!);
}

/** Whether a lower-cased word is a unit of measure ("gb", "ml"), which follows a number. */
export function isUnit(word: string): boolean {
  return lists().units.has(word);
}

const numeric = (word: string | undefined) => word !== undefined && /^\p{N}/u.test(word);

/** Whether the query's word `i` is a number, a code with digits, or the unit after a number ("500 *gb*"). */
export function isQuantity(words: readonly string[], i: number): boolean {
  const word = words[i]!;
  return /\p{N}/u.test(word) || (numeric(words[i - 1]) && lists().units.has(word));
}

/**
 * Which of the query's words (lower-cased, in order) names the kind of product asked for: the last one before
 * the first preposition that follows such a word ("tent for 2 people" → tent), else the last one; never a
 * number, a unit after a number ("500 *gb*"), a stop word, or whom it is for after a preposition ("gift for a
 * runner"); a word before a bare number ("*spf* 50", "*size* 10"), or a colour, only when no other qualifies: it
 * names a property. A word saying how it is sold gives way to the word before it, as in names ("*knife* set": a
 * sheet mask set is no answer). A preposition in a compound the catalog writes ("slip-on", "ride-on": `inCompound`)
 * is a word of it, not where qualifiers begin. Undefined when no word qualifies.
 */
export function queryHead(
  words: readonly string[],
  isContent: (index: number) => boolean,
  inCompound: (index: number) => boolean = () => false,
): number | undefined {
  const found = headWord(words, isContent, inCompound);
  if (found === undefined || !isPackaging(words[found]!)) return found;
  // The count between them is the pack's size ("socks 3 pack").
  let before = found - 1;
  while (before >= 0 && isQuantity(words, before)) before--;
  return before >= 0 && isContent(before) && !lists().vague.has(words[before]!) ? before : found;
}

function headWord(words: readonly string[], isContent: (index: number) => boolean, inCompound: (index: number) => boolean): number | undefined {
  let head: number | undefined;
  let label: number | undefined;
  let qualified = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (lists().prepositions.has(word) && !inCompound(i)) {
      if ((head ?? label) !== undefined) return head ?? label;
      qualified = true;
      continue;
    }
    // Whom it is for names no kind ("gift for a *runner*", though a shoe may be called a Trail Runner), nor do the
    // words before it that say which ("gift for a *coffee* lover" asks for no coffee more than for a grinder).
    if (qualified && (isPerson(words, i) || lists().likers.has(word))) {
      head = undefined;
      label = undefined;
      continue;
    }
    if (!isContent(i) || lists().vague.has(word) || lists().occasions.has(word) || lists().moneyAndTime.has(word) || isQuantity(words, i)) continue;
    // A number with its unit is a size ("disk 500 gb"); a bare number, the value of a property ("spf 50"), as a colour,
    // whom it is made for ("down jacket womens") and a size ("size L", "jacket xl") are.
    const property =
      lists().colours.has(word) ||
      lists().wearers.has(word) ||
      lists().sizes.has(word) ||
      lists().sizeWords.has(word) ||
      lists().sizeWords.has(words[i - 1]!) ||
      isBedSize(words, i);
    if ((numeric(words[i + 1]) && !lists().units.has(words[i + 2] ?? "")) || property) label = i;
    else head = i;
  }
  return head ?? label;
}

/** The shortest English word a compound's head may be: "pot" would make a teapot a pot. */
const COMPOUND_HEAD_LEAST = 4;

/**
 * The kind an English compound of two English words names by its last ("whetstone": a stone; "headlamp": a lamp),
 * none for a word that is no such compound. The query's "stone" then finds the whetstone of its kind.
 */
export function compoundHeadOf(kind: string): string[] {
  if (kind.includes(" ")) return [];
  for (let at = 3; at <= kind.length - COMPOUND_HEAD_LEAST; at++) {
    const [first, head] = [kind.slice(0, at), kind.slice(at)];
    if (isEnglishWord(first) && isEnglishWord(head)) return [head];
  }
  return [];
}
