/**
 * The local reranker's reading of a query: each word with its stemmed forms and weight (a Clause), and the query's
 * head word, whether it says "free", and whether it describes a use (a Query).
 */
import { isEnglishWord } from "../common-words.js";
import { describesUse, describesWhom, isPackaging, isQuantity, isVague, isWhom, namesWhom, purposeAfter, queryHead } from "../product-type.js";
import { rules } from "../rules/index.js";
import { isStopWord, languageData } from "../languages/data.js";
import type { Form, QueryPlan } from "../understand.js";
import type { LocalWeights } from "./ranking.js";

/** One of a query word's forms, stemmed: a product holds it when it holds every lexeme. */
export interface StemmedForm {
  lexemes: string[];
  weight: number;
  /** A typo's correction, not the word as typed or a synonym. */
  corrected: boolean;
  /** Held as its lexeme, or by any code made of it and a number (understand.ts's prefix forms: "spf" in "spf50"). */
  prefix?: boolean;
  /**
   * For a word the stemmer cut a suffix off that makes another word ("light*ing*" → light, "comfort*er*" → comfort),
   * the word as written in both numbers (`forms`), and the stem's own words ("light", "lights"). Name, brands and
   * category hold the word only as written, since the stem names another thing ("Light Roast" coffee is no lighting,
   * a bed no bedding). Found as the stem's own word anywhere it counts as the description does ("hikes" for
   * "hiking"); found only inside another word ("*organ*ic" for "organizer"), as `credit.stem`. For a word saying a
   * doing ("insulating", "cancelling"), `verb` is the stem, whose other forms of the doing count as its own words
   * ("insulated", "cancellation").
   */
  written?: { forms: string[]; stem: string[]; verb?: string };
  /**
   * For a compound of a word and a stop word (understand.ts's `compound`: "pour-over"), the word's lexeme and which
   * side the stop word stands: a product writing the two apart ("Wreck It Ralph") holds it too, as the word with a
   * gap on that side, where the index dropped the stop word; not the gap a compound's stop word leaves ("On-Ear" is
   * no "over ear").
   */
  compound?: { lexeme: string; stopBefore: boolean };
}

/** A query word with lexemes in some form (stop words have none), and its weight in the query. */
export interface Clause {
  forms: StemmedForm[];
  idf: number;
  /** A word before the query's head word, not a number nor its unit: the sort of the kind asked ("*office* chair"). */
  sort: boolean;
  /** A word after the head word saying how it is sold ("knife *set*"): it names a kind asked only beside the head word. */
  sold: boolean;
  /** A word after the head word's preposition of purpose: what the product is for ("cushion for the *sofa*"), no kind asked. */
  target: boolean;
  /** A word before the head word, not a quantity, with no "and" between them: the sort, or what it goes with ("*knife* sharpener"). */
  before: boolean;
  /** For a target word, the kinds that go with it (understand.ts's `goesWith` forms): Scored's `fitted`. */
  fits: StemmedForm[];
}

export interface Query {
  clauses: Clause[];
  /** The clause of the word naming the kind of product asked for. */
  head: Clause | undefined;
  /** The query describes what the product is to do (describesUse): its head word says what that is. */
  use: boolean;
  /** Its head word is English and the catalog holds it in no form (Scored's `headUnsold`). */
  headUnsold: boolean;
}

/** What follows a stem in the word's own forms ("shoe|s", "dress|es", "candl|e"), as against a suffix making another word. */
const INFLECTIONS = ["", "s", "es", "e"];

/** StemmedForm's `written`, for a one-word form whose stem lost a suffix making another word; else undefined. */
export function writtenOf(words: readonly string[], lexemes: readonly string[]): StemmedForm["written"] {
  const word = words.length === 1 ? words[0]! : "";
  const stem = lexemes.length === 1 ? lexemes[0]! : "";
  if (!stem || !word.startsWith(stem) || INFLECTIONS.includes(word.slice(stem.length))) return undefined;
  // The stemmer writes a final y as i ("happi"): its own words are "happy" and "happies" too.
  const bases = stem.endsWith("i") ? [stem, `${stem.slice(0, -1)}y`] : [stem];
  return {
    forms: word.endsWith("s") ? [word, word.slice(0, -1)] : [word, `${word}s`],
    // A plural in -ings names things, not the doing ("stockings", "paintings", "fittings"): the stem's own word is
    // another thing (a stock, a paint), found only as inside another word. "hiking" is the doing, and "hikes" says it.
    stem: word.endsWith("ings") ? [] : bases.flatMap((base) => INFLECTIONS.map((ending) => base + ending)),
    ...(DOING.test(word.slice(stem.length)) && { verb: stem }),
  };
}

/**
 * What follows a stem in the forms saying a doing: -ing, -ed and -ion, after a doubled consonant ("cancel|ling") or
 * the -at- the stemmer cut ("insul|ated", "insul|ation"). Not -ings (things), -er (a thing that does it: "organizer",
 * whose stem is also organic's) nor -ic or -al.
 */
const DOING = /^[a-z]?(?:at)?(?:ing|ed|ion|ions)$/;

/** Whether a word is a form of the doing whose stem is given ("insulated" of insul, "cancellation" of cancel). */
export function doingOf(word: string, stem: string): boolean {
  return word.startsWith(stem) && DOING.test(word.slice(stem.length));
}

/** What reading a query needs of the reranker: its weights, the catalog's size and its document frequencies. */
export interface QueryContext {
  weights: LocalWeights;
  catalogSize: () => Promise<number>;
  documentFrequencies: (lexemes: readonly string[]) => Promise<Map<string, number>>;
}

/** A query word's clause before its place in the query is read, and whether the catalog holds it in some form. */
type Word = Omit<Clause, "sort" | "sold" | "target" | "before" | "fits"> & { heldAnywhere: boolean };

/** How the plan's words are weighed: their forms' stems and the catalog's document frequencies of them. */
interface Weighing {
  plan: QueryPlan;
  weights: LocalWeights;
  /** The plan's forms but those going with a target word, which are no form of it: they only answer for it (Clause's `fits`). */
  searched: readonly Form[];
  /** The distinct lexemes of a text in the catalog's language. */
  lexemes: (words: readonly string[]) => string[];
  readings: (words: readonly string[]) => string[][];
  idfOf: (frequency: number) => number;
  idf: (lexeme: string) => number;
  held: (form: { lexemes: readonly string[] }) => boolean;
  /**
   * Each compound form some product holds, with its word and side; one no product holds ("jacket-for") says nothing
   * of the stop word in it.
   */
  heldCompounds: Map<Form, NonNullable<StemmedForm["compound"]>>;
}

/**
 * The plan's words with their stemmed forms and weights; words with no lexemes in any form (stop words) are left out.
 * `stemmed` reads a text in the catalog's language, `readings` in each of the plan's (a form of a query in another
 * language is held as its own language's stems, or the catalog's).
 */
export async function queryOf(
  context: QueryContext,
  plan: QueryPlan,
  stemmed: ReadonlyMap<string, string[]>,
  readings: (words: readonly string[]) => string[][],
): Promise<Query> {
  const lexemes = (words: readonly string[]) => [...new Set(stemmed.get(words.join(" ")) ?? [])];
  const searched = plan.forms.filter((form) => !form.goesWith);
  const all = [...new Set(searched.flatMap((form) => readings(form.words).flat()))];
  const n = await context.catalogSize();
  const frequencies = await context.documentFrequencies(all);
  const idfOf = (frequency: number) => Math.log(1 + (n - frequency + 0.5) / (frequency + 0.5));
  const idf = (lexeme: string) => idfOf(frequencies.get(lexeme) ?? 0);
  const held = (form: { lexemes: readonly string[] }) => form.lexemes.every((lexeme) => (frequencies.get(lexeme) ?? 0) > 0);
  const heldCompounds = heldCompoundsOf(plan, searched, lexemes, held);
  const weighing: Weighing = { plan, weights: context.weights, searched, lexemes, readings, idfOf, idf, held, heldCompounds };
  return clausesOf(
    weighing,
    plan.words.map((_, i) => wordsAt(weighing, i)),
  );
}

function heldCompoundsOf(
  plan: QueryPlan,
  searched: readonly Form[],
  lexemes: Weighing["lexemes"],
  held: Weighing["held"],
): Weighing["heldCompounds"] {
  const heldCompounds: Weighing["heldCompounds"] = new Map();
  for (const form of searched) {
    if (!form.compound) continue;
    const found = lexemes(form.words);
    const lexeme = found.find((l) => !l.includes("-"));
    if (lexeme !== undefined && held({ lexemes: found }))
      heldCompounds.set(form, { lexeme, stopBefore: lexemes([plan.words[form.start]!]).length === 0 });
  }
  return heldCompounds;
}

/** Every reading of every searched form covering the plan's i-th word, with its weight; none for a compound no product holds. */
function formsAt({ weights, searched, readings, heldCompounds }: Weighing, i: number) {
  return searched
    .filter((form) => form.start <= i && i < form.end)
    .flatMap((form) => {
      const compound = heldCompounds.get(form);
      return form.compound && compound === undefined
        ? []
        : readings(form.words).map((found) => ({
            lexemes: found,
            words: form.words,
            weight: form.kind === "typed" || form.kind === "translation" || form.either ? 1 : weights.forms[form.kind],
            kind: form.kind,
            written: form.prefix ? undefined : writtenOf(form.words, found),
            prefix: form.prefix === true,
            compound,
          }));
    });
}

/** The plan's i-th word as the clauses it weighs as: none for a stop word, else one. */
function wordsAt(weighing: Weighing, i: number): Word[] {
  const { idf, idfOf, held } = weighing;
  const forms = formsAt(weighing, i);
  if (forms.length === 0) return [];
  // The word's weight in the query: as typed when the catalog holds it, else its commonest form the catalog holds.
  const typed = forms.find((form) => form.kind === "typed" && held(form));
  const weighed = typed ? [typed] : forms.filter(held);
  // A compound weighs as its word: the stop word beside it is no rarer a word than that ("Cables *To Go*" holds
  // "to go" as a "to-go" mug does, and weighed as rare as "to-go" it outweighed the mugs for "travel mug to go").
  const rarest = (form: (typeof forms)[number]) => (form.compound ? idf(form.compound.lexeme) : Math.max(...form.lexemes.map(idf)));
  const clauseIdf = weighed.length > 0 ? Math.min(...weighed.map(rarest)) : idfOf(0);
  return [
    {
      forms: forms.map(({ lexemes: l, weight, kind, written, prefix, compound }) => ({
        lexemes: l,
        weight,
        corrected: kind === "correction",
        ...(written && { written }),
        ...(prefix && { prefix }),
        ...(compound && { compound }),
      })),
      idf: clauseIdf,
      heldAnywhere: weighed.length > 0,
    },
  ];
}

/** The words' clauses in the query: which is its head word, which are its sort, how it is sold, or what it is for. */
function clausesOf({ plan, weights, lexemes, heldCompounds }: Weighing, byWord: readonly Word[][]): Query {
  // A preposition in a compound before the word it qualifies ("*slip on* sneakers"); last, it may be the preposition
  // it reads as ("mug *to go*").
  const inCompound = (i: number) => [...heldCompounds.keys()].some((form) => form.start <= i && i < form.end && form.end < plan.words.length);
  // A word neither the catalog nor English has ("dutch *ovn*", too short to correct; a model code the catalog lacks)
  // names no kind anyone sells: the kind is read from the other words.
  const isContent = (i: number) => byWord[i]!.some((word) => word.heldAnywhere) || (byWord[i]!.length > 0 && isEnglishWord(plan.words[i]!));
  const foreign = plan.language.query !== null && plan.language.query !== plan.language.catalog;
  const { joinsKinds } = rules().productType;
  const head = foreign ? foreignHead(plan.words, plan.language.query!, isContent) : queryHead(plan.words, isContent, inCompound);
  const purpose = head === undefined ? undefined : purposeAfter(plan.words, head, inCompound);
  const vague = plan.words.map((_, i) => isVague(plan.words, i));
  const plain = byWord.flatMap((words, i) => (vague[i] ? [] : words.map((word) => word.idf)));
  const vagueIdf = plain.length > 0 ? weights.vague * Math.min(...plain) : undefined;
  // Whom it is for, in words no product holds ("gift for *dad*"), counts for nothing: no product says it suits a dad,
  // and weighed as the rarest of words it left the gift box under the floor.
  // Nor do the words saying which person ("gift for a *new* dad"): "New Zealand wool" put the rug first.
  const unsaid = (i: number) => (isWhom(plan.words, i) && !byWord[i]!.some((word) => word.heldAnywhere)) || describesWhom(plan.words, i);
  const clauses = byWord.flatMap((words, i): Clause[] =>
    words.map((word, k) => ({
      forms: word.forms,
      idf: unsaid(i) ? 0 : vague[i] && vagueIdf !== undefined ? Math.min(word.idf, vagueIdf) : word.idf,
      // The first of a split head word is the sort of the kind its last names ("*water*bottle").
      sort: head !== undefined && (i < head || (i === head && k < words.length - 1)) && !isQuantity(plan.words, i),
      sold: head !== undefined && i > head && isPackaging(plan.words[i]!),
      target: purpose !== undefined && i > purpose,
      fits:
        purpose !== undefined && i > purpose
          ? plan.forms
              .filter((form) => form.goesWith && form.start === i)
              .map((form) => ({ lexemes: lexemes(form.words), weight: weights.forms.synonym, corrected: false }))
              .filter((form) => form.lexemes.length > 0)
          : [],
      before:
        head !== undefined && i < head && !isQuantity(plan.words, i) && !plan.words.slice(i + 1, head).some((word) => joinsKinds.includes(word)),
    })),
  );
  return {
    clauses,
    head: head === undefined ? undefined : clauses[byWord.slice(0, head + 1).flat().length - 1],
    use: describesUse(plan.words),
    headUnsold: head !== undefined && (unsold(byWord, head) ? isEnglishWord(plan.words[head]!) : sortUnsold(plan.words, byWord, head)),
  };
}

/**
 * The kind asked in a query in another language than the catalog's, by that language's own order: its first content
 * word where the language names the kind first (`phrases: head first` in its lexicon: "*cafetera* de cápsulas"),
 * else the last before the first of its stop words that follows one ("*hogedrukreiniger* voor de oprit en de auto").
 * English's rules (product-type.ts) know neither its prepositions nor its order.
 */
function foreignHead(words: readonly string[], language: string, isContent: (i: number) => boolean): number | undefined {
  const headFirst = languageData().lexicons.get(language)?.headFirst ?? false;
  let head: number | undefined;
  for (const [i, word] of words.entries()) {
    if (isStopWord(language, word)) {
      if (head !== undefined) return head;
      continue;
    }
    if (!isContent(i)) continue;
    if (headFirst) return i;
    head = i;
  }
  return head;
}

const unsold = (byWord: readonly Word[][], i: number) => byWord[i]!.length > 0 && !byWord[i]!.some((word) => word.heldAnywhere);

/**
 * Whether the word naming the sort of the head's kind, just before it (past a number: "iphone 15 *case*"), is one the
 * catalog holds in no form: no "litter box" is sold where nothing holds "litter", whatever boxes are.
 */
function sortUnsold(words: readonly string[], byWord: readonly Word[][], head: number): boolean {
  let sort = head - 1;
  while (sort >= 0 && isQuantity(words, sort)) sort--;
  if (sort < 0 || !/^\p{L}{3,}$/u.test(words[sort]!) || isVague(words, sort) || namesWhom(words, sort)) return false;
  return unsold(byWord, sort);
}
