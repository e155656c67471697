/**
 * The local reranker's relevance cut-off (issue 48): a candidate is cut only when its fitted relevance is under the
 * threshold and neither the encoder nor the words tie it to the query; and the fitted file it is read from.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FITTED_PATH, loadFitted, parseFitted } from "../../../server/search/rerankers/fitted.js";
import { DEFAULT_WEIGHTS, rankScored, type Scored } from "../../../server/search/rerankers/ranking.js";

/** A cut-off fixed here, so that the tests judge the mechanism, not the figures the last fit found. */
const WEIGHTS = { ...DEFAULT_WEIGHTS, cutOff: { relevance: 2, gap: 2.25, encoder: 0.45, margin: 0.05, words: 0.5 } };

const candidate = (features: Partial<Scored>): Scored => ({
  bm25: 1,
  coverageAll: 1,
  phrase: 0,
  sequence: 0,
  cosine: 0.6,
  type: 1,
  headNamed: 0,
  use: 0,
  accessory: 0,
  ages: 0,
  avoided: 0,
  kindAsked: true,
  department: "outdoor",
  sorts: [],
  isTarget: false,
  goesWith: false,
  headUnsold: false,
  showsKind: true,
  ...features,
});

/** Shares no word with the query: found by the encoder alone. */
const WORDLESS = { bm25: 0, coverageAll: 0, type: 0, kindAsked: false } as const;

const ranked = (scored: Scored[]) =>
  rankScored(
    scored,
    scored.map((_, i) => `p${i}`),
    WEIGHTS,
  );
const unrelated = (scored: Scored[]) =>
  ranked(scored)
    .filter((o) => o.unrelated)
    .map((o) => o.id);

describe("the fitted weights and cut-off", () => {
  const valid = readFileSync(FITTED_PATH, "utf8");

  it("loads the shipped file, which says how it was made", () => {
    const fitted = loadFitted();
    expect(fitted.made.command).toBe("npm run bench:fit");
    expect(DEFAULT_WEIGHTS.cutOff).toEqual(fitted.cutOff);
    expect(DEFAULT_WEIGHTS.cosine).toBe(fitted.weights.cosine);
  });

  it("refuses a broken file, naming it and what is wrong", () => {
    expect(() => parseFitted("{ not json", "fitted.json")).toThrow(/^fitted\.json: not JSON/);
    const json = JSON.parse(valid);
    const broken = (change: (value: typeof json) => void) => {
      const copy = structuredClone(json);
      change(copy);
      return () => parseFitted(JSON.stringify(copy), "fitted.json");
    };
    expect(broken((f) => delete f.cutOff.encoder)).toThrow(/^fitted\.json: cutOff\.encoder: /);
    expect(broken((f) => (f.cutOff.encoder = 2))).toThrow(/cutOff\.encoder/);
    expect(broken((f) => (f.weights.cosine = -1))).toThrow(/weights\.cosine/);
    expect(broken((f) => (f.weights.extra = 1))).toThrow(/fitted\.json/);
    expect(broken((f) => (f.made.date = "yesterday"))).toThrow(/made\.date/);
    const dir = mkdtempSync(join(tmpdir(), "fitted-"));
    writeFileSync(join(dir, "fitted.json"), "[]");
    expect(() => loadFitted(join(dir, "fitted.json"))).toThrow(join(dir, "fitted.json"));
  });
});

describe("the relevance cut-off", () => {
  it("keeps a product the encoder finds close though it shares no word with the query, and says it is weak", () => {
    // "tv sound system": the soundbar, whose page says none of those words, closer than the rest.
    const others = [candidate({ ...WORDLESS, cosine: 0.3 }), candidate({ ...WORDLESS, cosine: 0.32 })];
    const answer = ranked([candidate({ ...WORDLESS, cosine: 0.55 }), ...others]);
    expect(answer.map((o) => [o.id, o.unrelated, o.weak])).toEqual([
      ["p0", false, true],
      ["p2", true, true],
      ["p1", true, true],
    ]);
  });

  it("does not take the encoder's word when it finds every candidate about as close", () => {
    // "xyzzy plugh qwertz": whatever is closest is barely closer than the usual.
    expect(
      unrelated([candidate({ ...WORDLESS, cosine: 0.5 }), candidate({ ...WORDLESS, cosine: 0.48 }), candidate({ ...WORDLESS, cosine: 0.47 })]),
    ).toEqual(["p0", "p1", "p2"]);
  });

  it("cuts a product neither the encoder nor the words tie to the query", () => {
    // "winter tyres": running tights, similar at 0.3 and holding only "winter" (a third of the query).
    expect(unrelated([candidate({ ...WORDLESS, coverageAll: 0.3, cosine: 0.3 })])).toEqual(["p0"]);
    // Beside a product that answers, one far below it goes too; but not one that shares most of the query's words.
    expect(unrelated([candidate({}), candidate({ ...WORDLESS, cosine: 0.3 })])).toEqual(["p1"]);
    expect(unrelated([candidate({}), candidate({ ...WORDLESS, coverageAll: 0.6, cosine: 0.1 })])).toEqual([]);
  });

  it("does not call an answer weak when a product in it clears the threshold", () => {
    const answer = ranked([candidate({ cosine: 0.3 }), candidate({ ...WORDLESS, cosine: 0.55 }), candidate({ ...WORDLESS, cosine: 0.3, bm25: 0.5 })]);
    expect(answer.map((o) => [o.id, o.unrelated, o.weak])).toEqual([
      ["p0", false, false],
      ["p1", false, true],
      ["p2", true, true],
    ]);
  });

  it("calls every match weak when no candidate shows the kind the query's head word asks for", () => {
    // "espresso machine": beans and a tamper hold "espresso", none is (or names) a machine.
    const beans = { showsKind: false, kindAsked: false, type: 0 };
    expect(ranked([candidate(beans), candidate(beans)]).map((o) => o.weak)).toEqual([true, true]);
    // One candidate that names it is enough for the others to be judged by their relevance alone.
    expect(ranked([candidate({}), candidate(beans)]).map((o) => o.weak)).toEqual([false, false]);
  });

  it("measures relevance without the signals that only order related products", () => {
    // The best holds the query in order and, uncategorised, names the head word; counted, they put the other far below.
    const best = candidate({ sequence: 1, headNamed: 1, department: null });
    const other = candidate({ coverageAll: 0.55, cosine: 0.3, department: null });
    expect(WEIGHTS.sequence + WEIGHTS.headNamed + WEIGHTS.coverageAll * 0.45).toBeGreaterThan(WEIGHTS.cutOff.gap);
    expect(unrelated([best, other])).toEqual([]);
  });

  it("cuts what the product asked for goes with, and lets it set no bar", () => {
    // "cushion for the sofa": the sofa holds both words, the cushion cover one.
    const sofa = candidate({ type: 0, kindAsked: false, coverageAll: 1, cosine: 0.6, isTarget: true, department: "furniture" });
    const cover = candidate({ coverageAll: 0.3, cosine: 0.3, department: "home", bm25: 0.2 });
    expect(unrelated([sofa, cover])).toEqual(["p0"]);
    // Without a category its kind is a guess: it stays.
    expect(unrelated([{ ...sofa, department: null }, cover])).not.toContain("p0");
  });

  it("puts a product holding the word saying what it is to do first", () => {
    const order = rankScored([candidate({ coverageAll: 1 }), candidate({ coverageAll: 0.8, use: 1 })], ["down", "synthetic"], WEIGHTS);
    expect(order.map((o) => [o.id, o.unrelated])).toEqual([
      ["synthetic", false],
      ["down", false],
    ]);
  });

  it("ranks a product for other ages after those that suit, and never cuts it for that", () => {
    const order = (scored: Scored[]) => rankScored(scored, ["other", "suits"], WEIGHTS).map((o) => [o.id, o.unrelated]);
    const suits = candidate({ coverageAll: 0.6 });
    expect(order([candidate({ coverageAll: 0.8, ages: 1 }), suits])).toEqual([
      ["suits", false],
      ["other", false],
    ]);
    expect(order([candidate({ coverageAll: 0.8 }), suits])[0]).toEqual(["other", false]);
  });

  it("takes what goes with what the query says the product is for as the kind asked, only when nothing is of a kind asked", () => {
    // "something cosy for the sofa": the play tent's page says "cozy"; the throw, which goes with a sofa, says neither word.
    const playTent = candidate({ ...WORDLESS, coverageAll: 0.24, cosine: 0.32, department: "toys" });
    const throwBlanket = candidate({ ...WORDLESS, cosine: 0.1, department: "home", fitted: 0.6 });
    const answer = rankScored([playTent, throwBlanket], ["tent", "throw"], WEIGHTS);
    expect(answer.filter((o) => !o.unrelated).map((o) => o.id)).toEqual(["throw"]);
  });
});
