/**
 * The local reranker's reading of a query: each word with its stemmed forms and weight (a Clause), and the query's
 * head word, whether it says "free", and whether it describes a use (a Query).
 */
import { derived } from "../rules/index.js";

/** One of a query word's forms, stemmed: a product holds it when it holds every lexeme. */
export interface StemmedForm {
  lexemes: string[];
  weight: number;
  /** A typo's correction, not the word as typed or a synonym. */
  corrected: boolean;
  /** Held as its lexeme, or by any code made of it and a number (understand.ts's prefix forms: "spf" in "spf50"). */
  prefix?: boolean;
  /** The word as the query writes it, for a form of one word: what a product's "…-free" would name. */
  word?: string;
  /**
   * A stop word that names a thing ("*down* jacket"; MEANT_STOP_WORDS): the index holds it nowhere, so it is read in
   * the products' words as written (Document's `unindexed`), its one "lexeme" the word itself.
   */
  unindexed?: boolean;
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
  /** The catalog holds the word as typed, and it is read as a commoner word too ("glade" as blade): Scored's `typedHeld`. */
  alsoRead: boolean;
  /** For a target word, the kinds that go with it (understand.ts's `goesWith` forms): Scored's `fitted`. */
  fits: StemmedForm[];
}

/** Words joining two kinds asked ("dining table *and* chairs"): the first is no sort of the second. */
/** The words of product-type.json the local reranker reads as sets. */
export const markers = derived(({ productType }) => ({
  joinsKinds: new Set(productType.joinsKinds),
  accessory: new Set(productType.accessoryMarkers),
  companion: new Set([...productType.accessoryMarkers, ...productType.companionMarkers]),
}));

export interface Query {
  clauses: Clause[];
  /** Index in `clauses` of the word naming the kind of product asked for. */
  head: number | undefined;
  /** The query says "free" ("fragrance free soap"): then a product free of a word holds it as asked. */
  freeAsked: boolean;
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
