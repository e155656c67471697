/**
 * What language a product page, or a query, is in.
 *
 * A page's own declaration comes first: its JSON-LD's `inLanguage`, the `lang` of its body (what the stripped HTML
 * keeps: the extractor drops the head, and with it `<html lang>` and `og:locale`), or a locale opening the URL's path
 * ("/de/", "/fr-ch/"). Else its text decides, by evidence kept as data (data.ts): each word that is a stop word or a
 * lexicon word of some languages counts for them, shared between them; the likeliest language needs `text.least` of
 * it and `text.margin` times the runner-up's. A name alone ("ViewSonic Pro8200 DLP Projector") seldom says, and
 * stays unknown: it is indexed in the catalog's language (catalog.ts).
 *
 * A query is short, so it is read as the catalog's language unless another language explains more of its words than
 * the catalog's language does (its stop words, its lexicon; common English; the catalog's own words), at least
 * `query.least` of them and at least `query.coverage` of all: a brand or a code among them is allowed, an English
 * query with one French-looking word ("creme") is not French.
 */
import { isCommonWord } from "../common-words.js";
import { withoutAccents, wordsIn } from "../lexical.js";
import { languageData } from "./data.js";
import { compoundHead, compoundHeadIn, readPhrases, translations, wordKey } from "./lexicon.js";

/** A page's text beyond this many words adds little to what its first ones say, and costs at import. */
const TEXT_WORDS = 300;

/** The ISO 639-1 code of a BCP 47 tag ("de-DE", "pt_BR", "EN"), or null. */
export function languageOfTag(tag: unknown): string | null {
  if (typeof tag !== "string") return null;
  const primary = /^\s*([a-z]{2})(?:[-_][a-z0-9]+)*\s*$/i.exec(tag)?.[1];
  return primary ? primary.toLowerCase() : null;
}

export interface PageRecord {
  url: string;
  name: string;
  desc: string;
  category?: string | null;
  raw_data?: { strippedHtml?: string | null; jsons?: { ld_json?: unknown } | null } | null;
}

/** JSON-LD's `inLanguage`: a tag, or a Language with a tag as its `alternateName` (or `name`). */
function jsonLdLanguage(ld: unknown): string | null {
  if (typeof ld !== "object" || ld === null || !("inLanguage" in ld)) return null;
  const stated = Array.isArray(ld.inLanguage) ? ld.inLanguage[0] : ld.inLanguage;
  if (typeof stated === "object" && stated !== null) {
    const named = stated as { alternateName?: unknown; name?: unknown };
    return languageOfTag(named.alternateName) ?? languageOfTag(named.name);
  }
  return languageOfTag(stated);
}

/** The `lang` of the body, which the stripped HTML opens with (after the title): not any element's, which may be a link to another language. */
function bodyLanguage(html: string | null | undefined): string | null {
  if (!html) return null;
  return languageOfTag(/^(?:<title>[^<]*<\/title>)?<body\b[^>]*?\slang="([^"]*)"/.exec(html)?.[1]);
}

/** A locale opening the URL's path, in a language the data knows ("/de/", "/en-gb/", "/ch/fr/"): "/us/" is a country. */
function urlLanguage(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const known = languageData().stopWords;
  for (const segment of path.split("/").filter(Boolean).slice(0, 2)) {
    const code = /^([a-z]{2})(?:[-_][a-z]{2})?$/i.test(segment) ? languageOfTag(segment) : null;
    if (code && known.has(code)) return code;
  }
  return null;
}

export function declaredLanguage(record: PageRecord): string | null {
  return jsonLdLanguage(record.raw_data?.jsons?.ld_json) ?? bodyLanguage(record.raw_data?.strippedHtml) ?? urlLanguage(record.url);
}

let evidence: Map<string, { stop: Set<string>; words: Set<string> }> | undefined;

/**
 * Per language, the words that are evidence of it: its stop words (accents folded), the words of its lexicon's terms
 * (as `wordKey` compares them), and for English the English side of every lexicon.
 */
function evidenceByLanguage(): Map<string, { stop: Set<string>; words: Set<string> }> {
  if (evidence) return evidence;
  const { stopWords, lexicons } = languageData();
  const byLanguage = new Map<string, { stop: Set<string>; words: Set<string> }>();
  const of = (code: string) => {
    const known = byLanguage.get(code) ?? { stop: new Set<string>(), words: new Set<string>() };
    byLanguage.set(code, known);
    return known;
  };
  for (const [code, words] of stopWords) for (const word of words) of(code).stop.add(withoutAccents(word));
  for (const [code, lexicon] of lexicons) {
    for (const entry of lexicon.entries) {
      for (const term of entry.terms) for (const word of wordsIn(term)) of(code).words.add(wordKey(code, word));
      for (const word of wordsIn(entry.english)) of("en").words.add(wordKey("en", word));
    }
  }
  evidence = byLanguage;
  return evidence;
}

/**
 * The languages of words already looked up (a word's evidence never changes once the data is loaded): an import reads
 * the same few thousand words in every page, and looking each up in every language was three quarters of preparing a
 * record (bench:million-profile). Bounded: emptied when full.
 */
const seen = new Map<string, string[]>();
const SEEN_WORDS = 50_000;

/**
 * The languages a word is evidence of; empty when none. English, the pivot, has no lexicon of its own: a common English
 * word (common-words.ts) is evidence of it too. `compounds` (a query's words, few): in a language that joins words, a
 * word ending with one of its lexicon's is its too ("Wanderrucksack"); a page's many words are not scanned so.
 */
export function languagesOf(word: string, options: { compounds?: boolean } = {}): string[] {
  const compounds = options.compounds === true;
  const known = compounds ? undefined : seen.get(word);
  if (known) return known;
  const plain = withoutAccents(word);
  const codes = [...evidenceByLanguage()].flatMap(([code, { stop, words }]) =>
    stop.has(plain) ||
    words.has(wordKey(code, word)) ||
    (code === "en" && isCommonWord(word)) ||
    (compounds && languageData().lexicons.get(code)?.compounds === true && compoundHead(wordKey(code, word), words) !== null)
      ? [code]
      : [],
  );
  if (!compounds) {
    if (seen.size >= SEEN_WORDS) seen.clear();
    seen.set(word, codes);
  }
  return codes;
}

/** The language a text is written in, or null when its words do not say clearly enough. */
export function textLanguage(text: string): string | null {
  const score = new Map<string, number>();
  for (const word of wordsIn(text).slice(0, TEXT_WORDS)) {
    const codes = languagesOf(word);
    for (const code of codes) score.set(code, (score.get(code) ?? 0) + 1 / codes.length);
  }
  const [best, runnerUp] = [...score].sort((a, b) => b[1] - a[1]);
  const { least, margin } = languageData().detection.text;
  if (!best || best[1] < least || (runnerUp && best[1] < margin * runnerUp[1])) return null;
  return best[0];
}

/** The product's language: as its page declares it, else as its text shows it; null when neither says. */
export function productLanguage(record: PageRecord): string | null {
  return declaredLanguage(record) ?? textLanguage(`${record.name}. ${record.category ?? ""}. ${record.desc}`);
}

/** What the catalog's vocabulary says of a word: whether it holds it, and whether it holds one a single edit away. */
export interface CatalogWords {
  held(word: string): boolean;
  near(word: string): boolean;
}

/**
 * The language of a query's words (lower-cased) on a catalog in `catalog`: another language only where it explains
 * more of them than the catalog's language does, and enough of them; else the catalog's. A word the catalog holds, or
 * holds one edit away, counts for the catalog's language (`words`: absent when typo correction is off and the
 * vocabulary is not read).
 */
export function queryLanguage(words: readonly string[], catalog: string, vocabulary?: CatalogWords): string {
  const { score, letters } = queryEvidence(words, catalog, vocabulary);
  const own = score.get(catalog) ?? 0;
  const [best, runnerUp] = [...score].filter(([code]) => code !== catalog).sort((a, b) => b[1] - a[1]);
  const { least, coverage } = languageData().detection.query;
  if (!best || best[1] <= own || best[1] < Math.min(least, letters.length) || best[1] < coverage * letters.length) return catalog;
  if (runnerUp && runnerUp[1] === best[1]) return catalog;
  return readsHeld(best[0], letters, catalog, vocabulary, letters.length < least) ? best[0] : catalog;
}

/**
 * The language most of a query's words the catalog's language cannot read point to, however few: the one with the
 * most evidence, alone, whose lexicon reads something the catalog holds; null when none. For a query read in no
 * language known ("esterilla autohinchable para acampar": two of four words Spanish), which is better read in part
 * than not at all.
 */
export function likeliestLanguage(words: readonly string[], catalog: string, vocabulary?: CatalogWords): string | null {
  const { score, letters } = queryEvidence(words, catalog, vocabulary);
  const [best, runnerUp] = [...score].filter(([code]) => code !== catalog).sort((a, b) => b[1] - a[1]);
  if (!best || (runnerUp && runnerUp[1] === best[1]) || best[1] <= (score.get(catalog) ?? 0)) return null;
  return readsHeld(best[0], letters, catalog, vocabulary, false) ? best[0] : null;
}

/** Each language's evidence among the query's words of letters; the catalog's counts the words it holds. */
function queryEvidence(words: readonly string[], catalog: string, vocabulary?: CatalogWords) {
  const score = new Map<string, number>();
  const add = (code: string, evidence: number) => score.set(code, (score.get(code) ?? 0) + evidence);
  const letters = words.filter((word) => /^\p{L}{2,}$/u.test(word));
  for (const word of letters) {
    const codes = languagesOf(word, { compounds: true });
    for (const code of codes) add(code, 1);
    if (codes.includes(catalog) || !vocabulary) continue;
    // A word the catalog holds is its language's, half so where another language has it too: the catalog's pages in
    // that language hold it ("hydratante" of a French page in an English catalog). One a correction would read as a
    // commoner catalog word is as likely the catalog's, mistyped: "pats" (pants), "expresso".
    const held = vocabulary.held(word) ? (codes.length > 0 ? 0.5 : 1) : 0;
    add(catalog, Math.max(held, vocabulary.near(word) ? 1 : 0));
  }
  return { score, letters };
}

/**
 * Whether `language`'s lexicon reads the words into something the catalog holds (every word of a form it reads one
 * as), or the catalog holds one of the words as written (its pages in that language): a shopper searches this
 * catalog, so "pats" is no French "pâtes" where it sells no pasta. `whole`: the lexicon must read every word — fewer
 * words than `query.least` are another language's only then ("expresso", of the French "machine expresso", is alone
 * an English typo; "chaussures" alone is French). Without a vocabulary, any reading will do.
 */
function readsHeld(language: string, words: readonly string[], catalog: string, vocabulary: CatalogWords | undefined, whole: boolean): boolean {
  const rules = translations(language, catalog);
  // A compound no entry names is read as its head ("Wandleuchte" as "Leuchte"), as the query will be (reading.ts).
  const keys = words.map((word) => wordKey(language, word));
  const read = readPhrases(
    keys.map((key) => (rules.has(key) ? key : (compoundHeadIn(language, key, rules) ?? key))),
    rules,
  );
  if (whole && read.reduce((n, reading) => n + reading.end - reading.start, 0) !== words.length) return false;
  if (!vocabulary) return true;
  return (
    words.some((word) => vocabulary.held(word)) || read.some((reading) => reading.forms.some((form) => form.every((word) => vocabulary.held(word))))
  );
}
