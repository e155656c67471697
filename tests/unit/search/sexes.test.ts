/** Whom a product is made for by sex, and whom a query asks for (issue 15). */
import { describe, expect, it } from "vitest";
import { sexesAsked, sexesOf } from "../../../server/search/sexes.js";

describe("sexesAsked", () => {
  it("reads the sexes a query names, by the word or the person", () => {
    expect([...sexesAsked("watch for men with a leather strap")]).toEqual(["male"]);
    expect([...sexesAsked("men's leather cowboy boots")]).toEqual(["male"]);
    expect([...sexesAsked("golf clubs for a woman")]).toEqual(["female"]);
    expect([...sexesAsked("necklace for my wife")]).toEqual(["female"]);
    expect([...sexesAsked("running shorts")]).toEqual([]);
  });

  it("reads man and woman as a person only where the query shops for one, not a character's name", () => {
    expect([...sexesAsked("spider man costume")]).toEqual([]);
    expect([...sexesAsked("wonder woman mug")]).toEqual([]);
    expect([...sexesAsked("costume for a man")]).toEqual(["male"]);
  });
});

describe("sexesOf", () => {
  it("reads a name's and a category's words, possessives and all", () => {
    expect([...sexesOf("Fossil Women's Riley Watch", null)]).toEqual(["female"]);
    expect([...sexesOf("Rain Boots, Ladies’", null)]).toEqual(["female"]);
    expect([...sexesOf("Trail Shorts", "Clothing > Men > Shorts")]).toEqual(["male"]);
    expect([...sexesOf("Women's Spider-Man Tee", null)]).toEqual(["female"]); // "Man" in a character's name says nothing
    expect(sexesOf("Menswear Gift Card", null).size).toBe(0); // not the word
    expect(sexesOf("Trail Running Shoe, Unisex", null).size).toBe(2);
    // A category segment "Man" or "Woman" alone, and the words of shops writing in French, German, Spanish, Italian.
    expect([...sexesOf("Leather Ankle Boots", "WOMAN > Shoes")]).toEqual(["female"]);
    expect(sexesOf("Iron Man Mug", "Kitchen > Mugs").size).toBe(0);
    expect([...sexesOf("Montre PRO TREK", "Mode femme > Montres et Bijoux Femme")]).toEqual(["female"]);
    // The description, when name and category name none, and only then.
    expect([...sexesOf("Adult Halloween Costume", null, "An adult women's costume with a cap.")]).toEqual(["female"]);
    expect([...sexesOf("Field Watch, Men's", null, "Pairs with the women's model.")]).toEqual(["male"]);
  });
});
