/** Typo correction against a catalog's vocabulary (issue 15): which words are corrected, to what, and which never are. */
import { describe, expect, it } from "vitest";
import { closestTerm, corrections, editDistance, joined, singleEdits, split } from "../../../server/search/typos.js";
import { NO_SYNONYMS, parseSynonyms } from "../../../server/search/synonyms.js";
import { anyWordQuery, everyWordQuery, type Form, understand } from "../../../server/search/understand.js";
import { buildVocabulary } from "../../../server/search/vocabulary.js";

/** A vocabulary of words and the number of products holding each. */
const vocabularyOf = (counts: Record<string, number>) => buildVocabulary(Object.entries(counts));

const vocabulary = buildVocabulary([
  ["headphones", 40],
  ["sleepers", 6],
  ["pants", 20],
  ["headphone", 12],
  ["espresso", 30],
  ["express", 4],
  ["sunscreen", 3],
  ["mixer", 9],
  ["cable", 50],
  ["candle", 30],
  ["rechargeable", 103],
  ["rechargable", 5],
  ["refrigerator", 70],
  ["tent", 20],
  ["gloves", 7],
  ["men", 9],
  ["jacket", 15],
  ["spf", 2],
  ["camping", 8],
  ["sodastream", 6],
  ["soda", 3],
  ["stream", 2],
  ["backpack", 1],
  ["blu", 48],
  ["ray", 160],
  ["bluray", 1],
  ["note", 30],
  ["book", 40],
  ["notebook", 12],
  ["tvstand", 9],
  ["pat", 2],
  ["pants", 60],
  ["over", 80],
  ["wireless", 30],
  ["then", 40],
  ["water", 30],
  ["bottle", 12],
  ["case", 20],
  ["kärcher", 3],
  ["sauté", 4],
  ["cafe", 5],
  ["décor", 6],
  ["cover", 25],
  ["high", 30],
]);

describe("corrections", () => {
  it.each([
    ["hedphones", ["headphones"]], // a letter dropped
    ["mxier", ["mixer"]], // two neighbours swapped: what trigrams miss
    ["sunscren", ["sunscreen"]],
    ["tentt", ["tent"]], // a letter doubled
    ["refrigirator", ["refrigerator"]], // a letter replaced
    ["canble", ["cable", "candle"]], // two close words, both common enough
    ["expresso", ["espresso"]], // "express" is one edit away too, but in far fewer products
    ["wireles", ["wireless"]], // not the singular of "wireless": a word ending in "s" has "es" for plural
  ])("%s → %j", (word, expected) => {
    expect(corrections(word, vocabulary)).toEqual(expected);
  });

  it("corrects a word the catalog holds in a few products when a far commoner one is one edit away", () => {
    expect(corrections("rechargable", vocabulary)).toEqual(["rechargeable"]);
    expect(corrections("express", vocabulary)).toEqual([]); // 30 is not 20 × 4
    // Two commoner neighbours are both searched, for the query's other words to choose ("beets headphones").
    const beats = vocabularyOf({ beets: 1, meets: 50, beats: 43, bets: 12 });
    expect(corrections("beets", beats)).toEqual(["beats", "meets"]); // "meets" changes the first letter
    // The same when the catalog holds it only in another number: "pats" is "pat" (2 products) or "pants" (60).
    expect(corrections("pats", vocabulary)).toEqual(["pants"]);
  });

  it("reads no plural of a stop word, nor an -es plural of what takes -s, and never corrects to a stop word", () => {
    const shop = vocabularyOf({ so: 683, soe: 1, shoes: 264, does: 155, goes: 78, he: 146, heel: 109, all: 1355, balls: 40, calls: 30 });
    // "soes" is no plural of "so" (only a hiss or an o takes -es), nor "alls" of "all": both are typos.
    expect(corrections("soes", shop)).toEqual(["shoes", "goes"]); // "does" is a stop word; "soe" is rare
    expect(corrections("hees", shop)).toEqual(["heel"]);
    expect(corrections("alls", shop)).toEqual(["balls", "calls"]);
  });

  it("counts a correction changing the first letter as held by a fifth of its products: people seldom mistype it", () => {
    const clothes = vocabularyOf({ weather: 132, sweater: 61, edge: 40, lodge: 9 });
    expect(corrections("sweather", clothes)).toEqual(["sweater", "weather"]);
    expect(corrections("ldge", clothes)).toEqual(["lodge", "edge"]);
    // The first two letters swapped are one slip of the fingers, not a first letter mistyped.
    expect(corrections("hcair", vocabularyOf({ hair: 90, chair: 60 }))).toEqual(["hair", "chair"]);
    // Far commoner, it still comes first.
    expect(corrections("sweather", vocabularyOf({ weather: 500, sweater: 61 }))).toEqual(["weather", "sweater"]);
  });

  it("leaves alone words the catalog holds, their plurals, short words, and words nothing is close to", () => {
    expect(corrections("headphones", vocabulary)).toEqual([]);
    expect(corrections("tents", vocabulary)).toEqual([]); // "tent" is held: a plural is not a typo
    expect(corrections("jackets", vocabulary)).toEqual([]);
    expect(corrections("spg", vocabulary)).toEqual([]); // under four letters
    expect(corrections("wedding", vocabulary)).toEqual([]);
  });

  it("allows two edits from eight letters", () => {
    expect(corrections("refrigiratr", vocabulary)).toEqual(["refrigerator"]);
    expect(corrections("hedphons", vocabulary)).toEqual(["headphones", "headphone"]); // eight letters; both two edits away
    expect(corrections("snscren", vocabulary)).toEqual([]); // seven letters: one edit only
  });

  it("reads a word as long with the same consonants, two vowels off, as one a single edit cannot reach", () => {
    const shoes = vocabularyOf({ handles: 167, sandals: 66, guitar: 69, gut: 40, gait: 30, gamepad: 46, amped: 50 });
    expect(corrections("sandles", shoes)).toEqual(["handles", "sandals"]); // the other words say which
    // Longer or shorter with the same consonants is another word: "guita" is no "gut", "amepad" no "amped".
    expect(corrections("guita", shoes)).toEqual(["guitar"]);
    expect(corrections("amepad", shoes)).toEqual(["gamepad"]);
    // An English word the catalog lacks is corrected one edit away at most.
    expect(corrections("sandles", shoes, { twoEdits: false })).toEqual(["handles"]);
    // Fewer edits first, however common the word two edits away: "dysen" is Dyson, then "doesn".
    expect(corrections("dysen", vocabularyOf({ dyson: 2, doesn: 50 }))).toEqual(["dyson", "doesn"]);
  });

  it("counts edits as Damerau–Levenshtein without overlaps", () => {
    expect(editDistance("mxier", "mixer", 2)).toBe(1);
    expect(editDistance("sunscren", "sunscreen", 2)).toBe(1);
    expect(editDistance("abc", "cba", 2)).toBe(2);
    expect(editDistance("short", "muchlongerword", 2)).toBe(3);
    expect(singleEdits("ab", ["a", "b"]).has("ba")).toBe(true);
  });
});

describe("word boundaries", () => {
  it("joins two words the catalog writes as one, when more than one product does", () => {
    expect(joined("soda", "stream", vocabulary)).toBe("sodastream");
    expect(joined("back", "pack", vocabulary)).toBeNull(); // in one product only
    expect(joined("tv", "stand", vocabulary)).toBeNull(); // a half under three letters
  });

  it("joins a letter alone to the word after it when five products or more write them as one: x box is xbox", () => {
    const consoles = vocabularyOf({ xbox: 40, ipad: 30, ipod: 3, apart: 20, box: 50, case: 60 });
    expect(joined("x", "box", consoles)).toBe("xbox");
    expect(joined("i", "pod", consoles)).toBeNull(); // in too few products
    expect(joined("a", "part", consoles)).toBeNull(); // "a" makes English of what follows
    // "i" is a stop word, which joined is no longer one.
    const plan = understand("i pad case", { vocabulary: consoles, synonyms: NO_SYNONYMS });
    expect(plan.corrections).toEqual([{ from: "i pad", to: "ipad" }]);
  });

  it("splits an English word the catalog lacks only into pieces one would write apart: no lot ion, no under wear", () => {
    const pieces = vocabularyOf({ lot: 30, ion: 30, under: 30, wear: 30, sofa: 30, bed: 30 });
    const corrected = (q: string) => understand(q, { vocabulary: pieces, synonyms: NO_SYNONYMS }).corrections;
    expect(corrected("lotion")).toEqual([]); // both halves under four letters
    expect(corrected("underwear")).toEqual([]); // a stop word, which full text drops
    expect(corrected("sofabed")).toEqual([{ from: "sofabed", to: "sofa bed" }]);
  });

  it("splits a word the catalog lacks or holds rarely into two far commoner catalog words", () => {
    expect(split("bluray", vocabulary)).toEqual(["blu", "ray"]); // in 1 product; its halves in 48 and 160
    expect(split("notebook", vocabulary)).toBeNull(); // in 12 products: the catalog's own word
    expect(split("raybl", vocabulary)).toBeNull(); // halves under three letters
    expect(split("notecable", vocabulary)).toEqual(["note", "cable"]);
  });
});

describe("typos in a query", () => {
  const plan = (q: string) => understand(q, { vocabulary, synonyms: NO_SYNONYMS });
  /** The words of the forms searched for `q` that `which` picks. */
  const searched = (q: string, which: (form: Form) => boolean) =>
    plan(q)
      .forms.filter(which)
      .map((form) => form.words.join(" "));

  it("searches both forms and reads the corrected query to the encoder", () => {
    const read = plan("sunscren spf 50");
    expect(read.corrections).toEqual([{ from: "sunscren", to: "sunscreen" }]);
    expect(read.forms.map((form) => form.words.join(" "))).toEqual(["sunscren", "spf", "50", "spf50", "sunscreen"]);
    expect(read.embedText).toBe("sunscreen spf 50");
  });

  it("reads a word as the catalog accents it, whichever way, common English or not", () => {
    expect(plan("karcher").corrections).toEqual([{ from: "karcher", to: "kärcher" }]);
    expect(plan("saute pan").corrections).toEqual([{ from: "saute", to: "sauté" }]);
    expect(plan("café").corrections).toEqual([{ from: "café", to: "cafe" }]);
    // "decor" is common English, which is never corrected: as written here it is the catalog's word.
    expect(plan("wall decor").corrections).toEqual([{ from: "decor", to: "décor" }]);
    expect(plan("saute pan").embedText).toBe("sauté pan");
    expect(vocabulary.accentedAlike("tent")).toEqual([]);
    // Not outside Latin letters: the mark on が makes another sound, not an accent.
    expect(buildVocabulary([["かき", 3]]).accentedAlike("がき")).toEqual([]);
  });

  it("never corrects numbers, codes or SKUs", () => {
    expect(plan("500 tnet-2 ABX-500 XTENT sku1234 hedphones2").corrections).toEqual([]);
    expect(plan("mixr").corrections).toEqual([{ from: "mixr", to: "mixer" }]);
    expect(plan("TENTT").corrections).toEqual([{ from: "tentt", to: "tent" }]); // a whole query in capitals is not a code
  });

  it("never corrects a unit after a number: 20 quart is no 20 quartz", () => {
    const units = vocabularyOf({ quartz: 5, cooler: 3 });
    expect(understand("cooler 20 quart", { vocabulary: units, synonyms: NO_SYNONYMS }).corrections).toEqual([]);
    expect(understand("quart cooler", { vocabulary: units, synonyms: NO_SYNONYMS }).corrections).toEqual([{ from: "quart", to: "quartz" }]);
  });

  it("reads a decimal as one word, as Postgres indexes it: 15.6 is no 15 and 6", () => {
    expect(searched("15.6 laptop case", (form) => form.kind === "typed")).toEqual(["15.6", "laptop", "case"]);
    expect(searched("keurig 2.0", (form) => form.kind === "typed")).toEqual(["keurig", "2.0"]);
    // A unit after it is still a word of its own, as Postgres reads "3.5mm".
    expect(searched("3.5mm jack", (form) => form.kind === "typed")).toEqual(["3.5", "mm", "jack"]);
  });

  it("leaves an English word inflecting a common one as it is: 'loves' is no typo of 'gloves'", () => {
    expect(plan("gift for someone who loves tea").corrections).toEqual([]);
    expect(plan("likes").corrections).toEqual([]);
    expect(plan("glovs").corrections).toEqual([{ from: "glovs", to: "gloves" }]); // no English word
  });

  it("leaves a word people say often as it is: 'socks' is no typo of 'locks', but 'pats' (said rarely) may be 'pants'", () => {
    const shop = (q: string) => understand(q, { vocabulary: vocabularyOf({ locks: 30, pants: 60, jeans: 20 }), synonyms: NO_SYNONYMS }).corrections;
    expect(shop("socks")).toEqual([]);
    expect(shop("coffee beans")).toEqual([]);
    expect(shop("yoga pats")).toEqual([{ from: "pats", to: "pants" }]);
  });

  it("corrects an English word the catalog lacks one edit away at most: 'slippers' is no typo of 'sleepers'", () => {
    expect(plan("slippers").corrections).toEqual([]); // two edits from "sleepers"
    expect(plan("pats").corrections).toEqual([{ from: "pats", to: "pants" }]); // one edit
    expect(plan("slippres").corrections).toEqual([]); // not English, but three edits away
    expect(plan("sleeeprs").corrections).toEqual([{ from: "sleeeprs", to: "sleepers" }]); // not English: two edits
  });

  it("marks the correction of an English word as a guess, which the query's other words may not confirm", () => {
    const guessed = (q: string) => searched(q, (form) => form.guessed === true);
    expect(guessed("wool pats")).toEqual(["pants"]);
    expect(guessed("wool pnats")).toEqual([]); // no English word: a typo
    expect(guessed("sunscren spf 50")).toEqual([]);
    // So are the synonyms read from a guess.
    const synonyms = parseSynonyms("trousers, pants", "test");
    const read = understand("wool pats", { vocabulary, synonyms }).forms.filter((form) => form.guessed);
    expect(read.map((form) => `${form.kind} ${form.words.join(" ")}`)).toEqual(["correction pants", "synonym trousers"]);
    expect(understand("wool pants", { vocabulary, synonyms }).forms.some((form) => form.guessed)).toBe(false);
  });

  it("reads a typo of a word only the synonyms know as that word, and its synonyms: 'rucksak' is a backpack", () => {
    const synonyms = parseSynonyms("backpack, rucksack", "test");
    const read = understand("rucksak", { vocabulary, synonyms });
    expect(read.corrections).toEqual([{ from: "rucksak", to: "rucksack" }]);
    expect(read.synonyms).toEqual([{ from: "rucksack", to: ["backpack"] }]);
    expect(read.embedText).toBe("rucksack");
    // Not an English word the catalog lacks, which is what the shopper meant.
    expect(understand("knapsack", { vocabulary, synonyms: parseSynonyms("backpack, rucksack", "test") }).corrections).toEqual([]);
    expect(closestTerm("rucksak", ["rucksack", "backpack"])).toBe("rucksack");
    expect(closestTerm("couhc", ["couch", "sofa"])).toBe("couch"); // two neighbours swapped
    expect(closestTerm("sofa", ["sofa"])).toBeNull(); // the word itself
    expect(closestTerm("tee", ["tea"])).toBeNull(); // too short
    expect(closestTerm("mats", ["hats", "cats"])).toBeNull(); // two as close
  });

  it("reads no synonyms for what a product is free of: fragrance-free lotion asks for no perfume", () => {
    const synonyms = parseSynonyms("perfume, fragrance", "test");
    expect(understand("fragrance-free lotion", { vocabulary, synonyms }).synonyms).toEqual([]);
    expect(understand("fragrance lotion", { vocabulary, synonyms }).synonyms).toEqual([{ from: "fragrance", to: ["perfume"] }]);
  });

  it("never corrects a word to another word of the query: 'thigh high' is no 'high high'", () => {
    expect(plan("thigh high").corrections).toEqual([]);
    expect(plan("thigh").corrections).toEqual([{ from: "thigh", to: "high" }]);
  });

  it("never corrects a word to a stop word, which full text would drop: 'lover' is no typo of 'over'", () => {
    // "over" is in more products than "cover", and as near.
    expect(plan("hover").corrections).toEqual([{ from: "hover", to: "cover" }]);
    expect(plan("thens").corrections).toEqual([]);
  });

  it("never corrects whom a product is for, a word no product holds: 'coffee lover' is no 'coffee cover'", () => {
    expect(plan("gift for a coffee lover").corrections).toEqual([]);
    expect(plan("gift for a coffee lover").embedText).toBe("gift for a coffee lover");
    expect(plan("a coffee lover").corrections).toEqual([]); // one named by what they like, even without "for"
  });

  it("searches a word and a number beside it written together too, and a word with a number in it apart, as typed", () => {
    const forms = (q: string) => plan(q).forms.map((form) => `${form.kind}:${form.words.join(" ")}`);
    expect(forms("spf 50")).toEqual(["typed:spf", "typed:50", "typed:spf50"]);
    expect(forms("16gb card")).toEqual(["typed:16gb", "typed:card", "typed:16 gb"]);
    expect(forms("tent for 2")).toEqual(["typed:tent", "typed:for", "typed:2", "typed:tent-for"]); // never a stop word
    expect(forms("500 ml")).toEqual(["typed:500", "typed:ml", "typed:500ml"]);
    expect(forms("2 person")).toEqual(["typed:2", "typed:person"]); // a number joins the word after it only when a unit
    expect(forms("skeleton")).toEqual(["typed:skeleton"]);
    // A model typed together, as the catalog writes it apart: the iPhone 5S, the Nintendo 3DS.
    expect(forms("iphone5s")).toEqual(["typed:iphone5s", "typed:iphone 5s"]);
    expect(forms("nintendo3ds")).toEqual(["typed:nintendo3ds", "typed:nintendo 3ds"]);
    const phones = (q: string) =>
      understand(q, { vocabulary: vocabularyOf({ galaxy: 40, s4: 9, case: 20, cases: 12 }), synonyms: NO_SYNONYMS }).forms.map((form) =>
        form.words.join(" "),
      );
    expect(forms("iphone6plus")).toEqual(["typed:iphone6plus", "typed:iphone 6 plus"]);
    expect(phones("cases4")).toEqual(["cases4", "cases 4"]); // "cases" is held: no "case s4"
  });

  it("searches a short word no one has and nothing corrects as the start of a code: 'ipx' of 'IPX4'", () => {
    const prefixes = (q: string) => searched(q, (form) => form.prefix === true);
    expect(prefixes("headphones ipx")).toEqual(["ipx"]);
    expect(anyWordQuery(plan("ipx"))).toBe("ipx:*");
    expect(prefixes("tent")).toEqual([]); // the catalog has it
    expect(prefixes("mens")).toEqual([]); // held in the other number, as "men"
    expect(prefixes("tnet")).toEqual([]); // corrected
    expect(prefixes("zoo")).toEqual([]); // English
    expect(prefixes("sunscrenx")).toEqual([]); // too long for a code's letters
    expect(prefixes("qqa qqb qqc qqd qqe")).toEqual(["qqa", "qqb", "qqc"]); // the first few only
  });

  it("reads a stop word beside a word as the compound a catalog may hyphenate, for the reranker only", () => {
    const compounds = (q: string) =>
      plan(q)
        .forms.filter((form) => form.compound)
        .map((form) => `${form.start}-${form.end}:${form.words.join(" ")}`);
    expect(compounds("pour over coffee")).toEqual(["0-2:pour-over", "1-3:over-coffee"]);
    expect(compounds("t shirt")).toEqual(["0-2:t-shirt"]);
    expect(compounds("over ear headphones")).toEqual(["0-2:over-ear"]);
    expect(compounds("wreck it ralph")).toEqual(["0-2:wreck-it", "1-3:it-ralph"]);
    expect(compounds("jacket for a cold day")).toEqual(["0-2:jacket-for", "2-4:a-cold"]); // never two stop words
    expect(compounds("rain jacket")).toEqual([]); // two plain words need no compound to count both
    // Not searched: "pour" finds every product holding "pour-over", and "over" alone would then be required.
    expect(anyWordQuery(plan("pour over coffee"))).toBe("pour | over | coffee");
    expect(everyWordQuery(plan("pour over coffee"))).toBe("pour & over & coffee");
  });

  it("searches no age counted in years or months, which the ages read: a 5 year old is no '5 Sides'", () => {
    const words = (q: string) =>
      plan(q)
        .forms.filter((form) => !form.compound)
        .map((form) => form.words.join(" "));
    expect(words("toys for a 5 year old")).toEqual(["toys", "for", "a"]);
    expect(words("puzzles ages 3-5")).toEqual(["puzzles"]);
    expect(plan("toys for a 5 year old").ages).toMatchObject({ from: 60, to: 72 });
    expect(words("toys for toddlers")).toEqual(["toys", "for", "toddlers"]); // a stage is a word shops use
  });

  it("corrects nothing without a vocabulary (typos=false)", () => {
    expect(understand("hedphones", { vocabulary: null, synonyms: NO_SYNONYMS }).corrections).toEqual([]);
    expect(understand("soda stream bluray", { vocabulary: null, synonyms: NO_SYNONYMS }).forms).toHaveLength(3);
  });

  it("searches words joined over both words, and a split word as a phrase, or as two English words apart", () => {
    const read = plan("soda stream bluray");
    expect(read.corrections).toEqual([
      { from: "soda stream", to: "sodastream" },
      { from: "bluray", to: "blu ray" },
    ]);
    expect(read.forms).toContainEqual({ start: 0, end: 2, words: ["sodastream"], kind: "correction" });
    expect(anyWordQuery(read)).toBe("soda | stream | bluray | sodastream | (blu <-> ray)");
    expect(everyWordQuery(read)).toBe("(soda | sodastream) & (stream | sodastream) & (bluray | (blu <-> ray))");
    // Split into two English words, a word is both words wherever each stands, and the encoder reads them.
    const apart = plan("waterbottle");
    expect(apart.corrections).toEqual([{ from: "waterbottle", to: "water bottle" }]);
    expect(anyWordQuery(apart)).toBe("waterbottle | (water & bottle)");
    expect(apart.embedText).toBe("water bottle");
    expect(plan("bluray").embedText).toBe("bluray"); // a name's halves stay a phrase, and the word as typed
    expect(anyWordQuery(plan("bookcase"))).toBe("bookcase | (book <-> case)"); // an English word is no two words run together
    // A typo is corrected first, then joined: "stteam" is "stream", and "soda stream" the catalog's "sodastream".
    expect(plan("soda stteam").corrections).toEqual([
      { from: "stteam", to: "stream" },
      { from: "soda stteam", to: "sodastream" },
    ]);
    // A code keeps its boundaries: "SODA" in capitals, in a query that is not, is one.
    expect(plan("SODA stream").corrections).toEqual([]);
  });
});
