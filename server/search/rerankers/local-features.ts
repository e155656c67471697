/**
 * The local reranker's raw features of one candidate: a product read as a Document (its stemmed terms by field, with
 * positions), scored against a Query (local-query.ts), one named signal at a time.
 */
import type { Field, Term } from "../lexical.js";
import type { LocalWeights, Scored } from "./ranking.js";
import { type Clause, doingOf, type Query, type StemmedForm } from "./local-query.js";

export interface Document {
  terms: Map<string, { tf: Record<Field, number>; positions: number[]; everywhere: { position: number; field: Field }[] }>;
  /** Positions holding a word, and those holding a hyphenated compound ("pour-ov"): a stop word leaves a gap (StemmedForm's `compound`). */
  occupied: Set<number>;
  /** Position → how many words the compound there joins (Postgres puts its parts at the positions after it). */
  hyphenated: Map<number, number>;
  length: Record<Field, number>;
  /** Lexemes of the category path. */
  category: Set<string>;
  /** Lexemes of the kinds its name and category name. */
  kinds: Set<string>;
  /** The words of its name, brands and category as written, lower-cased (StemmedForm's `written`). */
  words: Set<string>;
  /** The words of its description as written, lower-cased. */
  descWords: Set<string>;
  /**
   * Words it says it is free of ("Fragrance-free", "BPA-free"), as written, with how often in each field: Postgres
   * also indexes the word alone ("fragranc"), which says the opposite of what the product is.
   */
  freeOf: Map<string, Record<Field, number>>;
}

/** The most parts a hyphenated compound is looked back for ("all-in-one": 3). */
const MAX_COMPOUND_PARTS = 4;

/** A word and "free" hyphenated, as Postgres stems the pair: "fragrance-free" → "fragrance-fre". */
const FREE_OF = "-fre";

/** How often a document says it is free of a word, as written or in the singular ("fragrances" of "Fragrance-free"). */
export function freeOf(document: Document, word: string): Record<Field, number> | undefined {
  return document.freeOf.get(word) ?? document.freeOf.get(word.replace(/s$/u, ""));
}

export function toDocument(terms: readonly Term[], parts: Omit<Document, "terms" | "length" | "freeOf" | "occupied" | "hyphenated">): Document {
  const document: Document = {
    terms: new Map(),
    length: { name: 0, brands: 0, desc: 0 },
    freeOf: new Map(),
    occupied: new Set(),
    hyphenated: new Map(),
    ...parts,
  };
  for (const term of terms) {
    // The category is read whole, as the document's `category`, not as one more field of BM25F.
    if (term.field === "category") continue;
    if (term.lexeme.endsWith(FREE_OF)) {
      const free = term.lexeme.slice(0, -FREE_OF.length);
      const counts = document.freeOf.get(free) ?? { name: 0, brands: 0, desc: 0 };
      counts[term.field]++;
      document.freeOf.set(free, counts);
    }
    let entry = document.terms.get(term.lexeme);
    if (!entry) {
      entry = { tf: { name: 0, brands: 0, desc: 0 }, positions: [], everywhere: [] };
      document.terms.set(term.lexeme, entry);
    }
    entry.tf[term.field]++;
    if (term.field === "name") entry.positions.push(term.position);
    entry.everywhere.push({ position: term.position, field: term.field });
    document.occupied.add(term.position);
    if (term.lexeme.includes("-")) document.hyphenated.set(term.position, term.lexeme.split("-").length);
    document.length[term.field]++;
  }
  return document;
}

/**
 * How often the document holds a lexeme in a field; a compound's word also standing apart (`apart`), and for a prefix
 * form any code it starts ("spf" of "spf50").
 */
function frequency(document: Document, form: StemmedForm, lexeme: string, field: Field): number {
  let count = document.terms.get(lexeme)?.tf[field] ?? 0;
  if (form.compound && lexeme !== form.compound.lexeme) count += apart(document, form.compound, field);
  if (!form.prefix) return count;
  for (const [term, entry] of document.terms) if (term.startsWith(lexeme) && /^\p{N}/u.test(term.slice(lexeme.length))) count += entry.tf[field];
  return count;
}

/**
 * The compound's word standing alone with the gap of a stop word beside it: not a part of another compound, whose
 * gaps are its own stop words ("On-Ear" → on-ear, ·, ear; "Roll-Out" → roll-out, roll, ·).
 */
function apart(document: Document, { lexeme, stopBefore }: NonNullable<StemmedForm["compound"]>, field: Field): number {
  const gap = stopBefore ? -1 : 1;
  const spots = document.terms.get(lexeme)?.everywhere ?? [];
  return spots.filter(
    ({ position, field: at }) => at === field && position + gap >= 1 && !document.occupied.has(position + gap) && !partOfCompound(document, position),
  ).length;
}

/** Whether the position holds a part of a hyphenated compound that starts before it. */
function partOfCompound(document: Document, position: number): boolean {
  for (let start = position - 1; start >= position - MAX_COMPOUND_PARTS; start--) {
    const parts = document.hyphenated.get(start);
    if (parts !== undefined && start + parts >= position) return true;
  }
  return false;
}

function stemIn(document: Document, form: StemmedForm, field: Field): boolean {
  return form.lexemes.every((lexeme) => frequency(document, form, lexeme, field) > 0);
}

function asWritten(document: Document, form: StemmedForm): boolean {
  return form.written?.forms.some((word) => document.words.has(word)) ?? true;
}

function holds(document: Document, form: StemmedForm, field: Field): boolean {
  return stemIn(document, form, field) && (field === "desc" || asWritten(document, form));
}

function inCategory(document: Document, form: StemmedForm): boolean {
  return form.lexemes.every((lexeme) => document.category.has(lexeme));
}

/** The stem as a word of its own ("light", "hikes"), or only inside another word ("*organ*ic" for "organizer"). */
function ownWord(document: Document, { written }: StemmedForm): boolean {
  if (written === undefined) return true;
  const { verb } = written;
  return (
    [...written.forms, ...written.stem].some((word) => document.words.has(word) || document.descWords.has(word)) ||
    (verb !== undefined && [...document.words, ...document.descWords].some((word) => doingOf(word, verb)))
  );
}

function namesKind(document: Document, forms: readonly StemmedForm[], typed = false): boolean {
  return forms.some(
    (form) =>
      (!typed || !form.corrected) &&
      document.kinds.has(form.lexemes.at(-1)!) &&
      asWritten(document, form) &&
      // A form of several words names the kind its last word names when the name holds them all ("*throw blanket*"),
      // or the category does ("Toys > *Soft Toys*" for "stuffed animal", through its synonym "soft toy").
      (form.lexemes.length === 1 || holds(document, form, "name") || inCategory(document, form)),
  );
}

/** BM25F's length normalisation of each field. */
function normsOf(document: Document, averageLength: Record<Field, number>, weights: LocalWeights): Record<Field, number> {
  const norms = {} as Record<Field, number>;
  for (const field of ["name", "brands", "desc"] as const) {
    norms[field] = 1 - weights.b + weights.b * (document.length[field] / Math.max(1, averageLength[field]));
  }
  return norms;
}

/** One form of a query word in the document: its BM25F term, saturated, and what holding it anywhere credits. */
function formSignals(document: Document, form: StemmedForm, norms: Record<Field, number>, weights: LocalWeights) {
  let tf = 0;
  for (const field of ["name", "brands", "desc"] as const) {
    const count = Math.min(...form.lexemes.map((lexeme) => frequency(document, form, lexeme, field)));
    tf += (weights.fields[field] * count) / norms[field];
  }
  const credit =
    holds(document, form, "name") || holds(document, form, "brands")
      ? 1
      : inCategory(document, form) && asWritten(document, form)
        ? weights.credit.category
        : inCategory(document, form) || stemIn(document, form, "desc") || stemIn(document, form, "name") || stemIn(document, form, "brands")
          ? ownWord(document, form)
            ? weights.credit.desc
            : weights.credit.stem
          : 0;
  return { saturated: (form.weight * tf) / (weights.k1 + tf), credit };
}

/** What the query's words, each in its best form, add up to in the document. */
interface ClauseSignals {
  bm25: number;
  anywhere: number;
  total: number;
  sorts: Scored["sorts"];
  headHeld: boolean;
  /** What holding a kind that goes with a target word adds to `anywhere` (Scored's `fitted`); undefined when none does. */
  fitted: number | undefined;
}

function clauseSignals(document: Document, query: Query, norms: Record<Field, number>, weights: LocalWeights): ClauseSignals {
  const signals: ClauseSignals = {
    bm25: 0,
    anywhere: 0,
    total: 0,
    sorts: [],
    headHeld: true,
    fitted: undefined,
  };
  for (const clause of query.clauses) {
    signals.total += clause.idf;
    let best = 0;
    let any = 0;
    for (const form of clause.forms) {
      const { saturated, credit } = formSignals(document, form, norms, weights);
      best = Math.max(best, saturated);
      any = Math.max(any, form.weight * credit);
    }
    signals.bm25 += clause.idf * best;
    signals.anywhere += clause.idf * any;
    if (clause.sort) signals.sorts.push({ held: any > 0 });
    if (clause === query.head) signals.headHeld = any > 0;
    if (namesKind(document, clause.fits)) signals.fitted = (signals.fitted ?? 0) + clause.idf * Math.max(0, weights.forms.synonym - any);
  }
  return signals;
}

function namePositions(document: Document, lexeme: string | undefined): number[] {
  return lexeme === undefined ? [] : (document.terms.get(lexeme)?.positions ?? []);
}

/** Neighbouring query words side by side in the name, in any of their forms: the share of neighbouring pairs that are. */
function phraseOf(document: Document, query: Query): number {
  let pairs = 0;
  let adjacent = 0;
  for (let i = 1; i < query.clauses.length; i++) {
    pairs++;
    const left = query.clauses[i - 1]!.forms.flatMap((form) => namePositions(document, form.lexemes.at(-1)));
    const right = query.clauses[i]!.forms.flatMap((form) => namePositions(document, form.lexemes[0]));
    if (left.some((p) => right.some((q) => q - p > 0 && q - p <= 1))) adjacent++;
  }
  return pairs > 0 ? adjacent / pairs : 0;
}

/**
 * The whole query in the name, in its order, each word at most one word after the one before ("dresses for women",
 * "Screen Protector for Samsung"): phrase counts pairs side by side; this, the query read as one.
 */
function sequenceOf(document: Document, query: Query): number {
  let ends: number[] = [];
  for (const [k, clause] of query.clauses.entries()) {
    if (k > 0 && ends.length === 0) break;
    const next = new Set<number>();
    for (const form of clause.forms) {
      for (const start of namePositions(document, form.lexemes[0])) {
        if (k === 0 || ends.some((end) => start - end >= 1 && start - end <= 2)) next.add(start + form.lexemes.length - 1);
      }
    }
    ends = [...next];
  }
  return query.clauses.length > 1 && ends.length > 0 ? 1 : 0;
}

/** The kind of product: the query's head word among the kinds the name and category name, or else another query word. */
function kindSignals(document: Document, query: Query, headHeld: boolean) {
  const names = (clause: Clause | undefined, typed = false) => (clause ? namesKind(document, clause.forms, typed) : false);
  // A set is of a kind asked when it is a set of what was asked: the tea tasting set for "tea set", not a mask set.
  const asked = (clause: Clause, typed = false) => !clause.target && (!clause.sold || headHeld) && names(clause, typed);
  const ofKindAsked = names(query.head);
  return {
    ofKindAsked,
    type: ofKindAsked ? 1 : query.clauses.some((clause) => asked(clause)) ? 0.5 : 0,
    // Without a category, the kind is only guessed from the name's last noun, which names often bury under sizes and
    // colours ("… Grappling Headgear Black M"): the query's head word anywhere in the name is evidence of it too.
    headNamed: document.category.size === 0 && query.head?.forms.some((form) => holds(document, form, "name")) ? 1 : 0,
    // Asked for by what it is to do, a product holding the word saying what ("something to keep drinks *cold* on a
    // camping trip") is an answer before one that shares only where it is used ("camping trip": a sleeping bag).
    use: query.use && query.head !== undefined && headHeld ? 1 : 0,
    // A kind reached only through a guessed correction ("dress" read as "press") is no evidence that the catalog has what was asked.
    kindAsked: query.clauses.some((clause) => asked(clause, true)),
    isTarget: !ofKindAsked && query.clauses.some((clause) => clause.target && names(clause)),
    goesWith: !ofKindAsked && !headHeld && query.clauses.some((clause) => clause.before && names(clause)),
  };
}

/** Scored's `showsKind`: it is of the kind asked, or its name or category holds the query's head word; true without one. */
function showsKind(document: Document, query: Query, ofKindAsked: boolean): boolean {
  if (!query.head || ofKindAsked) return true;
  return query.head.forms.some((form) => holds(document, form, "name") || inCategory(document, form));
}

/** Raw features of one candidate (all but `accessory`, `ages` and `avoided`, which local.ts reads from the product). */
export function features(
  query: Query,
  document: Document,
  averageLength: Record<Field, number>,
  cosine: number,
  weights: LocalWeights,
): Omit<Scored, "department" | "accessory" | "ages" | "avoided"> {
  const norms = normsOf(document, averageLength, weights);
  const { bm25, anywhere, total, sorts, headHeld, fitted } = clauseSignals(document, query, norms, weights);
  const kind = kindSignals(document, query, headHeld);
  return {
    bm25,
    coverageAll: total > 0 ? anywhere / total : 0,
    phrase: phraseOf(document, query),
    sequence: sequenceOf(document, query),
    cosine,
    type: kind.type,
    headNamed: kind.headNamed,
    use: kind.use,
    kindAsked: kind.kindAsked,
    sorts,
    isTarget: kind.isTarget,
    goesWith: kind.goesWith,
    headUnsold: query.headUnsold,
    showsKind: showsKind(document, query, kind.ofKindAsked),
    ...(fitted !== undefined && !kind.ofKindAsked && total > 0 && { fitted: (anywhere + fitted) / total }),
  };
}
