/**
 * What kind of product a name or category names, and what kind a query asks
 * for, as reranking evidence: in English the kind comes last in a compound
 * ("Stormline 3L Rain *Shell*", "Ridgeline 2P Backpacking *Tent*"), before
 * what qualifies it (", Men's", " with Straps", " for iPhone", " - Black").
 * A product of the kind asked for beats one that only shares adjectives
 * ("waterproof *gaiters*" for "waterproof jacket").
 */

import { isBedSize } from "./bed-sizes.js";

/** Where the qualifiers after a name's head begin. */
const QUALIFIER = /,|;|\(|\[|\s[-–—|/]\s|\s(?:with|for|in|by|featuring|from|w\/)\s/iu;

/** Words naming how a product is sold rather than what it is ("Spatula Set", "Socks 3-Pack"): the word before counts too. */
const PACKAGING = new Set(["set", "sets", "pack", "packs", "kit", "kits", "pair", "pairs", "bundle", "bundles", "collection", "refill", "refills"]);

/** Units of measure, which follow a number in a name ("20 cm", "1.5 L") and never name the product. */
const UNITS = new Set(
  "mm cm m km in inch inches ft foot feet yd g kg mg lb lbs oz fl ml cl l litre litres liter liters gal gallon gallons qt quart quarts w kw v mah wh gb tb mb mp hz ghz pcs pc pieces piece count ct x".split(
    " ",
  ),
);

/** Colour words that name no kind of product (not "cream", "orange", "olive", "gold", "charcoal" or "khaki": each can). */
const COLOURS = new Set("black white grey gray red blue green yellow purple pink brown beige navy teal maroon".split(" "));

/** Whom a product is made for, as names qualify a kind (", Women's"): a query's head word only when no other word can be. */
const WEARERS = new Set("men mens man women womens woman ladies girls boys kids unisex".split(" "));

/** Letter sizes ("jacket xl", "tee size m"): a property, as a colour is, never the kind asked. */
const SIZES = new Set("xxs xs s m l xl xxl xxxl 2xl 3xl 4xl twin queen king".split(" "));

/**
 * Money and time, which a request may leave among its words when no price or date is read from them ("shoes 120
 * *dollars*", "… ships *today*"): never the kind asked.
 */
const MONEY_AND_TIME = new Set(
  // Not every currency code: "cup" and "pen" are codes too.
  "dollar dollars buck bucks euro euros pound pounds quid kronor krona kr yen cents usd cad aud nzd eur gbp sek nok dkk jpy chf today tomorrow tonight now asap".split(
    " ",
  ),
);

/** Words that name no kind of product ("something to keep drinks cold", "running gear"): the words beside them say it. */
const VAGUE = new Set(
  "something anything stuff things thing gift gifts present presents idea ideas one gear equipment essentials supplies gadget gadgets item items product products".split(
    " ",
  ),
);

/**
 * Occasions a product is bought for ("*birthday* gift", "*christmas* ideas"): when, not what. Never the kind asked, and
 * a product lacking the word lacks little: a gift set suits a birthday without saying so.
 */
const OCCASIONS = new Set(
  "birthday birthdays christmas xmas anniversary anniversaries wedding weddings housewarming valentine valentines graduation retirement easter hanukkah diwali thanksgiving halloween".split(
    " ",
  ),
);

/** People by what they like, named by the word before ("coffee *lover*", "football *fan*"): whom it is for, as PEOPLE. */
const LIKERS = new Set("lover lovers fan fans enthusiast enthusiasts drinker drinkers".split(" "));

/** People a product is for, by what they do or who they are: after a preposition, whom it is for ("gift for a *runner*"). */
const PEOPLE = new Set(
  "runner runners hiker hikers cyclist cyclists climber climbers golfer golfers swimmer swimmers skier skiers gardener gardeners cook cooks baker bakers camper campers mom moms mum mums dad dads mother father parents grandma grandpa grandmother grandfather grandparents grandson granddaughter wife husband partner boyfriend girlfriend son daughter sister brother aunt uncle niece nephew teen teens teenager teenagers friend friends teacher boss colleague colleagues coworker coworkers neighbour neighbours neighbor neighbors host hostess".split(
    " ",
  ),
);

/** Where a query's qualifiers begin ("tent *for* 2 people", "jacket *with* a hood"). */
const PREPOSITIONS = new Set(["for", "with", "to", "on", "in", "from", "without", "under", "near", "by", "at", "like", "that", "which"]);

/** The head word of each hyphenated or possessive token: "T-Shirt" → "shirt", "Chef's" → "chef". */
function bare(token: string): string {
  const last = token.split(/[-‐/]/u).at(-1) ?? token;
  return last.replace(/['’]s?$/u, "").toLowerCase();
}

/** A name's plain words before its qualifiers, lower-cased: codes (digits, or two or three capitals: "PA", "GTX") and sizes left out. */
function nameWords(name: string): string[] {
  const segment = (name.split(QUALIFIER)[0] ?? name).replace(/\s&\s/gu, " and ");
  const tokens = segment.match(/[\p{L}\p{N}][\p{L}\p{N}'’\-‐/.+]*/gu) ?? [];
  // A unit after a number is a size, not a kind ("Chef's Knife 20 *cm*").
  const words = tokens
    .filter(
      (token, i) =>
        !/\p{N}/u.test(token) && !/^\p{Lu}{2,3}$/u.test(token) && !(i > 0 && /^\p{N}/u.test(tokens[i - 1]!) && UNITS.has(token.toLowerCase())),
    )
    .map(bare)
    .filter((word) => word.length > 1);
  // A colour ending the name is its variant, not its kind ("Cotton Tote Black", "Earl Grey"): the word before it is.
  while (words.length > 1 && COLOURS.has(words.at(-1)!)) words.pop();
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
  if (before === "and" && words.length > 2) return { kinds: [last, words.at(-3)!], sort: undefined };
  const sold = PACKAGING.has(last) && before !== undefined;
  const kind = sold ? words.length - 2 : words.length - 1;
  const sort = words[kind - 1];
  return { kinds: sold ? [last, before] : [last], sort: sort === "and" || words[kind - 2] === "and" ? undefined : sort };
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
        .filter((word) => word.length > 1 && !VAGUE.has(word) && !WEARERS.has(word)),
    ),
  ];
}

/** Whether a lower-cased word says how a product is sold ("set", "pack") rather than what it is. */
export function isPackaging(word: string): boolean {
  return PACKAGING.has(word);
}

/** Words a shopper opens with to ask for anything that does a job ("*something* to keep drinks cold", "a *gift* to keep a baby busy"). */
const ANY = new Set("something anything stuff things thing gift gifts present presents idea ideas".split(" "));

/**
 * Whether the query (lower-cased words, in order) describes what the product is to do rather than naming it: it opens,
 * after an article, with a word for anything and says more ("*something* to cook with on a camping trip"); a word for
 * a gift only before a preposition, as in `isVague` ("gift box" names a product).
 */
export function describesUse(words: readonly string[]): boolean {
  const first = words.findIndex((word) => word !== "a" && word !== "an" && word !== "the" && word !== "some");
  return first >= 0 && first < words.length - 1 && ANY.has(words[first]!) && isVague(words, first);
}

/** Words for a gift, which name no kind before whom or what it is for ("gift for a runner"), and ask for gifts elsewhere ("coffee gift"). */
const GIFTS = new Set(["gift", "gifts", "present", "presents"]);

/**
 * Whether a product lacking the query's word `i` (lower-cased words, in order) lacks little: a word naming no kind
 * ("hiking *gear*", "*something* cosy"), but a word for a gift only before a preposition ("*gift* ideas for a
 * runner"; "coffee gift" and "gift set" ask for what is sold as a gift); a letter size ("jacket *xl*"), which
 * a shop sells as a variant of a product, seldom in its words ("Polar Expedition Mittens, XL" is no jacket); and an
 * occasion ("*birthday* gift").
 */
export function isVague(words: readonly string[], i: number): boolean {
  if (SIZES.has(words[i]!) || OCCASIONS.has(words[i]!)) return true;
  if (!VAGUE.has(words[i]!)) return false;
  if (!GIFTS.has(words[i]!)) return true;
  let next = i + 1;
  while (next < words.length && VAGUE.has(words[next]!)) next++;
  return next < words.length && PREPOSITIONS.has(words[next]!);
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
  return LIKERS.has(words[i]!) || isWhom(words, i);
}

/** Words after the person a gift is for that say they like what follows ("for my sister *who loves* hiking"). */
const LIKING = new Set("who loves love likes like enjoys enjoy adores adore".split(" "));

/**
 * Whether the query's word `i` says which person a product is for, between a preposition and the word for them ("gift
 * for a *new* dad", "for my *little* sister"), or that they like what follows ("for my sister *who loves* hiking"): it
 * describes the person, not the product. Not a person itself, nor one named by what they like ("gift for a *coffee*
 * lover" asks for coffee things).
 */
export function describesWhom(words: readonly string[], i: number): boolean {
  if (LIKING.has(words[i]!)) {
    let person = i - 1;
    while (person >= 0 && LIKING.has(words[person]!)) person--;
    if (person >= 0 && isWhom(words, person)) return true;
  }
  if (PREPOSITIONS.has(words[i]!) || PEOPLE.has(words[i]!) || LIKERS.has(words[i]!)) return false;
  const person = words.findIndex((word, j) => j > i && (PREPOSITIONS.has(word) || isPerson(words, j) || LIKERS.has(word)));
  return person > i && isPerson(words, person) && afterPreposition(words, i);
}

/**
 * Prepositions after which a query names what the product is for or where it goes ("cushion *for* the sofa", "lamp *by*
 * the bed"); not "with" (a tea cup with saucer may be sold as a cup and saucer set), "like", "from", "that" or "under".
 */
const PURPOSES = new Set(["for", "on", "in", "at", "near", "by", "to"]);

/**
 * The first preposition of purpose after the query's head word, outside a compound ("slip *on*"): the words after it
 * say what the product is for or where it goes, not what it is.
 */
export function purposeAfter(words: readonly string[], head: number, inCompound: (index: number) => boolean): number | undefined {
  const found = words.findIndex((word, i) => i > head && PURPOSES.has(word) && !inCompound(i));
  return found < 0 ? undefined : found;
}

/** Whether a preposition comes before the query's word `i`: what follows it qualifies ("gift *for* a runner"). */
function afterPreposition(words: readonly string[], i: number): boolean {
  return words.slice(0, i).some((word) => PREPOSITIONS.has(word));
}

/** A word for a person, but not as a verb after "to" ("something to *cook* with"). */
function isPerson(words: readonly string[], i: number): boolean {
  return PEOPLE.has(words[i]!) && words[i - 1] !== "to";
}

/** Whether a lower-cased word is a unit of measure ("gb", "ml"), which follows a number. */
export function isUnit(word: string): boolean {
  return UNITS.has(word);
}

const numeric = (word: string | undefined) => word !== undefined && /^\p{N}/u.test(word);

/** Whether the query's word `i` is a number, a code with digits, or the unit after a number ("500 *gb*"). */
export function isQuantity(words: readonly string[], i: number): boolean {
  const word = words[i]!;
  return /\p{N}/u.test(word) || (numeric(words[i - 1]) && UNITS.has(word));
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
  return before >= 0 && isContent(before) && !VAGUE.has(words[before]!) ? before : found;
}

function headWord(words: readonly string[], isContent: (index: number) => boolean, inCompound: (index: number) => boolean): number | undefined {
  let head: number | undefined;
  let label: number | undefined;
  let qualified = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (PREPOSITIONS.has(word) && !inCompound(i)) {
      if ((head ?? label) !== undefined) return head ?? label;
      qualified = true;
      continue;
    }
    // Whom it is for names no kind ("gift for a *runner*", though a shoe may be called a Trail Runner), nor do the
    // words before it that say which ("gift for a *coffee* lover" asks for no coffee more than for a grinder).
    if (qualified && (isPerson(words, i) || LIKERS.has(word))) {
      head = undefined;
      label = undefined;
      continue;
    }
    if (!isContent(i) || VAGUE.has(word) || OCCASIONS.has(word) || MONEY_AND_TIME.has(word) || isQuantity(words, i)) continue;
    // A number with its unit is a size ("disk 500 gb"); a bare number, the value of a property ("spf 50"), as a colour,
    // whom it is made for ("down jacket womens") and a size ("size L", "jacket xl") are.
    const property = COLOURS.has(word) || WEARERS.has(word) || SIZES.has(word) || word === "size" || words[i - 1] === "size" || isBedSize(words, i);
    if ((numeric(words[i + 1]) && !UNITS.has(words[i + 2] ?? "")) || property) label = i;
    else head = i;
  }
  return head ?? label;
}
