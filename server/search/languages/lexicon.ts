/**
 * Reading a query into the catalog's language through the lexicons (data.ts): a word or phrase of the query's
 * language that a lexicon entry names is searched as the entry's English (the pivot), or, on a catalog in another
 * language, as what that language's lexicon calls the same English. Built as a synonym set (synonyms.ts), so phrases
 * match longest first, words compare singular ("chaussures" finds "chaussure"), and accents are folded on both sides.
 */
import { withoutAccents, wordsIn } from "../lexical.js";
import { mergeSynonyms, NO_SYNONYMS, parseSynonyms, type SynonymSet } from "../synonyms.js";
import { languageData } from "./data.js";

/** A phrase's words with their accents folded, as queries are compared. */
export function folded(phrase: string): string {
  return wordsIn(phrase).map(withoutAccents).join(" ");
}

const sets = new Map<string, SynonymSet>();

/** Each English phrase and what `language`'s lexicon calls it. */
function byEnglish(language: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const entry of languageData().lexicons.get(language) ?? []) {
    names.set(entry.english, [...(names.get(entry.english) ?? []), ...entry.terms]);
  }
  return names;
}

/**
 * The set that reads words of `from` as words of `to` (accents folded; NO_SYNONYMS when no lexicon joins them).
 * Each rule maps the source words to the target words ("laufschuhe, laufschuh => running shoes").
 */
export function translations(from: string, to: string): SynonymSet {
  const key = `${from}>${to}`;
  const known = sets.get(key);
  if (known) return known;
  const { lexicons } = languageData();
  const target = to === "en" ? undefined : byEnglish(to);
  const rules: string[] = [];
  // From English, every English phrase a lexicon of the target names; else the source's own entries.
  const entries =
    from === "en" ? [...(target ?? new Map<string, string[]>())].map(([english]) => ({ english, terms: [english] })) : (lexicons.get(from) ?? []);
  for (const entry of entries) {
    const forms = target ? (target.get(entry.english) ?? []) : [entry.english];
    if (forms.length > 0) rules.push(`${entry.terms.map(folded).join(", ")} => ${forms.map(folded).join(", ")}`);
  }
  const set = rules.length > 0 && from !== to ? mergeSynonyms([parseSynonyms(rules.join("\n"), `the ${from} lexicon`)]) : NO_SYNONYMS;
  sets.set(key, set);
  return set;
}
