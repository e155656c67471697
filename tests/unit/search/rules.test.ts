/** The rules loader (server/search/rules): the built-in folder, an operator's RULES_DIR adding or replacing, and every kind of broken file refused with its name and line. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { askedAges } from "../../../server/search/ages.js";
import { STOP_WORDS } from "../../../server/search/common-words.js";
import { isVague } from "../../../server/search/product-type.js";
import { lineOf } from "../../../server/search/rules/files.js";
import { loadRules, RulesError, rules, useRules } from "../../../server/search/rules/index.js";
import { brandIndex, interpret } from "../../../server/search/interpret.js";
import { SearchParamsSchema } from "../../../shared/schemas/params.js";
import { sexesAsked } from "../../../server/search/sexes.js";
import { speciesIn } from "../../../server/search/species.js";
import { expand, loadSynonyms } from "../../../server/search/synonyms.js";

const root = mkdtempSync(join(tmpdir(), "rules-"));
let dir: string;
let n = 0;
beforeEach(() => {
  dir = join(root, `case-${n++}`);
  mkdirSync(join(dir, "en"), { recursive: true });
});
const builtin = rules();
afterEach(() => useRules(builtin));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(name: string, content: string | object): void {
  writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

/** The message loading `dir` is refused with. */
function refusal(): string {
  try {
    loadRules({ dir });
  } catch (error) {
    expect(error).toBeInstanceOf(RulesError);
    return (error as Error).message;
  }
  throw new Error("the rules were not refused");
}

describe("the built-in rules", () => {
  it("load, each file checked, and drive the functions that read them", () => {
    const loaded = loadRules();
    expect(loaded.language).toBe("en");
    expect(loaded.species.words.dog).toContain("puppy");
    expect(STOP_WORDS.has("the")).toBe(true);
    expect([...speciesIn("Puppy Chew Toy")]).toEqual(["dog"]);
  });
});

describe("an operator's RULES_DIR", () => {
  it("adds to the built-in lists, file by file, and a new value of a map", () => {
    write("en/species.json", { version: 1, words: { dog: ["hound"], bird: ["parrot", "budgie"] } });
    write("en/common-words.json", { version: 1, stopWords: ["plz"] });
    useRules(loadRules({ dir }));
    expect([...speciesIn("Hound Bed")]).toEqual(["dog"]);
    expect([...speciesIn("Puppy Bed")]).toEqual(["dog"]);
    expect([...speciesIn("Parrot Cage")]).toEqual(["bird"]);
    // An exported list follows the rules installed.
    expect(STOP_WORDS.has("plz")).toBe(true);
    expect(STOP_WORDS.has("the")).toBe(true);
  });

  it('replaces the lists a file gives when it says "replace": true, and keeps the others', () => {
    // The male words left out are replaced by none.
    write("en/sexes.json", { version: 1, replace: true, query: { female: ["wifey"] } });
    useRules(loadRules({ dir }));
    expect([...sexesAsked("necklace for my wifey")]).toEqual(["female"]);
    expect([...sexesAsked("necklace for my wife")]).toEqual([]);
    // product words were not given: still the built-in ones.
    expect([...sexesAsked("mens watch")]).toEqual(["male"]);
    expect([...sexesAsked("watch for my husband")]).toEqual([]);
    useRules(builtin);
    expect([...sexesAsked("necklace for my wife")]).toEqual(["female"]);
  });

  it("adds patterns built from the data (an age pattern with the built-in slots)", () => {
    write("en/ages.json", {
      version: 1,
      numberWords: { twenty: 20 },
      asked: [{ pattern: String.raw`\bfor\s+a\s+{number}\s+{unit}\s+kid\b`, read: "age" }],
    });
    useRules(loadRules({ dir }));
    expect(askedAges("bike for a 6 year kid")).toMatchObject({ from: 72, to: 84 });
    expect(askedAges("gift for a twenty year old")).toMatchObject({ from: 240, to: 252 });
  });

  it("changes a product-type list (an occasion the built-in rules lack)", () => {
    expect(isVague(["bar", "mitzvah", "gift"], 1)).toBe(false);
    write("en/product-type.json", { version: 1, occasions: ["mitzvah"] });
    useRules(loadRules({ dir }));
    expect(isVague(["bar", "mitzvah", "gift"], 1)).toBe(true);
  });

  it("adds a currency's name the built-in rules leave out, read in a query's price", () => {
    const params = SearchParamsSchema.parse({ q: "guitar under 2000 pesos" });
    const read = () => interpret({ ...params, q: "guitar under 2000 pesos" }, brandIndex([]), ["MXN", "USD"]);
    expect(read()?.adds.currency).toBeUndefined();
    write("en/constraints.json", { version: 1, currencyWords: { pesos: "MXN" } });
    useRules(loadRules({ dir }));
    expect(read()?.adds).toMatchObject({ price_max: "2000", currency: "MXN" });
  });

  it("adds a way of writing a constraint or a request to a phrase, as an alternative beside the built-in ones", () => {
    const read = (q: string) => interpret({ ...SearchParamsSchema.parse({ q }), q }, brandIndex([]), ["USD"]);
    expect(read("i fancy a wool throw")).toBeNull();
    write("en/constraints.json", { version: 1, phrases: { askingStart: [String.raw`i\s+fancy`], atMost: [String.raw`tops\s+of`] } });
    useRules(loadRules({ dir }));
    expect(read("i fancy a wool throw")?.query).toBe("wool throw");
    expect(read("headphones tops of $50")?.adds).toMatchObject({ price_max: "50", currency: "USD" });
    // The built-in alternatives stay.
    expect(read("headphones under $50")?.adds).toMatchObject({ price_max: "50" });
  });

  it("adds synonyms beside the built-in set, or replaces it when its header says so; SYNONYMS_FILE still applies beside", () => {
    write("en/synonyms.txt", "# version: 1\ngamp => umbrella\n");
    write("shop.txt", "brolly => umbrella\n");
    const added = loadSynonyms({ builtin: true, file: join(dir, "shop.txt"), dir });
    expect(expand(["gamp"], added)[0]?.forms).toEqual([["umbrella"]]);
    expect(expand(["brolly"], added)[0]?.forms).toEqual([["umbrella"]]);
    expect(expand(["couch"], added)).toHaveLength(1);
    write("en/synonyms.txt", "# version: 1\n# replace: true\ngamp => umbrella\n");
    const replaced = loadSynonyms({ builtin: true, file: undefined, dir });
    expect(expand(["gamp"], replaced)).toHaveLength(1);
    expect(expand(["couch"], replaced)).toEqual([]);
  });
});

describe("a broken rules file is refused with its name, line and what is wrong", () => {
  it("not JSON", () => {
    write("en/species.json", '{\n  "version": 1,\n  "words": { "dog": ["hound",] }\n}\n');
    expect(refusal()).toMatch(/^RULES_DIR en\/species\.json line 3: not JSON/);
  });

  it("a version this server does not read", () => {
    write("en/species.json", { version: 2, words: {} });
    expect(refusal()).toBe("RULES_DIR en/species.json line 2: version: version must be 1");
  });

  it("an unknown field (a typo), a wrong type, a word in capitals", () => {
    write("en/sexes.json", { version: 1, prodcut: {} });
    expect(refusal()).toMatch(/^RULES_DIR en\/sexes\.json line 3: Unrecognized key: "prodcut"/);
    write("en/sexes.json", { version: 1, product: { male: "guy", female: [] } });
    expect(refusal()).toMatch(/^RULES_DIR en\/sexes\.json line 4: product\.male: .*expected array/i);
    write("en/sexes.json", { version: 1, beforePerson: ["for", "My"] });
    expect(refusal()).toBe("RULES_DIR en/sexes.json line 5: beforePerson.1: must be lower case (words are compared lower-cased)");
  });

  it("a pattern with an unknown slot, or that is no regular expression", () => {
    write("en/ages.json", { version: 1, asked: [{ pattern: String.raw`\b{nmber} yo`, read: "age" }] });
    expect(refusal()).toMatch(/^RULES_DIR en\/ages\.json line 5: asked\.0\.pattern: unknown slot \{nmber\}/);
    write("en/ages.json", { version: 1, stages: [{ name: "kid", pattern: "(kids", asked: { from: 1, to: 2 }, labelled: { from: 1, to: 2 } }] });
    expect(refusal()).toMatch(/^RULES_DIR en\/ages\.json line 6: stages\.0\.pattern: not a regular expression/);
  });

  it("a phrase that is no regular expression, or names a part there is none of", () => {
    write("en/constraints.json", { version: 1, phrases: { atMost: ["under", "(below"] } });
    expect(refusal()).toMatch(/^RULES_DIR en\/constraints\.json line 6: phrases\.atMost\.1: not a regular expression/);
    write("en/constraints.json", { version: 1, phrases: { inStock: ["{inStok} now"] } });
    expect(refusal()).toMatch(/^constraints\.json: phrases\.inStock: unknown part \{inStok\} \(parts: inStock, available, sortedBy\)/);
  });

  it("a file or folder the server does not read", () => {
    write("en/sexs.json", { version: 1 });
    expect(refusal()).toMatch(/^RULES_DIR en\/sexs\.json: not a rules file this server reads \(known: sexes\.json, /);
    rmSync(join(dir, "en", "sexs.json"));
    write("sexes.json", { version: 1 });
    expect(refusal()).toBe("RULES_DIR sexes.json: rules files go in a language folder (en/)");
    rmSync(join(dir, "sexes.json"));
    mkdirSync(join(dir, "xx"));
    expect(refusal()).toBe('RULES_DIR xx/: no built-in rules for language "xx" (known: en)');
  });

  it("a synonyms file without its version line, or with a broken rule", () => {
    write("en/synonyms.txt", "gamp => umbrella\n");
    expect(refusal()).toBe('RULES_DIR en/synonyms.txt line 1: no "# version: 1" line before the first rule');
    write("en/synonyms.txt", "# version: 1\ngamp =>\n");
    expect(refusal()).toBe('RULES_DIR en/synonyms.txt line 2: nothing on the right of "=>" (in "gamp =>")');
  });

  it("every problem of every file at once", () => {
    write("en/species.json", { version: 1, words: { dog: ["Hound"] } });
    write("en/goes-with.json", { version: 1, purposes: "for" });
    expect(refusal().split("\n")).toEqual([
      expect.stringMatching(/^RULES_DIR en\/species\.json line 5: words\.dog\.0: must be lower case/),
      expect.stringMatching(/^RULES_DIR en\/goes-with\.json line 3: purposes: .*expected array/i),
    ]);
  });
});

describe("lineOf", () => {
  it("finds the line of a value by its path, in objects and arrays", () => {
    const text = '{\n  "a": [\n    "x",\n    { "b": "y,]}" },\n    {\n      "c": 1\n    }\n  ],\n  "d": 2\n}';
    expect(lineOf(text, ["a"])).toBe(2);
    expect(lineOf(text, ["a", 2, "c"])).toBe(6);
    expect(lineOf(text, ["d"])).toBe(9);
  });
});
