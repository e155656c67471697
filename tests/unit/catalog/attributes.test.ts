/**
 * Attributes derived at import (catalog/attributes/derive.ts) on records of the sample catalog, the vocabulary files'
 * validation, and how a query's words are read as audience and colour filters (search/attributes.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { deriveAttributes } from "../../../server/catalog/attributes/derive.js";
import { parseEntries } from "../../../server/catalog/attributes/lexicon.js";
import { attributeFilters, readAttributes, suitingAudiences } from "../../../server/search/attributes.js";

interface SampleRecord {
  name: string;
  desc: string;
  category?: string;
  raw_data?: { jsons?: { ld_json?: unknown } };
}

const SAMPLE = new Map(
  readFileSync(new URL("../../../server/sample/products.ndjson", import.meta.url), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SampleRecord)
    .map((record) => [record.name, record]),
);

function derived(name: string) {
  const record = SAMPLE.get(name);
  if (!record) throw new Error(`not in the sample catalog: ${name}`);
  return deriveAttributes({ name: record.name, desc: record.desc, category: record.category, rawData: record.raw_data });
}

describe("attributes derived from a sample record", () => {
  it("reads whom it is for from the name: women, men, unisex, kids, baby; none when it does not say", () => {
    expect(derived("Tempo 4 Road Running Shoe, Women's, Coral/White")).toMatchObject({ kind: "shoe", audience: "women", colours: ["pink", "white"] });
    expect(derived("Tempo 4 Road Running Shoe, Men's, Ink/Volt")).toMatchObject({ audience: "men", ageFromMonths: 156, ageToMonths: null });
    expect(derived("Flyer Carbon Plate Racing Shoe, Unisex").audience).toBe("unisex");
    expect(derived("Tempo Jr Running Shoe, Kids', Cobalt Blue")).toMatchObject({ audience: "kids", colours: ["blue"] });
    expect(derived("Kids' Gentle Bubble Bath, 250 mL").audience).toBe("kids");
    expect(derived("Maple Baby Rattle Ring")).toMatchObject({ audience: "baby", ageFromMonths: 0, ageToMonths: 60 });
    expect(derived("Ridgeline 2P Backpacking Tent")).toMatchObject({ audience: null, colours: [], materials: [] });
    // A name for grown-ups outweighs a child's word that names something else.
    expect(deriveAttributes({ name: "Mens Beastie Boys T-Shirt" }).audience).toBe("men");
    // Where name and category say none, the department a page's address names; never a word of its slug.
    const at = (url: string) => deriveAttributes({ name: "Leather Look Shirt", url }).audience;
    expect(at("https://shop.example/ie/en/women/leather-look-shirt-152135")).toBe("women");
    expect(at("https://shop.example/kids/p/leather-look-shirt")).toBe("kids");
    expect(at("https://shop.example/p/mens-leather-look-shirt")).toBeNull();
    expect(deriveAttributes({ name: "Leather Look Shirt, Men's", url: "https://shop.example/women/p/1" }).audience).toBe("men");
  });

  it("reads colours from a name's qualifiers as families, and never from what the product is (Earl Grey, Green Tea)", () => {
    expect(derived("Longhaul Max Cushion Running Shoe, Men's, Storm Grey").colours).toEqual(["grey"]);
    expect(derived("Tarn Merino Base Layer Crew, Men's, Charcoal, 200 gsm").colours).toEqual(["grey"]);
    expect(derived("Enamelled Cast Iron Dutch Oven, 5.2 L, Cherry Red").colours).toEqual(["red"]);
    expect(derived("Earl Grey with Bergamot, Loose Leaf, 125 g").colours).toEqual([]);
    expect(derived("Uji Sencha Green Tea, Loose Leaf, 100 g").colours).toEqual([]);
  });

  it("reads materials, kind and bed size from the name", () => {
    expect(derived("Tarn Merino Base Layer Crew, Men's, Charcoal, 200 gsm").materials).toEqual(["wool"]);
    expect(derived("Cascade 1 L Insulated Bottle, Brushed Stainless").materials).toEqual(["steel"]);
    expect(derived("Enamelled Cast Iron Dutch Oven, 5.2 L, Cherry Red").materials).toEqual(["cast iron"]);
    expect(derived("Linen Duvet Cover Set, Queen, Sage")).toMatchObject({ kind: "cover", size: "queen", materials: ["linen"], colours: ["green"] });
    expect(derived("Lakeview Queen Platform Bed, Ash")).toMatchObject({ kind: "bed", size: "queen", materials: ["wood"] });
  });

  it("reads the colour and material a page's JSON-LD states", () => {
    const attributes = deriveAttributes({
      name: "Field Jacket",
      rawData: { jsons: { ld_json: { "@type": "Product", name: "Field Jacket", color: "Navy", material: ["Organic Cotton"] } } },
    });
    expect(attributes).toMatchObject({ colours: ["blue"], materials: ["cotton"] });
  });

  it("reads the species a pet product is for", () => {
    expect(deriveAttributes({ name: "Flea and Tick Treatment for Dogs", category: "Pets > Dogs" }).species).toEqual(["dog"]);
  });
});

describe("vocabulary files", () => {
  it("refuse a broken line with the file's name, the line and what is wrong", () => {
    expect(() => parseEntries("# colours\nred: red, cherry\nBlue: navy\n", "colours.txt")).toThrow(
      /^colours\.txt line 3: the value before the colon must be lower-case letters$/,
    );
    expect(() => parseEntries("red red\n", "colours.txt")).toThrow('colours.txt line 1: expected "value: word, word"');
    expect(() => parseEntries("red: , cherry\n", "colours.txt")).toThrow(/colours\.txt line 1: an empty word/);
  });
});

describe("attribute filters", () => {
  it("widen an audience to those that suit it, and read a shopper's colour word as its family", () => {
    expect(suitingAudiences(["women"])).toEqual(["women", "unisex"]);
    expect(suitingAudiences(["kids"])).toEqual(["kids", "girls", "boys", "baby"]);
    expect(attributeFilters({ colour: ["gray", "navy"], material: ["stainless steel"] })).toEqual({
      colours: ["grey", "blue"],
      materials: ["steel"],
    });
    expect(() => attributeFilters({ colour: ["plaid"] })).toThrow(/colour: "plaid" is not a colour this catalog knows/);
  });
});

describe("a query's audience and colour words", () => {
  const held = { audiences: new Set(["women", "men", "kids"]), colours: new Set(["red", "black"]) };
  const read = (q: string) => readAttributes(q, {}, held);

  it("read whom the query is for", () => {
    expect(read("women's running shoes").adds).toEqual({ audience: ["women"] });
    expect(read("running shoes for men").adds).toEqual({ audience: ["men"] });
    expect(read("kids' running shoes").adds).toEqual({ audience: ["kids"] });
    expect(read("necklace for my wife").applied).toEqual([{ filter: "audience", value: "women", text: "wife" }]);
    expect(read("running shoes").adds).toEqual({});
    // Ages read as whom: a 1 year old is a baby, whose toys are labelled "Baby & Toddler" or for kids.
    expect(read("gift for a 1 year old").adds).toEqual({ audience: ["baby"] });
    expect(read("wooden toys for toddlers").adds).toEqual({ audience: ["kids"] });
  });

  it("read only colours the catalog holds", () => {
    expect(read("red kettle").applied).toEqual([{ filter: "colour", value: "red", text: "red" }]);
    expect(read("purple kettle").adds).toEqual({});
    // A word that names a colour on a product names other things in a query: snow boots ask for no white.
    expect(readAttributes("snow boots", {}, { ...held, colours: new Set(["white"]) }).adds).toEqual({});
    expect(readAttributes("wine rack", {}, held).adds).toEqual({});
    // An audience the catalog holds nothing suiting is no filter either.
    expect(readAttributes("womens boots", {}, { ...held, audiences: new Set(["kids"]) }).adds).toEqual({});
  });

  it("leave a parameter given as it is, and say so", () => {
    const reading = readAttributes("women's red shoes", { audience: ["men"], colour: ["black"] }, held);
    expect(reading.adds).toEqual({});
    expect(reading.notApplied.map((entry) => entry.reason)).toEqual(["audience was given", "colour was given"]);
  });
});
