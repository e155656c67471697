/** The bed size a query asks for and a product is made for (bed-sizes.ts). */
import { describe, expect, it } from "vitest";
import { bedSizesAsked } from "../../../server/search/bed-sizes.js";

describe("bed sizes", () => {
  it("reads a size in a query beside bedding only", () => {
    expect([...bedSizesAsked("queen size heated blanket")]).toEqual(["queen"]);
    expect([...bedSizesAsked("california king sheets")]).toEqual(["california king"]);
    expect(bedSizesAsked("full zip hoodie").size).toBe(0); // "full" says other things
    expect(bedSizesAsked("king crab legs").size).toBe(0);
  });
});
