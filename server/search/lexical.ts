/**
 * Reading Postgres tsvectors in JS: the stored `search` document (name at
 * weight A, brands B, description C, category D, with word positions) and the query's
 * own tsvector, both stemmed by Postgres's english configuration, so JS
 * scoring sees exactly the words full-text search matched; and a text's words
 * as written, for what reads them unstemmed.
 */

export type Field = "name" | "brands" | "desc";

export interface Term {
  lexeme: string;
  position: number;
  /** Where the word is; a tsvector without weights (a query's) reads as the category's D. */
  field: Field | "category";
}

const FIELD_BY_WEIGHT: Record<string, Term["field"]> = { A: "name", B: "brands", C: "desc", D: "category" };

/** `'red':1A,5C 'shoe':2A` → terms. Lexemes are quoted with '' for a quote. Runs for every candidate of every search. */
export function parseTsvector(text: string): Term[] {
  const terms: Term[] = [];
  const pattern = /'((?:[^']|'')*)'(?::([0-9A-D,]+))?/g;
  for (const match of text.matchAll(pattern)) {
    const quoted = match[1]!;
    const lexeme = quoted.includes("''") ? quoted.replaceAll("''", "'") : quoted;
    for (const entry of (match[2] ?? "").split(",")) {
      if (entry === "") continue;
      const last = entry.at(-1)!;
      const field = FIELD_BY_WEIGHT[last >= "A" && last <= "D" ? last : "D"]!;
      pushExpanded(terms, { lexeme, position: Number.parseInt(entry, 10), field });
    }
  }
  return terms;
}

/** `16gb` and `16 gb`, `1l` and `1 l` read the same: a number glued to a unit becomes two adjacent words. */
function pushExpanded(terms: Term[], term: Term): void {
  const first = term.lexeme.charCodeAt(0);
  const glued = first >= 48 && first <= 57 ? /^(\d+(?:[.,]\d+)?)([a-z]{1,4})$/.exec(term.lexeme) : null;
  if (!glued) {
    terms.push(term);
    return;
  }
  terms.push({ ...term, lexeme: glued[1]!.replace(",", ".") }, { ...term, lexeme: glued[2]!, position: term.position + 0.5 });
}

/** The words of a text as written, lower-cased: runs of letters and digits, unstemmed (`"Chef's Knife"` → chef, s, knife). */
export function wordsIn(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The same without a possessive's "s" as a word of its own: "Men's", "Ladies’" and "Dogs'" as men, ladies, dogs. */
export function wordsUnpossessed(text: string): string[] {
  return wordsIn(text.replace(/['’]s?(?![\p{L}])/gu, ""));
}

const NON_ASCII = /[^\p{ASCII}]/u;
const LATIN = /^\p{Script=Latin}+$/u;
const LATIN_LETTER = /\p{Script=Latin}/u;

/** Whether the text holds a letter of the Latin script: what the local sentence encoder, English, reads at all. */
export function hasLatinLetter(text: string): boolean {
  return LATIN_LETTER.test(text);
}

/**
 * The word without its accents ("kärcher" → karcher): letters with marks decomposed, the marks dropped. Latin letters
 * only: in Japanese the same marks make another sound (が is no か).
 */
export function withoutAccents(word: string): string {
  return NON_ASCII.test(word) && LATIN.test(word) ? word.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC") : word;
}

/** A tsquery literal for one lexeme. */
export function lexemeQuery(lexeme: string): string {
  return `'${lexeme.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}
