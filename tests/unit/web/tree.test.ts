/** The search page's category facet in tree order (web/search/tree.ts). */
import { describe, expect, it } from "vitest";
import { inTreeOrder } from "../../../web/search/tree.js";

describe("the category facet's order", () => {
  it("puts each category under its parent, siblings in the order given", () => {
    const given = ["Clothing", "Outdoor", "Shoes", "Clothing > Jackets", "Outdoor > Camp Furniture", "Shoes > Running Shoes", "Outdoor > Hydration"];
    expect(inTreeOrder(given.map((value) => ({ value }))).map((entry) => entry.value)).toEqual([
      "Clothing",
      "Clothing > Jackets",
      "Outdoor",
      "Outdoor > Camp Furniture",
      "Outdoor > Hydration",
      "Shoes",
      "Shoes > Running Shoes",
    ]);
  });

  it("puts a category whose parent is not listed after those whose parents are", () => {
    expect(inTreeOrder([{ value: "Home > Lamps" }, { value: "Kitchen" }]).map((entry) => entry.value)).toEqual(["Kitchen", "Home > Lamps"]);
  });
});
