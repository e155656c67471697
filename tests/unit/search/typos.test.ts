/** Typo correction against a catalog's vocabulary (issue 15): which words are corrected, to what, and which never are. */
import { describe, expect, it } from "vitest";
import { corrections, editDistance, singleEdits } from "../../../server/search/typos.js";
import { NO_SYNONYMS } from "../../../server/search/synonyms.js";
import { understand } from "../../../server/search/understand.js";
import { buildVocabulary } from "../../../server/search/vocabulary.js";

const vocabulary = buildVocabulary([
  ["headphones", 40],
  ["headphone", 12],
  ["espresso", 30],
  ["express", 4],
  ["sunscreen", 3],
  ["mixer", 9],
  ["cable", 50],
  ["candle", 30],
  ["rechargeable", 103],
  ["rechargable", 5],
  ["refrigerator", 70],
  ["tent", 20],
  ["jacket", 15],
  ["spf", 2],
  ["camping", 8],
]);

describe("corrections", () => {
  it.each([
    ["hedphones", ["headphones"]], // a letter dropped
    ["mxier", ["mixer"]], // two neighbours swapped: what trigrams miss
    ["sunscren", ["sunscreen"]],
    ["tentt", ["tent"]], // a letter doubled
    ["refrigirator", ["refrigerator"]], // a letter replaced
    ["canble", ["cable", "candle"]], // two close words, both common enough
    ["expresso", ["espresso"]], // "express" is one edit away too, but in far fewer products
  ])("%s → %j", (word, expected) => {
    expect(corrections(word, vocabulary)).toEqual(expected);
  });

  it("corrects a word the catalog holds in a few products when a far commoner one is one edit away", () => {
    expect(corrections("rechargable", vocabulary)).toEqual(["rechargeable"]);
    expect(corrections("express", vocabulary)).toEqual([]); // 30 is not 20 × 4
  });

  it("leaves alone words the catalog holds, their plurals, short words, and words nothing is close to", () => {
    expect(corrections("headphones", vocabulary)).toEqual([]);
    expect(corrections("tents", vocabulary)).toEqual([]); // "tent" is held: a plural is not a typo
    expect(corrections("jackets", vocabulary)).toEqual([]);
    expect(corrections("spg", vocabulary)).toEqual([]); // under four letters
    expect(corrections("wedding", vocabulary)).toEqual([]);
  });

  it("allows two edits from ten letters", () => {
    expect(corrections("refrigiratr", vocabulary)).toEqual(["refrigerator"]);
    expect(corrections("hedphons", vocabulary)).toEqual([]); // eight letters: one edit only
  });

  it("counts edits as Damerau–Levenshtein without overlaps", () => {
    expect(editDistance("mxier", "mixer", 2)).toBe(1);
    expect(editDistance("sunscren", "sunscreen", 2)).toBe(1);
    expect(editDistance("abc", "cba", 2)).toBe(2);
    expect(editDistance("short", "muchlongerword", 2)).toBe(3);
    expect(singleEdits("ab", ["a", "b"]).has("ba")).toBe(true);
  });
});

describe("typos in a query", () => {
  const plan = (q: string) => understand(q, { vocabulary, synonyms: NO_SYNONYMS });

  it("searches both forms and reads the corrected query to the encoder", () => {
    const read = plan("sunscren spf 50");
    expect(read.corrections).toEqual([{ from: "sunscren", to: "sunscreen" }]);
    expect(read.forms.map((form) => form.words.join(" "))).toEqual(["sunscren", "spf", "50", "sunscreen"]);
    expect(read.embedText).toBe("sunscreen spf 50");
  });

  it("never corrects numbers, codes or SKUs", () => {
    expect(plan("500 tnet-2 ABX-500 XTENT sku1234 hedphones2").corrections).toEqual([]);
    expect(plan("mixr").corrections).toEqual([{ from: "mixr", to: "mixer" }]);
    expect(plan("TENTT").corrections).toEqual([{ from: "tentt", to: "tent" }]); // a whole query in capitals is not a code
  });

  it("corrects nothing without a vocabulary (typos=false)", () => {
    expect(understand("hedphones", { vocabulary: null, synonyms: NO_SYNONYMS }).corrections).toEqual([]);
  });
});
