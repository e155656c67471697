import { describe, expect, it } from "vitest";
import { type BlindQuery, ndcgAt5, scoreBlind } from "../../bench/blind-set.js";

const query = (over: Partial<BlindQuery>): BlindQuery => ({ q: "q", kind: "plain", grades: {}, never: [], ...over });

describe("blind set scoring", () => {
  const sold = query({ grades: { a: 3, b: 2 }, never: ["x"] });

  it("passes a query for something sold when a product graded 3 is in the first three and nothing never-wanted in five", () => {
    expect(scoreBlind(sold, { urls: ["c", "d", "a"], messages: [] }).pass).toBe(true);
    expect(scoreBlind(sold, { urls: ["c", "d", "e", "a"], messages: [] }).pass).toBe(false);
    expect(scoreBlind(sold, { urls: ["a", "c", "d", "e", "x"], messages: [] }).pass).toBe(false);
    expect(scoreBlind(sold, { urls: ["a", "c", "d", "e", "f", "x"], messages: [] }).pass).toBe(true);
  });

  it("counts an empty answer to a query for something sold as a wrong empty answer", () => {
    expect(scoreBlind(sold, { urls: [], messages: [] })).toEqual({ pass: false, ndcg5: 0, wrongEmpty: true });
  });

  it("passes a query for something not sold when empty, only accepted products, or said to be weak", () => {
    const notSold = query({ kind: "not-sold", grades: { n: 1 } });
    expect(scoreBlind(notSold, { urls: [], messages: [] }).pass).toBe(true);
    expect(scoreBlind(notSold, { urls: ["n"], messages: [] }).pass).toBe(true);
    expect(scoreBlind(notSold, { urls: ["n", "z"], messages: [] }).pass).toBe(false);
    expect(scoreBlind(notSold, { urls: ["z"], messages: ["weak_matches"] }).pass).toBe(true);
    expect(scoreBlind(notSold, { urls: [], messages: [] }).wrongEmpty).toBe(false);
  });

  it("computes nDCG@5 against the ideal order of the grades", () => {
    const grades = new Map([
      ["a", 3],
      ["b", 2],
    ]);
    expect(ndcgAt5(["a", "b"], grades)).toBe(1);
    expect(ndcgAt5(["b", "a"], grades)).toBeLessThan(1);
    expect(ndcgAt5(["z", "y", "w", "v", "u", "a"], grades)).toBe(0);
  });
});
