/** What kind of product a name, a category or a query names (issue 15). */
import { describe, expect, it } from "vitest";
import {
  compoundHeadOf,
  categoryHeads,
  describesUse,
  describesWhom,
  isVague,
  isWhom,
  purposeAfter,
  queryHead,
  readName,
} from "../../../server/search/product-type.js";

describe("readName: kinds", () => {
  it.each([
    ["Stormline 3L Rain Shell, Men's", ["shell"]],
    ["Ridgeline 2P Backpacking Tent", ["tent"]],
    ["Waterproof Trail Gaiters", ["gaiters"]],
    ["Merino T-Shirt - Black", ["shirt"]],
    ["Case for iPhone 15", ["case"]],
    ["Chef's Knife 20 cm", ["knife"]], // a unit after a number is not the kind
    ["Silicone Spatula Set", ["set", "spatula"]], // how it is sold, and what it is
    ["Trail Runner 3 Running Shoes (Women's)", ["shoes"]],
    ["GTX 500", []],
    ["Igloo 3.2 cu. ft. 2-Door Refrigerator and Freezer", ["freezer", "refrigerator"]], // two kinds joined
    ["Kettle & Teapot Set", ["set", "teapot"]],
    ["Stoneware Kettle & Teapot", ["teapot", "kettle"]],
    ["Canon PowerShot SX400 IS Digital Camera Black", ["camera"]], // a colour at the end is the variant
    ["Earl Grey with Bergamot, Loose Leaf", ["earl"]], // no "grey" for "grey sofa"
    ["Red", ["red"]],
  ])("%s → %j", (name, heads) => {
    expect(readName(name).kinds).toEqual(heads);
  });
});

describe("readName: sort", () => {
  it.each([
    ["Alder Dining Chair, Oak and Rush Seat, Set of 2", "dining"],
    ["Pocket 64 GB Hi-Res Music Player", "music"], // codes and sizes skipped
    ["Silicone Spatula Set", "silicone"], // the word before what it is, not before how it is sold
    ["Chair", undefined],
    ["Igloo Refrigerator and Freezer", undefined], // two kinds, no sort
  ])("%s → %s", (name, sort) => {
    expect(readName(name).sort).toBe(sort);
  });
});

describe("categoryHeads", () => {
  it("reads every segment of a category path naming one kind, the last first, and each part of the last", () => {
    expect(categoryHeads("Clothing > Jackets > Rain Jackets")).toEqual(["jackets", "clothing"]);
    expect(categoryHeads("Kitchen > Cookware > Pans")).toEqual(["pans", "cookware", "kitchen"]);
    expect(categoryHeads("Kitchen > Kettles & Teapots")).toEqual(["kettles", "teapots", "kitchen"]);
    // Segments before the last that join several kinds name none: a coffee is no tea, a towel no bed.
    expect(categoryHeads("Coffee & Tea > Coffee")).toEqual(["coffee"]);
    expect(categoryHeads("Bed and Bath > Towels")).toEqual(["towels"]);
    expect(categoryHeads("Food, Beverages > Coffee")).toEqual(["coffee"]);
    // Gear and equipment name no kind, and what they are for is none either: a sleeping bag is no "sleeping".
    expect(categoryHeads("Outdoor > Sleeping Gear")).toEqual(["outdoor"]);
    expect(categoryHeads("Coffee & Tea > Brewing Equipment")).toEqual([]);
    expect(categoryHeads(null)).toEqual([]);
    expect(categoryHeads("")).toEqual([]);
  });

  it("reads no kind from whom a category is for, nor from a count of something", () => {
    // A watch for men is no man: "mens cologne" asked for neither the watch nor the hoodie in "Men's Clothing".
    expect(categoryHeads("Men > Wrist Watches")).toEqual(["watches"]);
    expect(categoryHeads("Clothing > Men > Men's Clothing > Shirts & Tops")).toEqual(["shirts", "tops", "clothing"]);
    expect(categoryHeads("WOMAN")).toEqual([]);
    // "Up to 10 seats" sizes a dining table: it is no seat ("dog car seat" found the table).
    expect(categoryHeads("Furniture > Tables & desks > Dining tables > Up to 10 seats")).toEqual(["tables", "furniture"]);
    expect(categoryHeads("Libri > Ragazzi > 10-13 anni")).toEqual(["ragazzi", "libri"]);
    // A number elsewhere in the segment is part of the kind's name.
    expect(categoryHeads("Outdoor > 2-Person Tents")).toEqual(["tents", "outdoor"]);
  });
});

describe("isVague", () => {
  const vague = (q: string, word: string) => isVague(q.split(" "), q.split(" ").indexOf(word));

  it("is a word naming no kind, and a word for a gift before whom or what it is for", () => {
    expect(vague("hiking gear", "gear")).toBe(true);
    expect(vague("kitchen gadgets", "gadgets")).toBe(true);
    expect(vague("hair products", "products")).toBe(true);
    expect(vague("something cosy for the sofa", "something")).toBe(true);
    expect(vague("gift for a runner", "gift")).toBe(true);
    expect(vague("gift ideas for runners", "gift")).toBe(true);
    // A gift asked for as such: what is sold as one.
    expect(vague("coffee gift", "gift")).toBe(false);
    expect(vague("gift set", "gift")).toBe(false);
    expect(vague("hiking boots", "hiking")).toBe(false);
  });

  it("is 'ideas' wherever it stands: gift ideas are gifts", () => {
    expect(vague("gift ideas", "ideas")).toBe(true);
    expect(vague("gift ideas", "gift")).toBe(false);
  });

  it("is an occasion, which a gift suits without saying so", () => {
    expect(vague("birthday gift", "birthday")).toBe(true);
    expect(vague("christmas tree", "tree")).toBe(false);
  });

  it("is a letter size, which shops sell as a variant and seldom write in a name", () => {
    expect(vague("jacket xl", "xl")).toBe(true);
    expect(vague("mens jacket m", "m")).toBe(true);
    expect(vague("jacket xl", "jacket")).toBe(false);
  });
});

describe("describesWhom", () => {
  const which = (q: string, word: string) => describesWhom(q.split(" "), q.split(" ").indexOf(word));

  it("is a word between a preposition and the person it describes", () => {
    expect(which("gift for a new dad", "new")).toBe(true);
    expect(which("gift for my little sister", "little")).toBe(true);
    expect(which("new dad gift", "new")).toBe(false); // no preposition before it: it may name the product
    expect(which("gift for a coffee lover", "coffee")).toBe(false); // what they like asks for it
    expect(which("gift for a runner dad", "runner")).toBe(false); // a person, weighed as such
    expect(which("jacket for new hiking trips", "new")).toBe(false); // no person after it
  });

  it("is a word after the person saying they like what follows", () => {
    expect(which("gift for my sister who loves hiking", "loves")).toBe(true);
    expect(which("gift for a friend who likes coffee", "likes")).toBe(true);
    expect(which("gift for my sister who loves hiking", "hiking")).toBe(false); // what they like asks for it
    expect(which("loves mugs", "loves")).toBe(false); // no person before it
  });
});

describe("isWhom", () => {
  const whom = (q: string, word: string) => isWhom(q.split(" "), q.split(" ").indexOf(word));

  it("is a person after a preposition, by who they are or what they do, not by what they like", () => {
    expect(whom("gift for dad", "dad")).toBe(true);
    expect(whom("gift for a runner", "runner")).toBe(true);
    expect(whom("runner rug", "runner")).toBe(false); // before any preposition: a kind
    expect(whom("gift for a coffee lover", "lover")).toBe(false);
    expect(whom("something to cook with", "cook")).toBe(false); // a verb after "to"
  });
});

describe("describesUse", () => {
  it("is a query opening with a word for anything, after an article, and saying more", () => {
    const use = (q: string) => describesUse(q.split(" "));
    expect(use("something to keep drinks cold on a camping trip")).toBe(true);
    expect(use("a gift to keep a baby busy on a flight")).toBe(true);
    expect(use("anything waterproof")).toBe(true);
    expect(use("something")).toBe(false); // nothing more is said
    expect(use("waterproof hiking jacket")).toBe(false);
    expect(use("xl jacket")).toBe(false); // a size is vague, but names no use
    expect(use("camping gear")).toBe(false); // what the gear is for comes first: it names the kind
    expect(use("gift box")).toBe(false); // a gift word names no use but before a preposition, as in isVague
    expect(use("gift ideas for a hiker")).toBe(true);
  });
});

describe("queryHead", () => {
  const head = (q: string, stop: string[] = []) => {
    const words = q.split(" ");
    const i = queryHead(words, (index) => !stop.includes(words[index]!));
    return i === undefined ? undefined : words[i];
  };

  it("is the last content word before the qualifiers", () => {
    expect(head("waterproof hiking jacket")).toBe("jacket");
    expect(head("tent for 2 people")).toBe("tent");
    expect(head("jacket with a hood", ["a"])).toBe("jacket");
    expect(head("sunscreen spf 50")).toBe("sunscreen"); // "spf 50" is a property
    expect(head("shoes size 10 for kids")).toBe("shoes");
    expect(head("iphone 5")).toBe("iphone"); // no other word: the word before the number it is
    expect(head("external disk 500 gb")).toBe("disk"); // a unit after a number names no kind
    expect(head("dc shoes black")).toBe("shoes"); // a colour names a property, as a bare number does
    // Money and time left among the words, when no price or date was read from them, name no kind.
    expect(head("shoes 120 dollars")).toBe("shoes");
    expect(head("tent 300 euros today")).toBe("tent");
    expect(head("red")).toBe("red");
    // So does whom it is made for, and a size, as names put them after the kind (", Women's", "Size 02").
    expect(head("socks womens")).toBe("socks");
    expect(head("jacket size m")).toBe("jacket");
    expect(head("mens jacket xl")).toBe("jacket");
    expect(head("xl")).toBe("xl");
    expect(head("bed sheets queen")).toBe("sheets"); // a bed size, as a letter size
    expect(head("queen bed")).toBe("bed");
    // "double", "single" and "full" only beside a word for bedding: a "double stroller" is a stroller either way.
    expect(head("duvet cover double")).toBe("cover");
    expect(head("sheets single")).toBe("sheets");
    expect(head("espresso double")).toBe("double");
    // Nor do the words saying which person, before whom it is for.
    expect(head("gift for a coffee lover", ["a"])).toBeUndefined();
    expect(head("gift for a new mom", ["a"])).toBeUndefined();
    // Nor does an occasion: when, not what.
    expect(head("birthday gift")).toBeUndefined();
    expect(head("christmas tree")).toBe("tree");
    expect(head("womens")).toBe("womens");
    // Nor does whom it is for, after a preposition: a runner is a person there, and a kind of shoe or cloth elsewhere.
    expect(head("gift for a runner", ["a"])).toBeUndefined();
    expect(head("table runner")).toBe("runner");
    // Right after "to" it says what is done, not who: the kind is read before the next preposition, not at the end ("trip").
    expect(head("something to cook with on a camping trip", ["something", "a"])).toBe("cook");
    expect(head("gift for a cook", ["a"])).toBeUndefined();
    // Nor does a word for things of any kind: the word before it says what they are for.
    expect(head("running gear for winter")).toBe("running");
    expect(head("camping equipment")).toBe("camping");
  });

  it("reads a preposition in a compound the catalog writes as a word of it, before the word it qualifies", () => {
    const inCompound = (q: string, compound: string) => {
      const words = q.split(" ");
      const i = queryHead(
        words,
        () => true,
        (index) => words[index] === compound,
      );
      return i === undefined ? undefined : words[i];
    };
    expect(head("slip on shoes")).toBe("slip");
    expect(inCompound("slip on shoes", "on")).toBe("shoes"); // "slip-on"
    expect(inCompound("plug in air freshener", "in")).toBe("freshener");
    expect(inCompound("tent for 2 people", "ride")).toBe("tent");
  });

  it("is the word before one saying how the product is sold, as in names", () => {
    expect(head("knife set")).toBe("knife");
    expect(head("queen comforter sets")).toBe("comforter");
    expect(head("socks 3 pack")).toBe("socks");
    expect(head("set")).toBe("set");
    expect(head("gift set")).toBe("set"); // a gift names no kind
    expect(head("a set for the kitchen", ["a", "the"])).toBe("set");
  });

  it("is undefined when no word names anything", () => {
    expect(head("the", ["the"])).toBeUndefined();
    expect(head("500")).toBeUndefined();
    expect(head("500 gb")).toBeUndefined();
  });
});

describe("purposeAfter", () => {
  const purpose = (query: string, head: number, compound: number[] = []) => purposeAfter(query.split(" "), head, (i) => compound.includes(i));

  it("is the first preposition after the head word saying what the product is for or where it goes", () => {
    expect(purpose("cushion for the sofa", 0)).toBe(1);
    expect(purpose("lamp on the desk by the bed", 0)).toBe(1);
    expect(purpose("something to wear on a cold run", 2)).toBe(3); // "to" before the head is not after it
  });

  it("is none for a preposition of what comes with it or is like it, nor one in a compound", () => {
    expect(purpose("tea cup with saucer", 1)).toBeUndefined();
    expect(purpose("something like a hammock", 0)).toBeUndefined();
    expect(purpose("mug to go", 0, [1])).toBeUndefined();
  });
});

describe("an English compound's head", () => {
  it("is the kind a compound of two English words names by its last, four letters at least", () => {
    expect(compoundHeadOf("whetstone")).toEqual(["stone"]);
    expect(compoundHeadOf("headlamp")).toEqual(["lamp"]);
    // Too short a head names no kind the compound is ("teapot" is no pot to bake bread in); a word of one part has none.
    expect(compoundHeadOf("teapot")).toEqual([]);
    expect(compoundHeadOf("blanket")).toEqual([]);
    expect(compoundHeadOf("sleeping bag")).toEqual([]);
  });
});
