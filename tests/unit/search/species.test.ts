/** Which pet a product is for, and which a query asks for (species.ts): another animal's product is no answer. */
import { describe, expect, it } from "vitest";
import { speciesIn } from "../../../server/search/species.js";

describe("species", () => {
  it("reads the animals a text names, in any number and with a possessive", () => {
    expect([...speciesIn("Flea and Tick Treatment for Dogs")]).toEqual(["dog"]);
    expect([...speciesIn("Johnsons 4 Fleas Cats & Kittens Tablets")]).toEqual(["cat"]);
    expect([...speciesIn("Spray for Dogs and Cats")].sort()).toEqual(["cat", "dog"]);
    expect([...speciesIn("Puppies' First Collar")]).toEqual(["dog"]);
    expect(speciesIn("Hello Kitty Backpack").size).toBe(0); // no cat's
  });
});
