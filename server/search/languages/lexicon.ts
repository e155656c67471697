/**
 * Reading a query into the catalog's language through the lexicons (data.ts): a word or phrase of the query's
 * language that a lexicon entry names is searched as the entry's English (the pivot), or, on a catalog in another
 * language, as what that language's lexicon calls the same English. Phrases match longest first, as synonyms do
 * (synonyms.ts); words are compared by their keys (accents folded, inflections off: `wordKey`).
 */
import { withoutAccents, wordsIn } from "../lexical.js";
import { matchRuns } from "../synonyms.js";
import { languageData } from "./data.js";

/** Shortest a word is left by taking its ending off: "hose" is "hos", but "see" stays "see". */
const SHORTEST_KEY = 3;

/**
 * How a word of `language` is compared: accents folded, and without the longest of the language's endings it ends in
 * (data.ts), so "schwarze" is "schwarz" and "chaussures" "chaussur". English words are compared as written.
 */
export function wordKey(language: string, word: string): string {
  const plain = withoutAccents(word);
  const ending = languageData()
    .lexicons.get(language)
    ?.endings.find((candidate) => plain.endsWith(candidate) && [...plain].length - [...candidate].length >= SHORTEST_KEY);
  return ending ? plain.slice(0, -ending.length) : plain;
}

/** A phrase's words as `wordKey` compares them. */
export function phraseKey(language: string, phrase: string): string {
  return wordsIn(phrase)
    .map((word) => wordKey(language, word))
    .join(" ");
}

/** What a phrase of the source language (its words' keys) is read as: phrases of the target language, as written. */
interface Rule {
  term: string[];
  forms: string[][];
}

/** Rules by the key of their first word, longest first. */
export type Translations = ReadonlyMap<string, readonly Rule[]>;

/** A run of query words a rule read: words [start, end) and what they are read as. */
export interface Reading {
  start: number;
  end: number;
  forms: string[][];
}

const sets = new Map<string, Translations>();

/** Each English phrase and what `language`'s lexicon calls it. */
function byEnglish(language: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const entry of languageData().lexicons.get(language)?.entries ?? []) {
    names.set(entry.english, [...(names.get(entry.english) ?? []), ...entry.terms]);
  }
  return names;
}

/**
 * The rules that read words of `from` as words of `to` (empty when no lexicon joins them): each source phrase, as
 * `wordKey` compares it, and the target phrases it names ("laufschuh" → "running shoes").
 */
export function translations(from: string, to: string): Translations {
  const key = `${from}>${to}`;
  const known = sets.get(key);
  if (known) return known;
  const target = to === "en" ? undefined : byEnglish(to);
  // From English, every English phrase the target's lexicon names; else the source's own entries.
  const entries =
    from === "en"
      ? [...(target ?? new Map<string, string[]>())].map(([english]) => ({ english, terms: [english] }))
      : (languageData().lexicons.get(from)?.entries ?? []);
  const rules = new Map<string, Rule>();
  for (const entry of from === to ? [] : entries) {
    const forms = (target ? (target.get(entry.english) ?? []) : [entry.english]).map((form) => wordsIn(form));
    for (const term of entry.terms) {
      const words = phraseKey(from, term).split(" ");
      const rule = rules.get(words.join(" ")) ?? { term: words, forms: [] };
      for (const form of forms) if (!rule.forms.some((known) => known.join(" ") === form.join(" "))) rule.forms.push(form);
      rules.set(words.join(" "), rule);
    }
  }
  const byFirst = new Map<string, Rule[]>();
  for (const rule of rules.values()) byFirst.set(rule.term[0]!, [...(byFirst.get(rule.term[0]!) ?? []), rule]);
  for (const list of byFirst.values()) list.sort((a, b) => b.term.length - a.term.length);
  sets.set(key, byFirst);
  return byFirst;
}

/** The rules matching `keys` (the query's words as `wordKey` compares them), longest first, left to right, each word once. */
export function readPhrases(keys: readonly string[], rules: Translations): Reading[] {
  return matchRuns(keys, rules, (rule) => rule.term).map(({ start, end, rule }) => ({ start, end, forms: rule.forms }));
}

/** What `list` makes of a set of rules, listed once per set (the sets are made once per pair of languages). */
function perRules(list: (rules: readonly Rule[]) => string[]): (rules: Translations) => string[] {
  const lists = new WeakMap<Translations, string[]>();
  return (rules) => {
    let listed = lists.get(rules);
    if (!listed) {
      listed = list([...rules.values()].flat());
      lists.set(rules, listed);
    }
    return listed;
  };
}

/** The one-word phrases the rules read: what a word no rule reads may be a typo of. */
export const singleWordTerms = perRules((rules) => rules.filter((rule) => rule.term.length === 1).map((rule) => rule.term[0]!));

/** Every word of the phrases the rules read. */
export const termWords = perRules((rules) => [...new Set(rules.flatMap((rule) => rule.term))]);

/**
 * The single-word phrase `language`'s rules read a compound's key by, the longest it ends with ("wanderrucksack" by
 * "rucksack"), in a language that joins words (`compounds: head last`); null in another, or when none.
 */
export function compoundHeadIn(language: string, key: string, rules: Translations): string | null {
  return languageData().lexicons.get(language)?.compounds === true ? compoundHead(key, singleWordTerms(rules)) : null;
}

/** Words shorter than this are no compound's head: "jas" would end too many words that are no jacket. */
const HEAD_LEAST = 4;

/** The longest of `terms` (single-word lexicon keys) a compound ends with, leaving a part before it; null when none. */
export function compoundHead(word: string, terms: Iterable<string>): string | null {
  let head: string | null = null;
  for (const term of terms) {
    if (term.length >= HEAD_LEAST && word.length > term.length && word.endsWith(term) && term.length > (head?.length ?? 0)) head = term;
  }
  return head;
}
