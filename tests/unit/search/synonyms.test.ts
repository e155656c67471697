/** Synonyms in the Solr/Elasticsearch format (issue 15): parsing, mistakes named by line, and what a query gains. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RulesError } from "../../../server/search/rules/files.js";
import { expand, loadSynonyms, parseSynonyms } from "../../../server/search/synonyms.js";
import { understand } from "../../../server/search/understand.js";

const rules = parseSynonyms(
  ["# comment", "", "sofa, couch, settee", "tv => television", "jacket => jacket, shell", "rain jacket, rain shell"].join("\n"),
  "test",
);
const forms = (words: string) =>
  expand(words.split(" "), rules).map((e) => ({ at: [e.start, e.end], forms: e.forms.map((f) => f.join(" ")), replaces: e.replaces }));

describe("parseSynonyms", () => {
  it("reads equivalents both ways, and a mapping one way", () => {
    expect(forms("couch")).toEqual([{ at: [0, 1], forms: ["sofa", "settee"], replaces: false }]);
    expect(forms("settee")).toEqual([{ at: [0, 1], forms: ["sofa", "couch"], replaces: false }]);
    expect(forms("tv stand")).toEqual([{ at: [0, 1], forms: ["television"], replaces: true }]);
    expect(forms("television")).toEqual([]); // one way only
    expect(forms("shell")).toEqual([]);
  });

  it("keeps a mapped word that its own rule lists, matches the longest term and compares plurals as singulars", () => {
    expect(forms("jacket")).toEqual([{ at: [0, 1], forms: ["shell"], replaces: false }]);
    expect(forms("womens rain jackets")).toEqual([{ at: [1, 3], forms: ["rain shell"], replaces: false }]);
    expect(forms("couches")).toEqual([{ at: [0, 1], forms: ["sofa", "settee"], replaces: false }]);
  });

  it("accepts an empty file", () => {
    expect(parseSynonyms("", "empty").rules).toBe(0);
    expect(parseSynonyms("# only a comment\n\n", "empty").rules).toBe(0);
  });

  it.each([
    ["a => b => c", 'line 2: more than one "=>"'],
    ["a, , b", "line 2: an empty term"],
    ["a,", "line 2: an empty term"],
    ["=> b", 'line 2: nothing on the left of "=>"'],
    ["a =>", 'line 2: nothing on the right of "=>"'],
    ["lonely", "line 2: one term alone"],
    ["a, !!!", 'line 2: "!!!" has no letters or digits'],
    ["tv => television   # one way", 'line 2: a "#" after a rule: a comment takes a line of its own'],
  ])("refuses %j naming the source and line", (line, problem) => {
    expect(() => parseSynonyms(`sofa, couch\n${line}`, "my.txt")).toThrow(RulesError);
    expect(() => parseSynonyms(`sofa, couch\n${line}`, "my.txt")).toThrow(`my.txt ${problem}`);
  });
});

describe("loadSynonyms", () => {
  const dir = mkdtempSync(join(tmpdir(), "synonyms-"));

  it("merges the operator's file with the built-in set, which can be turned off", () => {
    const file = join(dir, "shop.txt");
    writeFileSync(file, "gamp => umbrella\nsofa, chesterfield\n");
    const both = loadSynonyms({ builtin: true, file });
    const words = (q: string, set = both) => expand(q.split(" "), set).flatMap((e) => e.forms.map((f) => f.join(" ")));
    expect(words("gamp")).toEqual(["umbrella"]);
    expect(words("sofa")).toEqual(expect.arrayContaining(["couch", "chesterfield"]));
    expect(words("earbuds")).toEqual(expect.arrayContaining(["earphones"]));
    // A person asks for what they do, one way: "running" does not widen to "runner".
    expect(words("runner")).toEqual(["running"]);
    expect(words("running")).toEqual([]);
    const fileOnly = loadSynonyms({ builtin: false, file });
    expect(words("earbuds", fileOnly)).toEqual([]);
    expect(words("gamp", fileOnly)).toEqual(["umbrella"]);
    expect(loadSynonyms({ builtin: false, file: undefined }).rules).toBe(0);
  });

  it("reads the initials shops name features by, and a teddy as a soft toy but not every soft toy as a teddy", () => {
    const builtin = loadSynonyms({ builtin: true, file: undefined });
    const words = (q: string) => expand(q.split(" "), builtin).flatMap((e) => e.forms.map((f) => f.join(" ")));
    expect(words("noise cancelling headphones")).toContain("anc");
    expect(words("gore tex shoes")).toContain("gtx");
    expect(words("teddy")).toEqual(expect.arrayContaining(["teddy bear", "soft toy"]));
    expect(words("soft toy")).not.toContain("teddy");
  });

  it("reads British shoppers' words as the American ones merchants write, and the American cot as itself", () => {
    const builtin = loadSynonyms({ builtin: true, file: undefined });
    const words = (q: string) => expand(q.split(" "), builtin).flatMap((e) => e.forms.map((f) => f.join(" ")));
    expect(words("cot sheet")).toContain("crib");
    expect(words("crib")).not.toContain("cot"); // in America a cot is also a camp bed
    expect(words("changing mat")).toContain("changing pad");
    expect(words("swimming costume")).toContain("swimsuit");
    expect(words("holdall")).toContain("duffel bag");
    expect(words("hair straighteners")).toContain("flat iron");
    expect(words("nail varnish")).toContain("nail polish");
    expect(words("pjs")).toContain("pajamas");
    expect(words("dinner service")).toContain("dinnerware set");
    expect(words("kitchen tap")).toContain("faucet");
    expect(words("faucet")).not.toContain("tap"); // a beer tap is no faucet
    expect(words("jet washer")).toContain("pressure washer"); // British
    expect(words("knitwear")).toEqual(expect.arrayContaining(["sweater", "cardigan"]));
    expect(words("cafetiere")).toContain("french press");
    expect(words("sieve for pasta")).toContain("colander");
    expect(words("blackout drapes")).toContain("curtains");
    expect(words("podcast mic")).toContain("microphone");
    expect(words("bin bags")).toContain("trash bags");
  });

  it("names the file and line of a mistake, and a file it cannot read", () => {
    const file = join(dir, "broken.txt");
    writeFileSync(file, "# ok\nsofa, couch\ntv =>\n");
    expect(() => loadSynonyms({ builtin: true, file })).toThrow(`SYNONYMS_FILE ${file} line 3: nothing on the right of "=>"`);
    expect(() => loadSynonyms({ builtin: true, file: join(dir, "missing.txt") })).toThrow(/SYNONYMS_FILE .*missing\.txt: cannot be read \(ENOENT\)/);
  });
});

describe("synonyms in a query", () => {
  it("searches what a rule adds beside the typed words, and reports it", () => {
    const plan = understand("grey couch", { vocabulary: null, synonyms: rules });
    expect(plan.synonyms).toEqual([{ from: "couch", to: ["sofa", "settee"] }]);
    expect(plan.forms.map((form) => `${form.kind}:${form.words.join(" ")}`)).toEqual(["typed:grey", "typed:couch", "synonym:sofa", "synonym:settee"]);
  });

  it("searches a one-way mapping instead of the word", () => {
    const plan = understand("tv", { vocabulary: null, synonyms: rules });
    expect(plan.forms.map((form) => `${form.kind}:${form.words.join(" ")}`)).toEqual(["synonym:television"]);
  });
});
