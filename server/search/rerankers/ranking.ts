/**
 * How the local reranker's features are weighed into one score, and the relevance floor that marks candidates
 * unrelated (rankScored). Features are computed in local.ts; this module is pure, so the floor is tested and
 * `bench:tune-local` climbs the weights without a database.
 */
import type { Field } from "../lexical.js";
import type { FormKind } from "../understand.js";
/**
 * One value per signal, each from 0 to 1 but BM25 (normalised over the candidates); `accessory`, `ages`, `sex`, `bedSize` and
 * `avoided` count against (`avoided` is −1, counting for, when the product says it is free of a word not wanted).
 */
export type Features = Record<
  | "bm25"
  | "coverage"
  | "coverageAll"
  | "phrase"
  | "sequence"
  | "cosine"
  | "head"
  | "type"
  | "headNamed"
  | "use"
  | "accessory"
  | "ages"
  | "sex"
  | "bedSize"
  | "avoided",
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
  /**
   * For each query word before the head word but numbers (its sort: "*office* chair"), whether the candidate holds
   * it in some form in its name, and anywhere at all.
   */
  sorts: { named: boolean; held: boolean }[];
  /** Its name names the kind the head word asks for, and no other sort of it ("Frying Pan", not "Grill Pan"). */
  namedAsAsked: boolean;
  /** Its name names the kind the head word asks for, of any sort ("Grill Pan" too), not only its category. */
  kindNamed: boolean;
  /** It holds the query's head word in some form somewhere (name, brands, category, description); true without one. */
  headHeld: boolean;
  /** The query describes a use, in a head word other than the verb after "to", and it holds that word (the floor lacking the use). */
  holdsUse: boolean;
  /** It is of a kind the query names only after its head word's preposition, and not of the kind asked: what the product is for. */
  isTarget: boolean;
  /**
   * It is of a kind a query word before the head word names, not of the kind asked, and holds the head word nowhere:
   * what the product asked for goes with, once a product of the kind asked holds that word (the knives for "knife sharpener").
   */
  goesWith: boolean;
  /**
   * It holds the query's head word as a guessed correction (StemmedForm's `guessed`), and a query word in another
   * form; `others`: the query has words besides its head word, by which a guess is judged; `all`: it holds every
   * word of the query that weighs, in some form, somewhere.
   */
  holds: { guess: boolean; other: boolean; others: boolean; all: boolean };
  /**
   * It holds, as typed, every query word the catalog holds rarely and that was also read as a commoner word (typos.ts),
   * and holds every other word: such products come first, since what the shopper typed is the catalog's own word
   * ("glade": the Glade refill before the blades; "timex watch": Timex before "Game Time" watches). True when no word
   * was so read.
   */
  typedHeld: boolean;
  /**
   * The query's head word is English and the catalog holds it in no form (nor any correction or synonym of it): a
   * thing the catalog may not sell ("lawn *mower*"). A fact about the query, carried on each candidate.
   */
  headUnsold: boolean;
  /** The catalog holds no word of the query in any form: what answers was found by the encoder alone. A fact about the query. */
  wordless: boolean;
  /** Its name or category names only an animal other than the one the query names (species.ts): cat food for "dog food". */
  otherAnimal: boolean;
  /**
   * Of a kind that goes with what the query says the product is for (a throw, "something cosy for the *sofa*";
   * goes-with.ts) and not of the kind asked: its `coverageAll` were it of the kind asked, the target word held as a
   * synonym is. Undefined for any other product.
   */
  fitted?: number;
  /**
   * It holds every word of the query that weighs, each as typed or as a synonym, none only as a correction ("perfume"
   * through "fragrance" in a description): set only then.
   */
  asTyped?: boolean;
  /**
   * Of two alternatives the query joins by "or" ("canon or nikon"), the one it holds (0 or 1), when it holds one and
   * not the other; undefined otherwise, or when the query joins none.
   */
  side?: number;
};

/** A weight per feature (`accessory`'s, `ages`', `sex`'s, `bedSize`'s and `avoided`'s are subtracted), and the parameters inside them. */
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
  /** The relevance floor: a candidate scoring this much below the best is unrelated, and left out of the answer. */
  floor: number;
  /**
   * The floor when no candidate is of a kind the query names: a candidate covering less than `coverage` of the
   * query (`coverageAll`) and less similar than `cosine` is unrelated, however it compares with the others.
   */
  weak: { coverage: number; cosine: number };
  /**
   * The floor for every query: a candidate covering less than `coverage` of the query and less similar than `cosine`
   * is unrelated even when it is of the kind asked (the felt play food for "dog food"); not one holding every word of
   * the query as typed or as a synonym (`asTyped`: the eau de toilette whose description says "fragrance" for
   * "perfume", which the encoder cannot read in a name like "SEOUL 100 ML").
   */
  faint: { coverage: number; cosine: number };
  /**
   * When the best candidate is of the kind the query's head word names, a candidate with a category that is of
   * no kind the query names is unrelated once it scores this much below the best (Infinity: never).
   */
  otherKind: number;
  /**
   * When the best candidate is of the kind the query's head word names, a candidate of a kind the query names but
   * from another department covering this much less of the query (`coverageAll`) than the best is unrelated: a
   * thing that shares a name (Infinity: never).
   */
  otherDepartment: number;
  /**
   * When the best candidate is of the kind the query's head word names and its name holds a word the query puts
   * before it, a candidate with a category, of a kind asked but not named as asked, that holds that word nowhere is
   * unrelated: another sort of the kind (the dining chair for "office chair"). When the best is of no kind asked, the
   * first candidate of the kind with a category that holds every such word anywhere judges so in its place.
   */
  otherSort: boolean;
  /**
   * When no candidate is of a kind the query names and none the other floors keep holds the query's head word in any
   * form anywhere, the candidates with a category are unrelated: they share only its qualifiers (winter running
   * tights for "winter tyres").
   */
  headless: boolean;
  /**
   * When the query describes what the product is to do (`use`) and a candidate the other floors keep holds its head
   * word, the candidates with a category that hold it nowhere are unrelated: they share only where or when it is
   * wanted, or are what it is for (the sofa for "something cosy for the sofa").
   */
  lacksUse: boolean;
  /**
   * A candidate with a category, of a kind the query names only after its head word's preposition of purpose, is
   * unrelated and sets no bar: what the product asked for goes with (the sofa for "cushion for the sofa").
   */
  whatFor: boolean;
  /**
   * When the query's head word is an English word the catalog lacks, corrected to a catalog word, and no candidate
   * holds that guess beside another query word, the candidates holding only the guess are unrelated and set no bar: a
   * misreading ("Jeans" for "coffee beans", jackets for "tennis racket").
   */
  misread: boolean;
  /**
   * When the query's head word is English and the catalog holds it in no form (`headUnsold`), a candidate covering
   * less than `coverage` of the query and less similar than `cosine` is unrelated, with or without a category: it
   * shares only the query's qualifiers (the "Lawn Nightgown" for "lawn mower").
   */
  unsold: { coverage: number; cosine: number };
  /**
   * When the catalog holds no word of the query in any form (`wordless`: a typo nothing corrects, a thing not sold), a
   * candidate holding no word of it in any form (the start of a code, "ipx" of IPX4, is one) and less similar than
   * this is unrelated: the encoder's similarity between a word it cannot read and any short name ("TP Bouncycle" for
   * "tredmill").
   */
  wordless: number;
};

/** How far apart two features computed in floating point may be and still be equal. */
const ROUNDING = 1e-9;

/** Tuned with `npm run bench:tune-local` on the dev queries and the sample-catalog set; see docs/search.md. */
export const DEFAULT_WEIGHTS: LocalWeights = {
  bm25: 0.25,
  coverage: 0,
  coverageAll: 4,
  phrase: 0.25,
  sequence: 0.5,
  cosine: 1.5,
  head: 0,
  type: 1,
  headNamed: 1.5,
  // The least of 0.5, 1 and 2 that moves anything: the insulated bottle before the sleeping bag for "something to keep
  // drinks cold on a camping trip" (sample set), the camp grill for "something to cook with on a camping trip".
  use: 1,
  accessory: 0.5,
  // Enough to put a product for other ages after every toy that suits for "wooden toys for toddlers" (the marble
  // run "not suitable for children under three"); the floor judges without it (rankScored): it orders, never cuts.
  ages: 2,
  // Set as ages is: "watch for men" puts the women's watches after every other; it orders, never cuts.
  sex: 2,
  // Set as sex is: "queen size heated blanket" puts the queen blankets before the king, twin and full ones; it orders, never cuts.
  bedSize: 2,
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
  // Chosen from bench:tune-local's floor table: most unrelated products out for little nDCG (docs/search.md).
  floor: 2.25,
  // Chosen from bench:tune-local's weak-evidence table: no dev nDCG lost (docs/search.md).
  weak: { coverage: 0.4, cosine: 0.4 },
  // From bench:tune-local's faint-evidence table: "dog food" answers nothing instead of play food, for 0.0002 of dev nDCG.
  faint: { coverage: 0.5, cosine: 0.2 },
  // From bench:tune-local's other-kind table: the waterproof shoe for "waterproof jacket", the sleeping mask for
  // "green tea" out; no dev query changes (that catalog has no categories).
  otherKind: 0,
  // From bench:tune-local's other-department table: the teepee play tent for "tent for 2 people", coffee paper filters
  // for "water filter for hiking" out; no dev query changes (that catalog has no categories).
  otherDepartment: 0.1,
  // From bench:tune-local's other-sort line: dining, accent and lounge chairs for "office chair", the music player for
  // "record player" out; no graded product cut, no dev query changes (that catalog has no categories).
  otherSort: true,
  // From bench:tune-local's headless line: "winter tyres" answers nothing instead of winter tights; no other sample
  // query changes, nor any dev query (that catalog has no categories).
  headless: true,
  // From bench:tune-local's lacks-use line: the sleeping bag out of "something to keep drinks cold on a camping
  // trip", the sofa out of "something cosy for the sofa"; no graded product cut, no dev query changes.
  lacksUse: true,
  // Measured with bench:relevance: "something cosy for the sofa" answers nothing instead of a play tent and a duvet
  // cover (unrelated in the top five 2% → 0%); no dev query changes (that catalog has no categories).
  whatFor: true,
  // Measured with bench:probe: "coffee beans" on the catalog of real pages answered only "Jeans awe299"; no dev,
  // typo-copy or sample query changes (docs/search.md).
  misread: true,
  // Measured with bench:probe (0.4 and 0.5 tried): "lawn mower" and "play doh" on the CrowdFlower catalog, "bar
  // stools" and "marker pen" on the real pages answer nothing; the pots and pans set, covering 0.6, stays for
  // "non-stick saucepans"; no dev, typo-copy or sample query changes (docs/search.md).
  unsold: { coverage: 0.5, cosine: 0.5 },
  // Measured with bench:probe and bench:relevance (0.5, 0.55, 0.6 and 1 tried): "tredmill", "trampolene" and
  // "scrabel" on the CrowdFlower catalog keep one product or none of five unrelated; higher, the typo copy loses the
  // Harley-Davidson books the encoder finds for "harleydanidson" (0.7901 → 0.7896 at 0.55).
  wordless: 0.5,
};

export function combine(f: Features, maxBm25: number, weights: LocalWeights): number {
  return (
    weights.bm25 * (maxBm25 > 0 ? f.bm25 / maxBm25 : 0) +
    weights.coverage * f.coverage +
    weights.coverageAll * f.coverageAll +
    weights.phrase * f.phrase +
    weights.sequence * f.sequence +
    weights.cosine * f.cosine +
    weights.head * f.head +
    weights.type * f.type +
    weights.headNamed * f.headNamed +
    weights.use * f.use -
    weights.accessory * f.accessory -
    weights.ages * f.ages -
    weights.sex * f.sex -
    weights.bedSize * f.bedSize -
    weights.avoided * f.avoided
  );
}

/**
 * Candidates best first (ties keep retrieval order), each marked unrelated when it falls under the relevance
 * floor: far below the best; weak on its own when no candidate is of a kind the query names, or very weak; or, when the best
 * is of the kind asked, of another kind by its category, of a kind asked from another department, or another sort
 * of the kind than the one the query puts before it and the best is named for (or, when the best is of no kind
 * asked, the first of the kind holds); or, from another department than the first of the kind asked, holding only
 * the query's qualifiers; or, when nothing kept is of the kind asked or holds the query's head word, any with a
 * category, and any holding no word of the query; or, when the query describes a use and a product kept holds its
 * head word, any with a category that does not; or, with a category, of the kind the query names after its head
 * word's preposition of purpose, or before its head word (what the product asked for goes with); or holding no word
 * of the query, beside a product kept of the kind asked or named with its last word (found by the encoder alone); or
 * holding only a guessed correction of the head word that no candidate confirms (a misreading); or weak when the head
 * word is English and the catalog holds it in no form (a thing it does not sell), or no word of the query at all; or
 * made only for another animal than the one the query names.
 */
export function rankScored(given: readonly Scored[], ids: readonly string[], weights: LocalWeights) {
  // When no candidate is of a kind the query names but some are of a kind that goes with what it says the product is
  // for, those are the kind asked, and hold the target word: "something cosy for the sofa" names no kind, and the
  // throws and cushions answer it, not the play tent whose page says "cozy". Their kind is their evidence: the faint
  // floor does not judge them (the encoder sees nothing cosy in a jacquard throw). Where a kind asked is sold ("lamp
  // for the sofa"), or the head word is a thing the catalog does not sell ("flea treatment for the sofa"), what goes
  // with the sofa counts for nothing.
  const fitting = !given.some((f) => f.kindAsked || f.headUnsold) && given.some((f) => f.fitted !== undefined);
  const fits = (f: Scored) => fitting && f.fitted !== undefined;
  const scored = given.map((f) => (fitting && f.fitted !== undefined ? { ...f, type: 1, kindAsked: true, coverageAll: f.fitted } : f));
  const maxBm25 = Math.max(0, ...scored.map((f) => f.bm25));
  const kindFound = scored.some((f) => f.kindAsked);
  const order = ids.map((id, index) => ({ id, index, score: combine(scored[index]!, maxBm25, weights), features: scored[index]! }));
  order.sort((a, b) => Number(b.features.typedHeld) - Number(a.features.typedHeld) || b.score - a.score || a.index - b.index);
  // Whom a product is made for, and a word not wanted in its name, only order (the scores subtract them).
  const madeFor = (f: Scored) => weights.ages * f.ages + weights.sex * f.sex + weights.bedSize * f.bedSize + weights.avoided * f.avoided;
  // The floor asks whether a candidate is about what was asked at all; the order of the query's words in the name,
  // the head word read from an uncategorised name, and the word saying what a product is to do only order related
  // products (measured: counted here, the first two cut the Vitas without "system" for "playstation vita system", and
  // the third the down sleeping bag, whose "warmth" was then no "warm", for "something warm for a camping trip").
  const related = (f: Scored, score: number) => score - weights.sequence * f.sequence - weights.headNamed * f.headNamed - weights.use * f.use;
  // So do ages, sexes, bed sizes and words not wanted: a product for other ages is judged without them, but does not set the bar for the others (the marble
  // run that holds "wooden" and "toys" would leave the stacker that toddlers stack below the floor).
  const judged = (f: Scored, score: number) => related(f, score) + madeFor(f);
  // A product of the kind named after the head word's preposition of purpose is what the product asked for goes with
  // (the sofa for "cushion for the sofa", the desk for "chair for my desk"): unrelated, and no bar for the others. So
  // is one of a kind a word before the head word names, lacking the head word, once a product of the kind asked holds
  // every such word (the knives for "knife sharpener" beside the whetstone in "Knife Care"). Without one, the head word
  // may be misread or the kind not sold: the teas stay for "tea bags", where only sleeping bags are bags.
  const kindHoldsSorts = scored.some((f) => f.type === 1 && f.sorts.every((sort) => sort.held));
  const target = (f: Scored) => weights.whatFor && (f.isTarget || (f.goesWith && kindHoldsSorts)) && f.department !== null;
  // A head word English has and the catalog lacks, read as a catalog word one edit away, is a guess at the kind asked,
  // which the query's other words confirm when a candidate holds it beside them. When none does, what holds only the
  // guess is a misreading: "Jeans" for "coffee beans", jackets for "tennis racket" (no product says "tennis"). Alone
  // in its query ("candle" read as "handle") a guess has nothing to be judged by, and stays; nor is a guessed sort
  // judged so: "espresso" read as "Nespresso", which writes "Coffee/Espresso" as one word, is what "espresso machine" asks.
  const guessConfirmed = scored.some((f) => f.holds.guess && f.holds.other);
  const misread = (f: Scored) => weights.misread && f.holds.guess && !f.holds.other && f.holds.others && !guessConfirmed;
  const judging = order.filter((o) => !target(o.features) && !misread(o.features));
  const best = Math.max(...judging.map((o) => related(o.features, o.score)));
  // Within rounding of the bar is at it: a word's share of the query is a ratio of sums of logarithms, and a product
  // holding only the non-vague word of "hiking gear" in its description covers 0.4 in one catalog, 0.39999999999999997 in another.
  const below = (f: Scored, floor: { coverage: number; cosine: number }) => f.coverageAll < floor.coverage - ROUNDING && f.cosine < floor.cosine;
  const weak = (f: Scored) =>
    (!kindFound && below(f, weights.weak)) ||
    (below(f, weights.faint) && !fits(f) && !f.asTyped) ||
    (f.headUnsold && below(f, weights.unsold)) ||
    (f.wordless && f.coverageAll === 0 && f.cosine < weights.wordless);
  // The best, and the first of the kind asked, by what they hold, whomever they are made for: the king sheet set is
  // the best for "queen sheets", and judges the sheet mask beside it another kind.
  const unmade = (o: (typeof order)[number]) => o.score + madeFor(o.features);
  const firsts = [...judging].sort(
    (a, b) => Number(b.features.typedHeld) - Number(a.features.typedHeld) || unmade(b) - unmade(a) || a.index - b.index,
  );
  const top = firsts[0]?.features;
  const bestOfKind = top?.type === 1;
  // One product of the kind asked by its category alone is thin evidence that the query's word names a kind rather
  // than what products are made of: "linen" finds the tea towels in "Kitchen > Linens", and the cushion cover and
  // curtains named with "Linen" are no other kind (the Light Roast coffee for "lighting" still is).
  const thin = bestOfKind && !top.kindNamed && scored.filter((f) => f.type === 1).length < 2;
  const otherKind = (f: Scored, score: number) =>
    bestOfKind && f.department !== null && f.type === 0 && score <= best - weights.otherKind && !(thin && f.head === 1);
  // The two floors below judge by category, beside the best when it is of the kind the query's head word names and
  // has a category: candidates of a kind asked, with a category.
  const kindBest = bestOfKind && top.department !== null ? top : undefined;
  const askedBeside = (f: Scored, beside: Scored) => f !== beside && f.department !== null && f.type > 0;
  // Of a kind asked, but sold in another department than the best and covering clearly less of the query: the
  // teepee play tent (toys) for "tent for 2 people", when the best is a two-person tent (outdoor).
  const otherDepartment = (f: Scored) =>
    kindBest !== undefined &&
    askedBeside(f, kindBest) &&
    f.department !== kindBest.department &&
    f.coverageAll < kindBest.coverageAll - weights.otherDepartment;
  // Of a kind asked, but of another sort than the best names and the query puts before its kind: the dining chair
  // for "office chair" when the best is a task chair (a synonym), the coffee subscription for "decaf coffee". When
  // the best is of no kind asked (the pour-over kettle for "pour over coffee"), the first of the kind asked that holds
  // every such word anywhere stands for it, by what it holds: the Ethiopia, whose page says it is for pour-over,
  // makes the coffee subscription, which says neither word, another sort.
  const sortBest =
    kindBest ??
    (bestOfKind
      ? undefined
      : firsts.find(({ features: f }) => f.type === 1 && f.department !== null && f.sorts.length > 0 && f.sorts.every((sort) => sort.held))
          ?.features);
  const otherSort = (f: Scored) =>
    weights.otherSort &&
    sortBest !== undefined &&
    askedBeside(f, sortBest) &&
    !f.namedAsAsked &&
    sortBest.sorts.some((sort, k) => (sortBest === kindBest ? sort.named : sort.held) && f.sorts[k]?.held === false);
  // When the best is of no kind asked, the first of the kind the head word names stands for it: a product with a
  // category from another department, of no kind asked and holding the head word nowhere, shares only the query's
  // qualifiers (the organic cotton plush fox, first by a hair, for "organic tea"). From the same department it may be
  // a kind of it the words miss: the copper saucepan for "copper pot", beside the pasta pot.
  const firstOfKind = firsts.find(({ features: f }) => f.type === 1 && f.department !== null)?.features;
  const qualifierOnly = (f: Scored) =>
    Number.isFinite(weights.otherKind) &&
    firstOfKind !== undefined &&
    f.department !== null &&
    f.department !== firstOfKind.department &&
    f.type === 0 &&
    !f.headHeld;
  const ranked = order.map(({ id, score, features: f }) => ({
    id,
    score,
    features: f,
    unrelated:
      f.otherAnimal ||
      target(f) ||
      misread(f) ||
      judged(f, score) < best - weights.floor ||
      weak(f) ||
      otherKind(f, judged(f, score)) ||
      otherDepartment(f) ||
      otherSort(f) ||
      qualifierOnly(f),
  }));
  // Nothing kept is of the kind asked or holds the word naming it: what is left shares only the query's qualifiers.
  // Only products with a category are judged so, their kind being known to differ, and those holding no word of the
  // query in any form, which only the encoder found (jeans, cosine 0.59, for "rain jacket"; the rain shell scores 0.41).
  const headless = weights.headless && !kindFound && !ranked.some((o) => !o.unrelated && o.features.headHeld);
  // A query saying what the product is to do, where some product kept holds the word saying what: the others with a
  // category share only its setting (the sleeping bag, "for car camping", for "something to keep drinks cold on a
  // camping trip").
  const lacksUse = weights.lacksUse && ranked.some((o) => !o.unrelated && o.features.holdsUse);
  // What the encoder alone found, holding no word of the query in any form, is no answer beside a product kept that is
  // of the kind asked, names the query's last word or holds every word: its similarity is then no evidence (jeans, at
  // 0.45, beside the Halloween costume kit for "ghost costume"; beside the book whose author is "david baldacci").
  // Beside weaker evidence it stays: the trail running shoes for "hiking boots", where only a bench holds "boots".
  const worded = ranked.some((o) => !o.unrelated && (o.features.type === 1 || o.features.head === 1 || o.features.holds.all));
  const judgedAll = ranked.map((o) => ({
    ...o,
    unrelated:
      o.unrelated ||
      (o.features.coverageAll === 0 && (headless || worded)) ||
      (o.features.department !== null && (headless || (lacksUse && !o.features.headHeld))),
  }));
  // Whom a product is made for orders the products of a kind asked or holding the head word among themselves, but
  // puts none below a product kept that is neither: the queen duvet cover came after a frying pan (similar by the
  // encoder's reckoning) for "duvet king size", where nothing is of the kind asked.
  const asked = (f: Scored) => f.kindAsked || f.headHeld;
  const lacking = Math.max(-Infinity, ...judgedAll.filter((o) => !o.unrelated && !asked(o.features)).map((o) => o.score));
  const placed = ({ features: f, score }: (typeof judgedAll)[number]) =>
    madeFor(f) > 0 && asked(f) && score + madeFor(f) > lacking ? Math.max(score, lacking + ROUNDING) : score;
  const typedFirst = (o: (typeof judgedAll)[number]) => Number(o.features.typedHeld);
  return judgedAll
    .map((o, rank) => ({ ...o, rank }))
    .sort((a, b) => typedFirst(b) - typedFirst(a) || placed(b) - placed(a) || a.rank - b.rank)
    .map(({ id, score, features: f, unrelated }) => ({ id, score, side: f.side, unrelated }));
}

/**
 * The ranked candidates with those holding one of two alternatives ("canon or nikon") taking turns, each side in its
 * own order, in the places such candidates held: one side's many products would otherwise fill the page ("canon or
 * nikon" answered five Canons). Others keep their places; the unrelated stay where they are, last.
 */
export function takingTurns<T extends { unrelated: boolean; side: number | undefined }>(ranked: readonly T[]): T[] {
  const places = ranked.flatMap((item, index) => (!item.unrelated && item.side !== undefined ? [index] : []));
  const queues = [0, 1].map((side) => places.map((index) => ranked[index]!).filter((item) => item.side === side));
  if (queues.some((queue) => queue.length === 0)) return [...ranked];
  const result = [...ranked];
  let turn = ranked[places[0]!]!.side!;
  for (const index of places) {
    const queue = queues[turn]!.length > 0 ? queues[turn]! : queues[1 - turn]!;
    result[index] = queue.shift()!;
    turn = 1 - turn;
  }
  return result;
}
