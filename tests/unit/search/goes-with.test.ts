/** What goes with the thing a query says a product is for (goes-with.ts). */
import { describe, expect, it } from "vitest";
import { goesWith } from "../../../server/search/goes-with.js";

const read = (query: string) => goesWith(query.split(" ")).map(({ at, kinds }) => ({ at, kinds: [...kinds] }));

describe("what goes with what a query says the product is for", () => {
  it("reads the thing after a preposition of purpose, stop words between", () => {
    const [found] = read("something cosy for the sofa");
    expect(found?.at).toBe(4);
    expect(found?.kinds).toEqual(expect.arrayContaining(["throw", "cushion", "cushion cover"]));
    expect(read("a throw on my bed")[0]?.kinds).toContain("duvet cover");
    expect(read("pillows for couches")[0]?.at).toBe(2);
  });

  it("reads nothing where the thing is what is asked, or is no thing the list knows", () => {
    expect(read("sofa")).toEqual([]);
    expect(read("for the sofa")).toEqual([]);
    expect(read("sofa throw")).toEqual([]);
    expect(read("blanket for a dog bed")).toEqual([]);
    expect(read("case for my phone")).toEqual([]);
  });
});
