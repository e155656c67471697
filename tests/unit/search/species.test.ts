/** Which pet a product is for, and which a query asks for (species.ts): another animal's product is no answer. */
import { describe, expect, it } from "vitest";
import { otherSpecies, speciesIn } from "../../../server/search/species.js";

describe("species", () => {
  it("reads the animals a text names, in any number and with a possessive", () => {
    expect([...speciesIn("Flea and Tick Treatment for Dogs")]).toEqual(["dog"]);
    expect([...speciesIn("Johnsons 4 Fleas Cats & Kittens Tablets")]).toEqual(["cat"]);
    expect([...speciesIn("Spray for Dogs and Cats")].sort()).toEqual(["cat", "dog"]);
    expect([...speciesIn("Puppies' First Collar")]).toEqual(["dog"]);
    expect(speciesIn("Hello Kitty Backpack").size).toBe(0); // no cat's
  });

  it("finds a product made only for another animal than the one asked", () => {
    const dogs = speciesIn("flea treatment for dogs");
    expect(otherSpecies(dogs, { name: "Johnsons 4 Fleas Cats & Kittens Tablets" })).toBe(true);
    expect(otherSpecies(dogs, { name: "Spray for Dogs and Cats" })).toBe(false); // suits either
    expect(otherSpecies(dogs, { name: "Flea Comb" })).toBe(false); // names none: not judged
    expect(otherSpecies(dogs, { name: "Tablets", category: "Pets > Cats > Flea Control" })).toBe(true);
    expect(otherSpecies(speciesIn("flea comb"), { name: "Cat Flea Comb" })).toBe(false); // the query names none
  });
});
