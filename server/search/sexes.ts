/**
 * Whom a product is made for by sex, and whom a query asks for: a watch "for men" is not answered by "Women's Riley"
 * watches, nor "womens sandals" by a men's pair. A product naming both sexes, or neither, suits either.
 */
import { wordsUnpossessed as words } from "./lexical.js";
import { namedIn, onlyOther } from "./made-for.js";

export type Sex = "male" | "female";

/** Words saying a product is made for one sex, as names and categories say it ("Men's", "Ladies'", "Boys", "for Her"). */
const PRODUCT_WORDS: Record<string, Sex> = {
  men: "male",
  mens: "male",
  male: "male",
  boy: "male",
  boys: "male",
  gentlemen: "male",
  him: "male",
  women: "female",
  womens: "female",
  female: "female",
  ladies: "female",
  girl: "female",
  girls: "female",
  her: "female",
  // As shops in French, German, Spanish and Italian name them ("Montre … femme", "Herren"): an English query's
  // "men" still leaves out a women's watch named in French.
  homme: "male",
  hommes: "male",
  herren: "male",
  hombre: "male",
  hombres: "male",
  uomo: "male",
  femme: "female",
  femmes: "female",
  damen: "female",
  mujer: "female",
  mujeres: "female",
  donna: "female",
};

/**
 * The same in a query, and the people named by their relation ("necklace for my *wife*"). "man" and "woman" count
 * only where they name the shopper's person ("watch for a man"), not a character ("spider man costume").
 */
const QUERY_WORDS: Record<string, Sex> = {
  ...PRODUCT_WORDS,
  gentleman: "male",
  husband: "male",
  boyfriend: "male",
  dad: "male",
  father: "male",
  grandpa: "male",
  grandfather: "male",
  son: "male",
  brother: "male",
  uncle: "male",
  nephew: "male",
  grandson: "male",
  lady: "female",
  wife: "female",
  girlfriend: "female",
  mom: "female",
  mum: "female",
  mother: "female",
  grandma: "female",
  grandmother: "female",
  daughter: "female",
  sister: "female",
  aunt: "female",
  niece: "female",
  granddaughter: "female",
};
const PERSON: Record<string, Sex> = { man: "male", woman: "female" };
/** Words before "man" or "woman" that make it the person shopped for. */
const BEFORE_PERSON = new Set(["for", "a", "an", "the", "my", "young", "old", "older", "adult", "grown", "tall", "big", "active"]);

/** The sexes a query asks for, empty when it names none. */
export function sexesAsked(query: string): Set<Sex> {
  const asked = new Set<Sex>();
  const tokens = words(query);
  tokens.forEach((word, i) => {
    const sex = QUERY_WORDS[word] ?? (i === 0 || BEFORE_PERSON.has(tokens[i - 1]!) ? PERSON[word] : undefined);
    if (sex) asked.add(sex);
  });
  return asked;
}

/**
 * The sexes a product's name and category say it is made for, or else its description ("Sassy Scholar Adult Halloween
 * Costume" is "an adult women's costume"); empty when none names any.
 */
export function sexesOf(name: string, category: string | null | undefined, desc = ""): Set<Sex> {
  const named = sexesIn(`${name} ${category ?? ""}`);
  // A category segment of "Man" or "Woman" alone is whom the shop sells it to (Zara's "WOMAN > Boots").
  for (const segment of (category ?? "").split(">")) {
    const sex = PERSON[segment.trim().toLowerCase()];
    if (sex) named.add(sex);
  }
  return named.size > 0 ? named : sexesIn(desc);
}

function sexesIn(text: string): Set<Sex> {
  const made = namedIn(words(text), PRODUCT_WORDS);
  if (/\bunisex\b/iu.test(text)) made.add("male").add("female");
  return made;
}

/** Whether a product is made only for a sex the query does not ask for. */
export function otherSex(asked: ReadonlySet<Sex>, made: ReadonlySet<Sex>): boolean {
  return onlyOther(asked, made);
}
