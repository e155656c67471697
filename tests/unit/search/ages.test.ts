import { describe, expect, it } from "vitest";
import { askedAges, excludes, productAges, statedAges } from "../../../server/search/ages.js";

describe("askedAges", () => {
  it.each([
    ["wooden toys for toddlers", { from: 12, to: 36, text: "toddlers", index: 16, counted: false }],
    ["gift for a 1 year old", { from: 12, to: 24, text: "1 year old", index: 11, counted: true }],
    ["gift for a two-year-old", { from: 24, to: 36, text: "two-year-old", index: 11, counted: true }],
    ["toys for an 18 month old", { from: 18, to: 19, text: "18 month old", index: 12, counted: true }],
    ["puzzles ages 3-5", { from: 36, to: 72, text: "ages 3-5", index: 8, counted: true }],
    ["present for 6-8 year olds", { from: 72, to: 108, text: "6-8 year olds", index: 12, counted: true }],
    ["shoes for kids age 10", { from: 120, to: 132, text: "age 10", index: 15, counted: true }],
    ["baby sun hat", { from: 0, to: 12, text: "baby", index: 0, counted: false }],
    ["books for teens", { from: 156, to: 228, text: "teens", index: 10, counted: false }],
  ])("reads %s", (query, ages) => {
    expect(askedAges(query)).toEqual(ages);
  });

  it.each(["sunscreen for kids", "teenage mutant ninja turtles", "45 litre backpack", "2 year warranty kettle", "baby blue sweater", "toys age 3+"])(
    "reads no ages in %s",
    (query) => {
      expect(askedAges(query)).toBeNull();
    },
  );
});

describe("statedAges", () => {
  it.each([
    ["Not suitable for children under three because of small parts.", { from: 36, to: Infinity }],
    ["Not recommended for babies under 6 months.", { from: 6, to: Infinity }],
    ["The worktop is 54 cm high for children aged 3 to 6.", { from: 36, to: 84 }],
    ["The height adjusts for children from 3 to 8 years.", { from: 36, to: 108 }],
    ["Age: 18 months+", { from: 18, to: Infinity }],
    ["Suitable for ages 3 and up.", { from: 36, to: Infinity }],
    ["For 5+ years.", { from: 60, to: Infinity }],
    ["Soft enough for babies from 6 to 24 months.", { from: 6, to: 25 }],
    // Two statements: what both allow.
    ["For children aged 3 to 10. Not suitable for children under 5 years.", { from: 60, to: 132 }],
  ])("reads %s", (text, ages) => {
    expect(statedAges(text)).toEqual(ages);
  });

  it.each([
    "An adjustable seat from 30 to 40 cm.",
    "Supports children up to 25 kg.",
    "Includes a two-year warranty.",
    "Toddlers stack them, older children build tunnels.",
    "Serves 3 to 4 people.",
  ])("reads no ages in %s", (text) => {
    expect(statedAges(text)).toBeNull();
  });
});

describe("excludes", () => {
  const toddlers = { from: 12, to: 36 };
  it("leaves out toddlers from three, and keeps ranges that reach them", () => {
    expect(excludes({ from: 36, to: Infinity }, toddlers)).toBe(true);
    expect(excludes({ from: 0, to: 12 }, toddlers)).toBe(true);
    expect(excludes({ from: 18, to: Infinity }, toddlers)).toBe(false);
    expect(excludes({ from: 24, to: 84 }, toddlers)).toBe(false);
  });
});

describe("productAges", () => {
  it("reads a name for men or women as from 13 years, when the text states no ages", () => {
    expect(productAges("Tempo 4 Road Running Shoe, Men's", "")).toEqual({ from: 156, to: Infinity });
    expect(productAges("Women's Merino Leggings", "")).toEqual({ from: 156, to: Infinity });
    expect(productAges("Tempo Jr Running Shoe, Kids'", "")).toBeNull();
    expect(productAges("Menswear Gift Card", "")).toBeNull(); // not the word
    expect(productAges("Marble Run, Men's", "For children aged 3 to 6.")).toEqual({ from: 36, to: 84 }); // what it states wins
  });

  it("reads the stages of childhood a category labels a product with, and a name's but 'baby' alone (a doll, a brand)", () => {
    // As sizes run: baby to 24 months, toddler to 5T.
    expect(productAges("Activity Cube, 5 Sides", "", "Toys > Baby & Toddler")).toEqual({ from: 0, to: 60 });
    expect(productAges("Toddler Girls Patterned Tent Dress", "", null)).toEqual({ from: 12, to: 60 });
    expect(productAges("Baby Toddler Boy Cargo Shorts", "", null)).toEqual({ from: 0, to: 60 });
    expect(productAges("Baby Phat Womens Hoodie", "", null)).toEqual({ from: 156, to: Infinity }); // for women
    expect(productAges("Baby Alive Doll", "", null)).toBeNull();
    expect(productAges("Play Kitchen", "For children aged 3 to 6.", "Toys > Baby & Toddler")).toEqual({ from: 36, to: 84 }); // stated wins
  });
});
