/** The bed size a query asks for and a product is made for (bed-sizes.ts). */
import { describe, expect, it } from "vitest";
import { bedSizesAsked, otherBedSize } from "../../../server/search/bed-sizes.js";

describe("bed sizes", () => {
  it("reads a size in a query beside bedding only", () => {
    expect([...bedSizesAsked("queen size heated blanket")]).toEqual(["queen"]);
    expect([...bedSizesAsked("california king sheets")]).toEqual(["california king"]);
    expect(bedSizesAsked("full zip hoodie").size).toBe(0); // "full" says other things
    expect(bedSizesAsked("king crab legs").size).toBe(0);
  });

  it("finds a product named for one other size; several or none suit any", () => {
    const queen = bedSizesAsked("queen comforter");
    expect(otherBedSize(queen, "Beautyrest Ribbed Microfleece King-size Heated Blanket")).toBe(true);
    expect(otherBedSize(queen, "Water Flower Purple Full/ Queen-size 3-piece Comforter Set")).toBe(false);
    expect(otherBedSize(queen, "Maverick Comforter Set")).toBe(false);
    expect(otherBedSize(queen, "Kings Road 4-Piece Queen-size Comforter Set")).toBe(false); // a brand, not a size
    expect(otherBedSize(bedSizesAsked("king sheets"), "Micro Flannel Sheets - Cal. King (White)")).toBe(true);
    expect(otherBedSize(new Set(), "King-size Heated Blanket")).toBe(false); // no size asked
  });
});
