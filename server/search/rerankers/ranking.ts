/**
 * How the local reranker's features are weighed into one score, and the relevance cut-off that marks candidates
 * unrelated (rankScored). Features are computed in local.ts; this module is pure, so the cut-off is tested and
 * `bench:fit` fits the weights and the cut-off (fitted.json) without a database.
 */
import type { Field } from "../lexical.js";
import type { FormKind } from "../understand.js";
import { type CutOff, loadFitted } from "./fitted.js";
/**
 * One value per signal, each from 0 to 1 but BM25 (normalised over the candidates); `accessory`, `ages` and `avoided`
 * count against (`avoided` is −1, counting for, when the product says it is free of a word not wanted).
 */
export type Features = Record<
  "bm25" | "coverageAll" | "phrase" | "sequence" | "cosine" | "type" | "headNamed" | "use" | "accessory" | "ages" | "avoided",
  number
>;

/**
 * A candidate's signals; whether it is of a kind the query names in words the shopper typed (or their synonyms);
 * and its department, the first segment of its category (lower-cased), or null without a category, when its kind
 * is only guessed from its name.
 */
export type Scored = Features & {
  kindAsked: boolean;
  department: string | null;
  /** For each query word before the head word but numbers (its sort: "*office* chair"), whether the candidate holds it anywhere. */
  sorts: { held: boolean }[];
  /** It is of a kind the query names only after its head word's preposition, and not of the kind asked: what the product is for. */
  isTarget: boolean;
  /**
   * It is of a kind a query word before the head word names, not of the kind asked, and holds the head word nowhere:
   * what the product asked for goes with, once a product of the kind asked holds that word (the knives for "knife sharpener").
   */
  goesWith: boolean;
  /**
   * The query's head word is English and the catalog holds it in no form (nor any correction or synonym of it): a
   * thing the catalog may not sell ("lawn *mower*"). A fact about the query, carried on each candidate.
   */
  headUnsold: boolean;
  /**
   * It is of the kind asked, or its name or category holds the query's head word in some form; true when the query
   * has no head word. Where no candidate shows the kind, none is what was asked ("espresso *machine*" among espresso
   * beans and tampers): the answer's matches are weak.
   */
  showsKind: boolean;
  /**
   * Of a kind that goes with what the query says the product is for (a throw, "something cosy for the *sofa*";
   * goes-with.ts) and not of the kind asked: its `coverageAll` were it of the kind asked, the target word held as a
   * synonym is. Undefined for any other product.
   */
  fitted?: number;
};

/** A weight per feature (`accessory`'s, `ages`' and `avoided`'s are subtracted), and the parameters inside them. */
export type LocalWeights = Features & {
  /** Field weights inside BM25F. */
  fields: Record<Field, number>;
  k1: number;
  b: number;
  /** What a word found only as a correction or a synonym counts, against 1 for the word as typed (or translated). */
  forms: Record<Exclude<FormKind, "typed" | "translation">, number>;
  /** What a word found only in the category, or only in the description, counts in `coverageAll` (1 in name or brands). */
  credit: { category: number; desc: number; stem: number };
  /**
   * A word naming no kind ("hiking *gear*", "*gift* for a runner") weighs in the query at most this much of its
   * commonest other word: a product lacking it lacks little.
   */
  vague: number;
  /** The relevance cut-off (fitted.ts). */
  cutOff: CutOff;
};

/** How far apart two features computed in floating point may be and still be equal. */
const ROUNDING = 1e-9;

const FITTED = loadFitted();

/**
 * The linear weights and the cut-off are fitted by `npm run bench:fit` (fitted.json); the rest are set by hand,
 * as no graded query tells them apart (docs/search/cut-off.md).
 */
export const DEFAULT_WEIGHTS: LocalWeights = {
  ...FITTED.weights,
  // The least of 0.5, 1 and 2 that moves anything: the insulated bottle before the sleeping bag for "something to keep
  // drinks cold on a camping trip" (sample set), the camp grill for "something to cook with on a camping trip".
  use: 1,
  // Enough to put a product for other ages after every toy that suits for "wooden toys for toddlers" (the marble
  // run "not suitable for children under three"); the cut-off judges without it (rankScored): it orders, never cuts.
  ages: 2,
  // Set as ages is: "headphones not wireless" puts every wired pair before the wireless ones; it orders, never cuts.
  avoided: 2,
  fields: { name: 5, brands: 2, desc: 1 },
  k1: 1.2,
  b: 0.5,
  forms: { correction: 0.8, synonym: 0.8 },
  credit: { category: 0.7, desc: 0.5, stem: 0.25 },
  // From the sample set (0, 0.1, 0.25, 0.5, 1 tried): the tea tasting set out of the top five for "gift for a coffee
  // lover", the running gear kept for "gift for a runner under $50", and the gift box first; no dev query changes.
  vague: 0.25,
  cutOff: FITTED.cutOff,
};

export function combine(f: Features, maxBm25: number, weights: LocalWeights): number {
  return (
    weights.bm25 * (maxBm25 > 0 ? f.bm25 / maxBm25 : 0) +
    weights.coverageAll * f.coverageAll +
    weights.phrase * f.phrase +
    weights.sequence * f.sequence +
    weights.cosine * f.cosine +
    weights.type * f.type +
    weights.headNamed * f.headNamed +
    weights.use * f.use -
    weights.accessory * f.accessory -
    weights.ages * f.ages -
    weights.avoided * f.avoided
  );
}

/**
 * Candidates best first (ties keep retrieval order), each marked unrelated when it is what the product asked for goes
 * with; or by the fitted cut-off: its relevance is under
 * the threshold (or far under the best's) and nothing ties it to the query, neither the encoder nor the words. `weak`:
 * its relevance is under the threshold (kept only by what ties it).
 */
export function rankScored(given: readonly Scored[], ids: readonly string[], weights: LocalWeights) {
  // When no candidate is of a kind the query names but some are of a kind that goes with what it says the product is
  // for, those are the kind asked, and hold the target word: "something cosy for the sofa" names no kind, and the
  // throws and cushions answer it, not the play tent whose page says "cozy". Where a kind asked is sold ("lamp for
  // the sofa"), or the head word is a thing the catalog does not sell ("flea treatment for the sofa"), what goes with
  // the sofa counts for nothing.
  const fitting = !given.some((f) => f.kindAsked || f.headUnsold) && given.some((f) => f.fitted !== undefined);
  const scored = given.map((f) => (fitting && f.fitted !== undefined ? { ...f, type: 1, kindAsked: true, coverageAll: f.fitted } : f));
  const maxBm25 = Math.max(0, ...scored.map((f) => f.bm25));
  const order = ids.map((id, index) => ({ id, index, score: combine(scored[index]!, maxBm25, weights), features: scored[index]! }));
  order.sort((a, b) => b.score - a.score || a.index - b.index);
  // The ages a product is made for, and a word not wanted in its name, only order (the scores subtract them).
  const madeFor = (f: Scored) => weights.ages * f.ages + weights.avoided * f.avoided;
  // The cut-off asks whether a candidate is about what was asked at all; the order of the query's words in the name,
  // the head word read from an uncategorised name, the word saying what a product is to do, the ages it is made for
  // and a word not wanted only order related products (measured: counted, the first two cut the Vitas without "system" for "playstation
  // vita system").
  const relevance = (f: Scored, score: number) =>
    score - weights.sequence * f.sequence - weights.headNamed * f.headNamed - weights.use * f.use + madeFor(f);
  // A product of the kind named after the head word's preposition of purpose is what the product asked for goes with
  // (the sofa for "cushion for the sofa"): unrelated, and no bar for the others. So is one of a kind a word before the
  // head word names, lacking the head word, once a product of the kind asked holds every such word (the knives for
  // "knife sharpener"). A structural fact of the query, which the encoder, finding sofas like cushions, cannot judge.
  const kindHoldsSorts = scored.some((f) => f.type === 1 && f.sorts.every((sort) => sort.held));
  // Only where the kind asked is sold among the candidates, or sold nowhere: where the head word read is no kind at all
  // ("loves pretending *to* cook: play kitchen"), what follows "to" may be what is asked.
  const kindRead = scored.some((f) => f.kindAsked || f.headUnsold);
  const target = (f: Scored) => kindRead && (f.isTarget || (f.goesWith && kindHoldsSorts)) && f.department !== null;
  const cut = weights.cutOff;
  const best = Math.max(...order.filter((o) => !target(o.features)).map((o) => relevance(o.features, o.score)));
  // The encoder ties a candidate to the query when it finds it close, and closer than the candidates' usual (their
  // median): it finds every short name somewhat like any query ("lawn mower" and a headlamp at 0.55).
  const cosines = scored.map((f) => f.cosine).sort((x, y) => x - y);
  const usual = cosines[Math.floor(cosines.length / 2)] ?? 0;
  // The words tie it when it holds enough of the query, or the word saying what a described use is ("cold" for
  // "something to keep drinks cold on a camping trip"), however little of the rest.
  const tied = (f: Scored) => (f.cosine >= cut.encoder && f.cosine - usual >= cut.margin) || f.coverageAll >= cut.words - ROUNDING || f.use === 1;
  const kindShown = scored.some((f) => f.showsKind);
  const ranked = order.map(({ id, score, features: f }) => {
    const r = relevance(f, score);
    const below = r < cut.relevance || r < best - cut.gap;
    return {
      id,
      score,
      features: f,
      weak: r < cut.relevance || f.headUnsold || !kindShown,
      unrelated: target(f) || (below && !tied(f)),
    };
  });
  return ranked.map(({ id, score, unrelated, weak }) => ({ id, score, unrelated, weak }));
}
