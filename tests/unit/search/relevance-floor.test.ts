/** The relevance floor of the local reranker (issue 15), on the features it reads: which candidates it leaves out. */
import { describe, expect, it } from "vitest";
import { DEFAULT_WEIGHTS, rankScored, type Scored } from "../../../server/search/rerankers/ranking.js";

/** Holds some of the query's words, not all. */
const SOME = { guess: false, other: true, others: true, all: false };
/** Holds none of them: found by the encoder alone. */
const NONE = { ...SOME, other: false };

const candidate = (features: Partial<Scored>): Scored => ({
  bm25: 1,
  coverage: 1,
  coverageAll: 1,
  phrase: 0,
  sequence: 0,
  cosine: 0.6,
  head: 1,
  type: 1,
  headNamed: 0,
  use: 0,
  accessory: 0,
  ages: 0,
  sex: 0,
  bedSize: 0,
  avoided: 0,
  kindAsked: true,
  department: "outdoor",
  sorts: [],
  namedAsAsked: true,
  kindNamed: true,
  headHeld: true,
  typedHeld: true,
  otherAnimal: false,
  holdsUse: false,
  isTarget: false,
  goesWith: false,
  holds: { guess: false, other: true, others: true, all: true },
  headUnsold: false,
  wordless: false,
  ...features,
});

const unrelated = (scored: Scored[]) =>
  rankScored(
    scored,
    scored.map((_, i) => `p${i}`),
    DEFAULT_WEIGHTS,
  )
    .filter((o) => o.unrelated)
    .map((o) => o.id);

describe("the relevance floor", () => {
  it("leaves out a product of the kind asked that covers under half the query and is barely similar to it", () => {
    // "dog food" against felt play food: food, but no dog, and nothing like it in meaning.
    expect(unrelated([candidate({ coverageAll: 0.42, coverage: 0.42, cosine: 0.19 })])).toEqual(["p0"]);
    expect(unrelated([candidate({ coverageAll: 0.42, coverage: 0.42, cosine: 0.3 })])).toEqual([]);
    expect(unrelated([candidate({ coverageAll: 0.6, coverage: 0.6, cosine: 0.19 })])).toEqual([]);
  });

  it("keeps a product named with the query's word when one product alone is of the kind asked, by its category", () => {
    // "linen": the tea towels in "Kitchen > Linens", and a cushion cover named "Linen Cushion Cover".
    const linens = candidate({ kindNamed: false });
    const cover = candidate({ type: 0, kindAsked: false, department: "home" });
    expect(unrelated([linens, cover])).toEqual([]);
    // Not when the best's name names the kind, or two products are of it, or the word is not in its name.
    expect(unrelated([candidate({}), cover])).toEqual(["p1"]);
    expect(unrelated([linens, candidate({ kindNamed: false, coverageAll: 0.9 }), cover])).toEqual(["p2"]);
    expect(unrelated([linens, { ...cover, head: 0 }])).toEqual(["p1"]);
  });

  it("leaves out a product of the kind asked from another department that covers clearly less of the query", () => {
    // "tent for 2 people": two-person tents (outdoor) against the teepee play tent (toys), a tent for none of it.
    const tent = candidate({ coverageAll: 0.57 });
    const playTent = candidate({ coverageAll: 0.34, department: "toys" });
    expect(unrelated([tent, playTent])).toEqual(["p1"]);
    // From the same department, or covering as much of the query ("knife": chef's and pocket knives), it stays.
    expect(unrelated([tent, candidate({ coverageAll: 0.34 })])).toEqual([]);
    expect(unrelated([tent, candidate({ coverageAll: 0.57, department: "toys" })])).toEqual([]);
  });

  it("leaves out another sort of the kind asked, which lacks the sort the best is named for", async () => {
    // "office chair": the task chair names the sort (through a synonym); the dining chair is a chair, of another sort.
    const task = candidate({ sorts: [{ named: true, held: true }] });
    const dining = candidate({ coverageAll: 0.6, sorts: [{ named: false, held: false }], namedAsAsked: false });
    expect(unrelated([task, dining])).toEqual(["p1"]);
    // It stays if it holds the sort anywhere, if its name names the kind as asked ("Chair"), if the best's name does
    // not hold the sort, or without a category, when its kind is a guess.
    expect(unrelated([task, { ...dining, sorts: [{ named: false, held: true }] }])).toEqual([]);
    expect(unrelated([task, { ...dining, namedAsAsked: true }])).toEqual([]);
    expect(unrelated([{ ...task, sorts: [{ named: false, held: true }] }, dining])).toEqual([]);
    expect(unrelated([task, { ...dining, department: null }])).toEqual([]);
  });

  it("judges the sort by the first product of the kind asked that holds it, when the best is of no kind asked", () => {
    // "pour over coffee": the pour-over kettle first, then the Ethiopia ("best as a filter or pour-over"), then the
    // coffee subscription, which says neither word.
    const kettle = candidate({ type: 0, kindAsked: false, department: "kitchen", sorts: [{ named: true, held: true }] });
    const ethiopia = candidate({ coverageAll: 0.7, sorts: [{ named: false, held: true }], namedAsAsked: false });
    const subscription = candidate({ coverageAll: 0.6, sorts: [{ named: false, held: false }], namedAsAsked: false });
    expect(unrelated([kettle, ethiopia, subscription])).toEqual(["p2"]);
    // Without a product of the kind that holds the sort, nothing says the catalog has it: the subscription stays.
    expect(unrelated([kettle, { ...ethiopia, sorts: [{ named: false, held: false }] }, subscription])).toEqual([]);
  });

  it("measures how far below the best a product is without the signals that only order related products", () => {
    // The best holds the query in order and, uncategorised, names the head word; the other is as related otherwise.
    const best = candidate({ sequence: 1, headNamed: 1, department: null });
    const other = candidate({ coverage: 0.9, coverageAll: 0.9, department: null });
    const spread = DEFAULT_WEIGHTS.sequence + DEFAULT_WEIGHTS.headNamed + DEFAULT_WEIGHTS.coverageAll * 0.1;
    expect(spread).toBeGreaterThan(DEFAULT_WEIGHTS.floor); // counted, they would put it under the floor
    expect(unrelated([best, other])).toEqual([]);
    expect(unrelated([best, candidate({ coverage: 0.2, coverageAll: 0.2, department: null })])).toEqual(["p1"]);
  });

  it("puts a product holding the word saying what it is to do first, and measures the others without it", () => {
    // A product holding more of the query, but not the word saying what the product is to do.
    const order = (scored: Scored[]) => rankScored(scored, ["down", "synthetic"], DEFAULT_WEIGHTS).map((o) => [o.id, o.unrelated]);
    expect(order([candidate({ coverageAll: 1 }), candidate({ coverageAll: 0.8, use: 1 })])).toEqual([
      ["synthetic", false],
      ["down", false],
    ]);
    // Counted, it would put the down bag under the floor.
    expect(DEFAULT_WEIGHTS.use + DEFAULT_WEIGHTS.coverageAll * 0.45).toBeGreaterThan(DEFAULT_WEIGHTS.floor);
    expect(order([candidate({ coverageAll: 0.55 }), candidate({ coverageAll: 1, use: 1 })])).toEqual([
      ["synthetic", false],
      ["down", false],
    ]);
  });

  it("ranks a product for other ages after those that suit, judges it without the penalty, and lets it set no bar", () => {
    // "wooden toys for toddlers": the marble run (from three) holds more of the query than the stacker toddlers stack.
    const order = (scored: Scored[]) => rankScored(scored, ["marble", "stacker"], DEFAULT_WEIGHTS).map((o) => [o.id, o.unrelated]);
    const stacker = candidate({ coverageAll: 0.6 });
    expect(order([candidate({ coverageAll: 0.8, ages: 1 }), stacker])).toEqual([
      ["stacker", false],
      ["marble", false],
    ]);
    expect(order([candidate({ coverageAll: 0.8 }), stacker])[0]).toEqual(["marble", false]);
    // Far ahead on the words, it would put the stacker under the floor; for other ages it does not.
    const weakStacker = candidate({ coverageAll: 0.45, cosine: 0.45 });
    expect(unrelated([candidate({ coverageAll: 1 }), weakStacker])).toEqual(["p1"]);
    expect(unrelated([candidate({ coverageAll: 1, ages: 1 }), weakStacker])).toEqual([]);
  });

  it("ranks a product for another bed size after the rest, and never leaves it out for that", () => {
    // "queen size heated blanket": the king-size blanket holds "size" too, the plain one does not.
    const order = (scored: Scored[]) => rankScored(scored, ["king", "plain"], DEFAULT_WEIGHTS).map((o) => [o.id, o.unrelated]);
    const plain = candidate({ coverageAll: 0.6 });
    expect(order([candidate({ coverageAll: 0.8, bedSize: 1 }), plain])).toEqual([
      ["plain", false],
      ["king", false],
    ]);
    expect(order([candidate({ coverageAll: 0.8 }), plain])[0]).toEqual(["king", false]);
  });

  it("leaves out a product made only for another animal than the query names", () => {
    expect(unrelated([candidate({}), candidate({ otherAnimal: true })])).toEqual(["p1"]);
  });

  it("leaves out what shares only the query's qualifiers when nothing kept is of the kind asked or holds its head word", () => {
    // "winter tyres" with no tyres for sale: winter running tights, a winter sleeping bag.
    const tights = candidate({ kindAsked: false, type: 0, head: 0, coverageAll: 0.39, cosine: 0.45, headHeld: false, holds: SOME });
    const bag = candidate({ kindAsked: false, type: 0, coverageAll: 0.39, cosine: 0.41, headHeld: false, department: "camping" });
    expect(unrelated([tights, bag])).toEqual(["p0", "p1"]);
    // A product that holds the head word somewhere keeps them all; so does one of the kind asked.
    expect(unrelated([tights, { ...bag, headHeld: true }])).toEqual([]);
    expect(unrelated([tights, { ...bag, kindAsked: true }])).toEqual([]);
    // Without a category its kind is a guess: it stays.
    expect(unrelated([tights, { ...bag, department: null }])).toEqual(["p0"]);
    // Unless it holds none of the query's words in any form: the encoder alone put jeans, a training bag and a crib
    // mattress, none with a category, in the answer to "rain jacket" in a catalog selling no jacket.
    const jeans = candidate({ kindAsked: false, type: 0, head: 0, coverageAll: 0, cosine: 0.59, headHeld: false, department: null, holds: NONE });
    expect(unrelated([tights, jeans])).toEqual(["p0", "p1"]);
    expect(unrelated([{ ...tights, headHeld: true }, jeans])).toEqual([]);
  });

  it("leaves out what only the encoder found beside a product of the kind asked, or named with the query's last word", () => {
    // "ghost costume": the Halloween costume kit, and jeans, which hold neither word.
    const kit = candidate({ kindAsked: false, type: 0, head: 1, coverageAll: 0.44, cosine: 0.43, department: "costumes", holds: SOME });
    const jeans = candidate({ kindAsked: false, type: 0, head: 0, coverageAll: 0, cosine: 0.45, headHeld: false, department: null, holds: NONE });
    expect(unrelated([kit, jeans])).toEqual(["p1"]);
    // "hiking boots": a bench whose description holds "boots" is weaker evidence; the trail shoe it found stays.
    const bench = { ...kit, head: 0 };
    expect(unrelated([bench, jeans])).toEqual([]);
    // "david baldacci": a book holding every word of the query (the author, in its brands) is evidence enough.
    const book = { ...bench, holds: { ...SOME, all: true } };
    expect(unrelated([book, jeans])).toEqual(["p1"]);
  });

  it("leaves out what lacks the word saying what the product is to do, once a product kept holds it", () => {
    // "something to keep drinks cold on a camping trip": the bottle keeps water "cold"; the sleeping bag is for camping.
    const bottle = candidate({ kindAsked: false, type: 0, coverageAll: 0.3, cosine: 0.42, use: 1, holdsUse: true });
    const bag = candidate({ kindAsked: false, type: 0, coverageAll: 0.35, cosine: 0.44, headHeld: false });
    expect(unrelated([bottle, bag])).toEqual(["p1"]);
    // A query naming the product rather than its use, or saying it only in the verb after "to": the floors above judge alone.
    expect(unrelated([{ ...bottle, use: 0, holdsUse: false }, bag])).toEqual([]);
    expect(unrelated([{ ...bottle, holdsUse: false }, bag])).toEqual([]);
    // Without a category its kind is a guess: it stays.
    expect(unrelated([bottle, { ...bag, department: null }])).toEqual([]);
  });

  it("leaves out what the product asked for goes with, and lets it set no bar", () => {
    // "cushion for the sofa": the sofa holds both words, the cushion cover one.
    const sofa = candidate({ type: 0, kindAsked: false, coverageAll: 1, cosine: 0.6, isTarget: true, department: "furniture" });
    const cover = candidate({ coverageAll: 0.2, cosine: 0.3, department: "home" });
    expect(unrelated([sofa, cover])).toEqual(["p0"]);
    // Judged beside the sofa, the cover would be far below it.
    expect(unrelated([{ ...sofa, isTarget: false }, cover])).toContain("p1");
    // Without a category its kind is a guess: it stays.
    expect(unrelated([{ ...sofa, department: null }, cover])).not.toContain("p0");
  });

  it("leaves out what a word before the kind asked names, once a product of the kind asked holds that word", () => {
    // "knife sharpener": the whetstone (a sharpener, in "Kitchen > Knife Care") and a paring knife lacking "sharpener".
    const whetstone = candidate({ sorts: [{ named: false, held: true }] });
    const knife = candidate({ type: 0.5, headHeld: false, goesWith: true, sorts: [{ named: true, held: true }], coverageAll: 0.6 });
    expect(unrelated([whetstone, knife])).toEqual(["p1"]);
    // "tea bags" among sleeping bags, which hold no "tea": the loose teas stay.
    expect(unrelated([{ ...whetstone, sorts: [{ named: false, held: false }] }, knife])).toEqual([]);
  });

  it("leaves out what holds only a qualifier, from another department than the first of the kind asked", () => {
    // "organic tea": the plush fox names "organic" and scores a hair above the tea, which is of the kind asked.
    const fox = candidate({ type: 0, kindAsked: false, headHeld: false, department: "toys", bm25: 2, coverage: 0.64, coverageAll: 0.64 });
    const tea = candidate({ department: "coffee & tea", bm25: 1, coverage: 0.36, coverageAll: 0.36, head: 1 });
    expect(rankScored([fox, tea], ["fox", "tea"], DEFAULT_WEIGHTS)[0]!.id).toBe("fox");
    expect(unrelated([fox, tea])).toEqual(["p0"]);
    // "copper pot": the copper saucepan, beside the pasta pot in the same department, may be a kind of it the words miss.
    expect(unrelated([{ ...fox, department: "coffee & tea" }, tea])).toEqual([]);
  });

  it("leaves out what holds only a guessed head word, when no candidate confirms the guess and some holds the other words", () => {
    // "coffee beans", "beans" read as "jeans": the jeans hold only the guess, the coffee machine only "coffee".
    const jeans = candidate({ kindAsked: false, department: null, holds: { guess: true, other: false, others: true, all: false }, cosine: 0.25 });
    const machine = candidate({
      type: 0,
      kindAsked: false,
      headHeld: false,
      department: null,
      holds: { guess: false, other: true, others: true, all: true },
      cosine: 0.45,
    });
    expect(rankScored([jeans, machine], ["jeans", "machine"], DEFAULT_WEIGHTS)[0]!.id).toBe("jeans");
    expect(unrelated([jeans, machine])).toEqual(["p0"]);
    // Jeans holding "coffee" too confirm the guess: every jeans stays.
    const stained = { ...jeans, holds: { guess: true, other: true, others: true, all: true } };
    expect(unrelated([jeans, stained, machine])).not.toContain("p0");
    // "tennis racket", where no product says "tennis": nothing confirms the jackets either.
    expect(unrelated([jeans, { ...jeans }])).toEqual(["p0", "p1"]);
    // Alone in its query ("candle" read as "handle"), a guess has nothing to be judged by.
    const alone = { ...jeans, holds: { guess: true, other: false, others: false, all: true } };
    expect(unrelated([alone, { ...alone }])).toEqual([]);
  });

  it("leaves out what covers under half the query and is unlike it, when the head word is English and nothing holds it", () => {
    // "lawn mower" in a catalog with no mowers: a nightgown of lawn (the fabric), without a category.
    const nightgown = candidate({
      kindAsked: false,
      type: 0,
      head: 0,
      coverageAll: 0.43,
      cosine: 0.25,
      headHeld: false,
      department: null,
      headUnsold: true,
    });
    expect(unrelated([nightgown])).toEqual(["p0"]);
    // The same evidence with a head word the catalog holds is judged by the weak floor's lower bar, and stays.
    expect(unrelated([{ ...nightgown, headUnsold: false }])).toEqual([]);
    // Covering more of the query ("non-stick saucepans": a non-stick pots and pans set), or similar in meaning, it stays.
    expect(unrelated([{ ...nightgown, coverageAll: 0.6 }])).toEqual([]);
    expect(unrelated([{ ...nightgown, cosine: 0.55 }])).toEqual([]);
  });

  it("leaves out what the encoder alone finds under 0.5 when the catalog holds no word of the query", () => {
    // "tredmill", which nothing corrects in a catalog without treadmills: short names the encoder puts near anything.
    const hub = candidate({ kindAsked: false, type: 0, head: 0, coverageAll: 0, coverage: 0, cosine: 0.48, holds: NONE, wordless: true });
    expect(unrelated([{ ...hub, cosine: 0.5 }, hub])).toEqual(["p1"]);
    // With a word the catalog holds, the encoder's bar is retrieval's alone.
    expect(unrelated([{ ...hub, wordless: false }])).toEqual([]);
    // Holding the start of a code ("ipx" of IPX4), which no lexeme of the catalog is, it holds a word of the query.
    expect(unrelated([{ ...hub, coverageAll: 0.5, coverage: 0.5 }])).toEqual([]);
  });

  it("takes what goes with what the query says the product is for as the kind asked, only when nothing is of a kind asked", () => {
    // "something cosy for the sofa": the play tent's page says "cozy"; the throw, which goes with a sofa, says neither word.
    const playTent = candidate({ type: 0, kindAsked: false, coverage: 0, coverageAll: 0.24, cosine: 0.32, department: "toys", holds: SOME });
    const throwBlanket = candidate({
      type: 0,
      kindAsked: false,
      coverage: 0,
      coverageAll: 0,
      cosine: 0.1,
      head: 0,
      department: "home",
      holds: NONE,
      fitted: 0.33,
    });
    const answer = rankScored([playTent, throwBlanket], ["tent", "throw"], DEFAULT_WEIGHTS);
    expect(answer.filter((o) => !o.unrelated).map((o) => o.id)).toEqual(["throw"]);
    // "lamp for the sofa": the lamp is of the kind asked, and the throw holds no word of the query.
    expect(unrelated([candidate({ coverageAll: 0.6, department: "home" }), throwBlanket])).toEqual(["p1"]);
    // "flea treatment for the sofa": the catalog sells no treatment, and a throw is none, however much of the query the sofa is.
    expect(
      unrelated([
        { ...playTent, headUnsold: true },
        { ...throwBlanket, headUnsold: true, fitted: 0.6 },
      ]),
    ).toContain("p1");
  });

  it("judges by the best of the kind asked whomever it is made for: a king sheet set makes a sheet mask another kind", () => {
    // "queen sheets": the mask holds "sheet" in its name; the only sheet set is a king, ranked after it for its size.
    const mask = candidate({ type: 0, kindAsked: false, kindNamed: false, coverageAll: 0.8, department: "beauty" });
    const kingSheets = candidate({ coverageAll: 0.8, department: "home", bedSize: 1 });
    expect(unrelated([mask, kingSheets])).toEqual(["p0"]);
  });

  it("puts a product made for another size below those holding what was asked, never below one holding none of it", () => {
    // "duvet king size": the queen duvet cover holds "duvet"; the frying pan only looks alike to the encoder.
    const queenCover = candidate({ type: 0, kindAsked: false, coverageAll: 0.6, cosine: 0.38, department: "home", bedSize: 1 });
    const pan = candidate({
      type: 0,
      kindAsked: false,
      coverage: 0,
      coverageAll: 0.16,
      cosine: 0.42,
      headHeld: false,
      department: "kitchen",
      holds: SOME,
    });
    const order = rankScored([pan, queenCover], ["pan", "cover"], DEFAULT_WEIGHTS);
    expect(order.filter((o) => !o.unrelated).map((o) => o.id)).toEqual(["cover", "pan"]);
    // Beside a queen cover, the king one still comes after it.
    const cover = { ...queenCover, bedSize: 0 };
    expect(rankScored([queenCover, cover], ["king", "queen"], DEFAULT_WEIGHTS).map((o) => o.id)).toEqual(["queen", "king"]);
  });

  it("keeps what holds every word of the query as typed or a synonym, however little the encoder reads in it", () => {
    // "perfume": "SEOUL 100 ML (3.4 FL. OZ)", whose description says "fragrance" (a synonym), similar at 0.10.
    const toilette = candidate({ type: 0, kindAsked: false, coverage: 0, coverageAll: 0.4, cosine: 0.1, department: "man", asTyped: true });
    expect(unrelated([toilette])).toEqual([]);
    // Held only through a correction ("printer" read as "printed"), or missing a word ("dog food": play food), it goes.
    expect(unrelated([{ ...toilette, asTyped: undefined }])).toEqual(["p0"]);
  });
});
