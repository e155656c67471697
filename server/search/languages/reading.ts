/**
 * A query in another language than the catalog's (detect.ts), read into the catalog's language: the words and phrases
 * a lexicon names are searched as the catalog's words (forms of kind `translation`) and embedded as them; the words
 * as typed are searched too, in the query's own text-search configuration (a page in the query's language is found
 * by them), but never corrected into the catalog's words ("chaussures" is no typo of an English word). A word no
 * lexicon names may be a typo of one that does, and is read as that; any other word the catalog does not hold is
 * not read, and the answer says so (`unread`), rather than guessed.
 */
import { closestTerm } from "../typos.js";
import { isEnglishWord } from "../common-words.js";
import { expand, type SynonymSet } from "../synonyms.js";
import { covered, type Form, letterCompounds, type QueryPlan, type Token, type UnderstandDeps } from "../understand.js";
import { isStopWord, languageData } from "./data.js";
import { languagesOf } from "./detect.js";
import { compoundHeadIn, type Reading, readPhrases, singleWordTerms, termWords, translations, wordKey } from "./lexicon.js";

type LanguageFields = Pick<QueryPlan, "language" | "languages" | "translations" | "unread">;

/** How many words of a query the catalog's language must fail to read, at least, for the query to be in none known. */
const UNREAD_LEAST = 2;

const isWord = (token: Token) => !token.code && /^\p{L}{2,}$/u.test(token.word);

export function readForeign(query: string, found: readonly Token[], deps: UnderstandDeps & { language: string; catalog: string }): QueryPlan {
  const { language, catalog, vocabulary } = deps;
  const words = found.map((token) => token.word);
  const isStop = (word: string) => isStopWord(language, word);
  const held = (word: string) => (vocabulary ? vocabulary.count(word) > 0 : false);
  const set = translations(language, catalog);
  const folded = words.map((word) => wordKey(language, word));
  const forms: Form[] = [];
  const corrections: QueryPlan["corrections"] = [];
  // A word no rule reads, the catalog lacks and the language does not stop may be a typo of a word a rule reads.
  const read = new Set(readPhrases(folded, set).flatMap(covered));
  found.forEach((token, i) => {
    if (read.has(i) || !isWord(token) || isStop(token.word) || held(token.word)) return;
    const head = compoundHeadIn(language, folded[i]!, set);
    if (head !== null) {
      // Its own language's word for what it is is searched too: a page may say "Rucksack" where the query joins it.
      forms.push({ start: i, end: i + 1, words: [head], kind: "synonym" });
      folded[i] = head;
      return;
    }
    const term = closestTerm(folded[i]!, singleWordTerms(set));
    if (term === null) return;
    forms.push({ start: i, end: i + 1, words: [term], kind: "correction" });
    corrections.push({ from: words[i]!, to: term });
    folded[i] = term;
  });
  const expansions = readPhrases(folded, set);
  const translated = new Set(expansions.flatMap(covered));
  // The language's stop words are not searched: "de" and "pour" are words in English ("pour-over").
  const typed: Form[] = found.flatMap((token, i) =>
    isStop(token.word) ? [] : [{ start: i, end: i + 1, words: [token.word], kind: "typed" as const }],
  );
  const translatedForms = expansions.flatMap((e) =>
    e.forms.map((to): Form => ({ start: e.start, end: e.end, words: letterCompounds(to), kind: "translation" })),
  );
  const synonyms = translationSynonyms(expansions, deps.synonyms);
  const unread = found.flatMap((token, i) => (isWord(token) && !translated.has(i) && !isStop(token.word) && !held(token.word) ? [token.word] : []));
  return {
    words,
    forms: [...typed, ...forms, ...translatedForms, ...synonyms.forms],
    corrections,
    synonyms: synonyms.read,
    goesWith: [],
    embedText: embedded(query, found, expansions, (i) => !translated.has(i) && !isStop(words[i]!) && (found[i]!.code || held(words[i]!))),
    ages: null,
    avoid: [...(deps.avoid ?? [])],
    language: { query: language, catalog },
    languages: [language, catalog],
    translations: expansions.map((e) => ({ from: words.slice(e.start, e.end).join(" "), to: e.forms.map((form) => form.join(" ")) })),
    unread: [...new Set(unread)],
  };
}

/**
 * A translation is the catalog's words, read through its synonyms as those words typed are: "knuffelbeer" is a teddy
 * bear, which the catalog may sell as a soft toy. Each synonym replaces its words within the translated phrase.
 */
function translationSynonyms(expansions: readonly Reading[], set: SynonymSet): { forms: Form[]; read: QueryPlan["synonyms"] } {
  const forms: Form[] = [];
  const read: QueryPlan["synonyms"] = [];
  for (const e of expansions) {
    for (const to of e.forms) {
      for (const x of expand(to, set)) {
        read.push({ from: to.slice(x.start, x.end).join(" "), to: x.forms.map((form) => form.join(" ")) });
        for (const form of x.forms) {
          const words = [...to.slice(0, x.start), ...form, ...to.slice(x.end)];
          forms.push({ start: e.start, end: e.end, words: letterCompounds(words), kind: "synonym" });
        }
      }
    }
  }
  return { forms, read };
}

/**
 * Words of a query in the catalog's language that the catalog does not hold, English does not know and nothing else
 * read, each read through the lexicon of any language that reads it (or, for compounding languages, its head) into
 * words the catalog holds: "Wanderrucksack 60 Liter" searches "backpack". A shopper mixes languages; one word is not
 * enough to call the query another language's (detect.ts), but it is read where a lexicon knows it.
 */
export function readAbroad(
  found: readonly Token[],
  forms: readonly Form[],
  catalog: string,
  held: (word: string) => boolean,
): { forms: Form[]; translations: QueryPlan["translations"] } {
  const read: Form[] = [];
  const shown: QueryPlan["translations"] = [];
  const unread = unreadIn(found, forms, catalog, held);
  found.forEach((token, i) => {
    if (!unread(i)) return;
    const to = [...languageData().lexicons.keys()]
      .filter((language) => language !== catalog)
      .flatMap((language) => wordAbroad(token.word, language, catalog))
      .filter((words) => words.every(held));
    const distinct = [...new Map(to.map((words) => [words.join(" "), words])).values()];
    if (distinct.length === 0) return;
    read.push(...distinct.map((words): Form => ({ start: i, end: i + 1, words: letterCompounds(words), kind: "translation" })));
    shown.push({ from: token.word, to: distinct.map((words) => words.join(" ")) });
  });
  return { forms: read, translations: shown };
}

/** What `language`'s lexicon reads one word as in `catalog`'s: by an entry, or by the longest entry it ends with. */
function wordAbroad(word: string, language: string, catalog: string): string[][] {
  const rules = translations(language, catalog);
  const key = wordKey(language, word);
  const direct = readPhrases([key], rules);
  if (direct.length > 0) return direct.flatMap((reading) => reading.forms);
  const head = compoundHeadIn(language, key, rules);
  return head === null ? [] : readPhrases([head], rules).flatMap((reading) => reading.forms);
}

/**
 * The query's words read through the lexicons into each of `into` (the other languages enough of the catalog is in):
 * an English query's "watch" is searched as "montre" too, where the catalog holds French pages.
 */
export function readInto(words: readonly string[], from: string, into: readonly string[]): Form[] {
  const keys = words.map((word) => wordKey(from, word));
  return into.flatMap((language) => {
    const rules = translations(from, language);
    // A phrase's last word read alone too, for itself: a page may call its "bar stools" plain "banquetas" (stools).
    const readings = readPhrases(keys, rules).flatMap((e) =>
      e.end - e.start > 1 ? [e, ...readPhrases([keys[e.end - 1]!], rules).map((head) => ({ ...head, start: e.end - 1, end: e.end }))] : [e],
    );
    return readings.flatMap((e) => e.forms.map((to): Form => ({ start: e.start, end: e.end, words: letterCompounds(to), kind: "translation" })));
  });
}

/**
 * What the query's corrections and synonyms read, through the lexicons into each of `into`: "presure washer" is a
 * "pressure washer", which a German page calls "Hochdruckreiniger", and so is a "jet washer" (a synonym, read whole).
 * A reading of only part of a synonym's words would stand for words the query did not say, and is not taken.
 */
export function readAlternativesInto(plan: Pick<QueryPlan, "words" | "forms">, from: string, into: readonly string[]): Form[] {
  const corrected = [...plan.words];
  const changed = new Set<number>();
  for (const form of plan.forms) {
    if (form.kind !== "correction" || form.end - form.start !== 1 || form.words.length !== 1 || changed.has(form.start)) continue;
    corrected[form.start] = form.words[0]!;
    changed.add(form.start);
  }
  const fromCorrections = readInto(corrected, from, into).filter((read) => covered(read).some((i) => changed.has(i)));
  const fromSynonyms = plan.forms
    .filter((form) => form.kind === "synonym" && !form.goesWith)
    .flatMap((form) =>
      readInto(form.words, from, into)
        .filter((read) => read.start === 0 && read.end === form.words.length)
        .map((read): Form => ({ ...read, start: form.start, end: form.end, ...(form.guessed && { guessed: true }) })),
    );
  return [...fromCorrections, ...fromSynonyms];
}

const lexiconWordLists = new Map<string, string[]>();

/**
 * Every word of the phrases the lexicons read from `from` into `into`: what a word the catalog lacks may be a typo of.
 * Listed once per pair (the lexicons are read once, at start), not once per query.
 */
export function lexiconWords(from: string, into: readonly string[]): string[] {
  const key = `${from}>${into.join(",")}`;
  let words = lexiconWordLists.get(key);
  if (!words) {
    words = [...new Set(into.filter((language) => language !== from).flatMap((language) => termWords(translations(from, language))))];
    lexiconWordLists.set(key, words);
  }
  return words;
}

/**
 * What the sentence encoder reads for a query in another language: each phrase read as its first translation, and of
 * the other words those the catalog holds (brands, codes); the query as typed when that leaves nothing.
 */
function embedded(query: string, found: readonly Token[], expansions: readonly Reading[], kept: (i: number) => boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < found.length; i++) {
    const expansion = expansions.find((e) => e.start === i);
    if (expansion) {
      parts.push(expansion.forms[0]!.join(" "));
      i = expansion.end - 1;
    } else if (kept(i)) parts.push(found[i]!.word);
  }
  return parts.length > 0 ? parts.join(" ") : query;
}

/**
 * Whether the query's word `i` is one nothing has read: a word of letters the catalog lacks, no English word on an
 * English catalog, and read by no form but as typed (no correction, synonym or translation).
 */
function unreadIn(found: readonly Token[], forms: readonly Form[], catalog: string, held: (word: string) => boolean): (i: number) => boolean {
  return (i) => {
    const token = found[i]!;
    if (!isWord(token) || held(token.word) || (catalog === "en" && isEnglishWord(token.word))) return false;
    return !forms.some((form) => form.kind !== "typed" && form.start <= i && i < form.end);
  };
}

/**
 * The language fields of a query read in the catalog's language. Where most of its words (at least UNREAD_LEAST) are
 * in no language the data knows, the catalog does not hold them, and nothing corrected them or read them as a synonym,
 * the query is in a language not known, and those words are named as not read. `unread` lists such words whatever
 * their number ("asdfgh").
 */
export function inCatalogLanguage(found: readonly Token[], forms: readonly Form[], catalog: string, held: (word: string) => boolean): LanguageFields {
  const known: LanguageFields = { language: { query: catalog, catalog }, languages: [catalog], translations: [], unread: [] };
  const words = found.filter(isWord);
  const unreadWord = unreadIn(found, forms, catalog, held);
  const unread = found.flatMap((token, i) => (unreadWord(i) && languagesOf(token.word).length === 0 ? [token.word] : []));
  const fields = { ...known, unread: [...new Set(unread)] };
  if (unread.length < UNREAD_LEAST || 2 * unread.length < words.length) return fields;
  return { ...fields, language: { query: null, catalog } };
}
