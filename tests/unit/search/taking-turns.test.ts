/** ranking.ts's takingTurns: the two sides of "canon or nikon" take turns in the places either side held. */
import { describe, expect, it } from "vitest";
import { takingTurns } from "../../../server/search/rerankers/ranking.js";

const item = (id: string, side: number | undefined, unrelated = false) => ({ id, side, unrelated });
const ids = (items: readonly { id: string }[]) => items.map((each) => each.id);

describe("takingTurns", () => {
  it("alternates the sides in the places they held, each in its own order, the first side first", () => {
    const ranked = [item("a1", 0), item("a2", 0), item("x", undefined), item("a3", 0), item("b1", 1), item("b2", 1)];
    expect(ids(takingTurns(ranked))).toEqual(["a1", "b1", "x", "a2", "b2", "a3"]);
  });

  it("leaves the order as it is when only one side is held, and the unrelated where they are", () => {
    const one = [item("a1", 0), item("x", undefined), item("a2", 0)];
    expect(ids(takingTurns(one))).toEqual(["a1", "x", "a2"]);
    const unrelated = [item("a1", 0), item("a2", 0), item("b1", 1), item("b2", 1, true)];
    expect(ids(takingTurns(unrelated))).toEqual(["a1", "b1", "a2", "b2"]);
  });
});
