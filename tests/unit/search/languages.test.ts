import { buildVocabulary } from "../../../server/search/vocabulary.js";
import { describe, expect, it } from "vitest";
import { languageData, parseDetection, parseLexicon, parseStopWords } from "../../../server/search/languages/data.js";
import { RulesError } from "../../../server/search/rules/files.js";
import { declaredLanguage, productLanguage, queryLanguage, textLanguage } from "../../../server/search/languages/detect.js";
import { wordKey } from "../../../server/search/languages/lexicon.js";
import { NO_SYNONYMS, parseSynonyms } from "../../../server/search/synonyms.js";
import { understand } from "../../../server/search/understand.js";

const page = (fields: Partial<Parameters<typeof productLanguage>[0]>) => ({ url: "https://shop.example/p/1", name: "", desc: "", ...fields });

describe("a page's declared language", () => {
  it.each([
    ["JSON-LD inLanguage", page({ raw_data: { strippedHtml: null, jsons: { ld_json: { "@type": "Product", inLanguage: "de-DE" } } } }), "de"],
    [
      "a JSON-LD Language",
      page({ raw_data: { jsons: { ld_json: { inLanguage: { "@type": "Language", name: "French", alternateName: "fr" } } } } }),
      "fr",
    ],
    ["the body's lang", page({ raw_data: { strippedHtml: '<title>Hose</title><body lang="nl-BE"><h1>Broek</h1></body>' } }), "nl"],
    ["a locale opening the URL's path", page({ url: "https://shop.example/es-es/p/zapatillas" }), "es"],
    ["a locale after a country", page({ url: "https://shop.example/ch/it/p/scarpe" }), "it"],
  ])("is read from %s", (_, record, language) => {
    expect(declaredLanguage(record)).toBe(language);
  });

  it.each([
    ["a link to another language", page({ raw_data: { strippedHtml: '<main><a lang="fr" href="/fr/">Français</a></main>' } })],
    ["a country in the path", page({ url: "https://shop.example/us/p/1" })],
    ["a two-letter word in the path", page({ url: "https://shop.example/go/p/1" })],
  ])("is not read from %s", (_, record) => {
    expect(declaredLanguage(record)).toBeNull();
  });

  it("wins over the text", () => {
    expect(productLanguage(page({ url: "https://shop.example/de/p/1", desc: "A light tent for two, with the poles in the bag." }))).toBe("de");
  });
});

describe("a page's language from its text", () => {
  it.each([
    ["Leichte Laufschuhe für Damen mit einer gedämpften Sohle, die auf der Straße und im Gelände hält.", "de"],
    ["Une crème hydratante pour le visage, sans parfum, qui convient aux peaux sensibles.", "fr"],
    ["Zapatillas ligeras para correr por la montaña, con una suela que agarra en el barro.", "es"],
    ["Scarpe leggere per la corsa su strada, con una suola che ammortizza ogni passo.", "it"],
    ["Lichte hardloopschoenen voor dames met een zool die goed dempt op de weg.", "nl"],
    ["Lekka kurtka przeciwdeszczowa dla dzieci, która nie przemaka i zmieści się w każdym plecaku.", "pl"],
    ["Лёгкая непромокаемая куртка для детей, которая не пропускает воду и поместится в любой рюкзак.", "ru"],
    // No stop word: the Russian lexicon's words alone.
    ["Пуховик женский чёрный", "ru"],
    ["A freestanding two-person tent built around a single-hub pole set that pitches in under four minutes.", "en"],
  ])("reads %s", (text, language) => {
    expect(textLanguage(text)).toBe(language);
  });

  it("leaves a name that says too little unknown", () => {
    expect(textLanguage("ViewSonic Pro8200 DLP")).toBeNull();
  });
});

describe("a query's language", () => {
  const none = () => false;
  it.each([
    [["laufschuhe", "damen"], "de"],
    [["chaussures", "de", "course", "pour", "femme"], "fr"],
    [["zapatillas", "de", "correr", "mujer"], "es"],
    [["running", "shoes", "for", "women"], "en"],
    // One word the catalog's language also explains is the catalog's: "table" is English as well as French.
    [["table"], "en"],
    [["robe"], "en"],
  ])("reads %j", (words, language) => {
    expect(queryLanguage(words, "en")).toBe(language);
  });

  it("counts a word the catalog holds for the catalog's language", () => {
    expect(queryLanguage(["cocotte"], "en", { held: (word) => word === "cocotte", near: none })).toBe("en");
  });

  it("reads words into another language only where the catalog holds what they are read as, or holds them", () => {
    const pants = { held: (word: string) => ["pants", "yoga"].includes(word), near: (word: string) => word === "pats" };
    expect(queryLanguage(["yoga", "pats"], "en", pants)).toBe("en"); // no pasta sold: a typo of pants
    const shoes = { held: (word: string) => ["running", "shoes", "women"].includes(word), near: none };
    expect(queryLanguage(["chaussures", "de", "course", "pour", "femme"], "en", shoes)).toBe("fr");
    expect(queryLanguage(["expresso"], "en", { held: none, near: (word) => word === "expresso" })).toBe("en");
  });
});

describe("reading a query in another language", () => {
  const plan = (q: string) => understand(q, { vocabulary: null, synonyms: NO_SYNONYMS, catalogLanguage: "en" });

  it("searches what the lexicon names in the catalog's language, and the words as typed, never corrected", () => {
    const read = plan("chaussures de course pour femme");
    expect(read.language).toEqual({ query: "fr", catalog: "en" });
    expect(read.languages).toEqual(["fr", "en"]);
    expect(read.translations).toEqual([
      { from: "chaussures de course", to: ["running shoes"] },
      { from: "femme", to: ["women"] },
    ]);
    expect(read.corrections).toEqual([]);
    expect(read.forms.filter((form) => form.kind === "typed").map((form) => form.words[0])).toEqual(["chaussures", "course", "femme"]);
    expect(read.embedText).toBe("running shoes women");
  });

  it("compares words without their accents and endings", () => {
    expect(wordKey("de", "Schwarze".toLowerCase())).toBe(wordKey("de", "schwarz"));
    expect(wordKey("fr", "étanches")).toBe(wordKey("fr", "etanche"));
    expect(plan("scarpe da corsa donna nere").translations.at(-1)).toEqual({ from: "nere", to: ["black"] });
  });

  it("reads Portuguese, European or Brazilian, and Polish through their own endings", () => {
    const portuguese = plan("colchões de casal");
    expect(portuguese.language.query).toBe("pt");
    expect(plan("tênis de corrida feminino").translations).toEqual([
      { from: "tênis de corrida", to: ["running shoes"] },
      { from: "feminino", to: ["women"] },
    ]);
    // A Polish adjective and noun in another case than the lexicon's: "czarnej kurtki puchowej" is "czarna kurtka puchowa".
    const polish = plan("czarnej kurtki puchowej damskiej");
    expect(polish.language).toEqual({ query: "pl", catalog: "en" });
    expect(polish.translations).toEqual([
      { from: "czarnej", to: ["black"] },
      { from: "kurtki puchowej", to: ["down jacket"] },
      { from: "damskiej", to: ["women"] },
    ]);
  });

  it("reads Russian through its case endings, in Cyrillic as typed", () => {
    // Genitive and instrumental, feminine: "чёрной пуховой куртки" is "чёрная пуховая куртка".
    const russian = plan("чёрной пуховой куртки для женщин");
    expect(russian.language).toEqual({ query: "ru", catalog: "en" });
    expect(russian.translations).toEqual([
      { from: "чёрной", to: ["black"] },
      { from: "пуховой куртки", to: ["down jacket"] },
      { from: "для женщин", to: ["women"] },
    ]);
    expect(russian.embedText).toBe("black down jacket women");
    for (const form of ["куртки", "куртку", "курткой", "куртке", "куртках"]) expect(wordKey("ru", form)).toBe(wordKey("ru", "куртка"));
    expect(wordKey("ru", "кроватью")).toBe(wordKey("ru", "кровать"));
    // A word-building ending stays: "сумочка" is the handbag, "сумка" the bag; "белье" is no form of "белый".
    expect(plan("сумочки").translations).toEqual([{ from: "сумочки", to: ["handbag"] }]);
    expect(plan("белое нижнее белье").translations).toEqual([
      { from: "белое", to: ["white"] },
      { from: "нижнее белье", to: ["underwear"] },
    ]);
  });

  it("reads a compound no entry names by the longest entry it ends with, in a language that joins words", () => {
    const read = plan("wanderrucksack");
    expect(read.language).toEqual({ query: "de", catalog: "en" });
    expect(read.translations).toEqual([{ from: "wanderrucksack", to: ["backpack"] }]);
    // Its own language's head is searched too, for pages in German.
    expect(read.forms).toContainEqual({ start: 0, end: 1, words: ["rucksack"], kind: "synonym" });
    // French joins no words: an unknown word is not read by its ending.
    expect(plan("chaussures de supercourse").translations.map((t) => t.from)).not.toContain("supercourse");
  });

  it("reads a foreign word in a query of the catalog's language where a lexicon reads it into words the catalog holds", () => {
    const holding = (words: string[]) => buildVocabulary(words.map((word) => [word, 3]));
    const mixed = (vocabulary: ReturnType<typeof holding>) =>
      understand("Wanderrucksack 60 Liter", { vocabulary, synonyms: NO_SYNONYMS, catalogLanguage: "en" });
    const read = mixed(holding(["backpack", "litre", "tent"]));
    expect(read.language).toEqual({ query: "en", catalog: "en" });
    expect(read.translations).toEqual([{ from: "wanderrucksack", to: ["backpack"] }]);
    expect(read.forms).toContainEqual({ start: 0, end: 1, words: ["backpack"], kind: "translation" });
    expect(read.embedText).toMatch(/^backpack 60/u);
    expect(read.unread).toEqual([]);
    // Where the catalog holds no backpack, the word is not read so.
    expect(mixed(holding(["litre", "tent"])).forms.filter((form) => form.kind === "translation")).toEqual([]);
  });

  it("reads a correction and a synonym into the other languages the catalog holds, as the typed words are", () => {
    const vocabulary = buildVocabulary([
      ["washer", 3],
      ["hochdruckreiniger", 2],
      ["machine", 4],
    ]);
    const synonyms = parseSynonyms("jet washer => pressure washer", "test");
    const read = (q: string) => understand(q, { vocabulary, synonyms, catalogLanguage: "en", catalogLanguages: ["en", "de"] });
    const german = (q: string) =>
      read(q)
        .forms.filter((form) => form.kind === "translation")
        .map((form) => form.words.join(" "));
    // A typo of a word only the lexicons know is that word; the phrase it is part of is read into German.
    expect(read("presure washer").corrections).toEqual([{ from: "presure", to: "pressure" }]);
    expect(german("presure washer")).toContain("hochdruckreiniger");
    // A synonym is read whole; a reading of part of it ("washer" alone) would stand for words the query did not say.
    expect(german("jet washer")).toEqual(["hochdruckreiniger"]);
    // With no German in the catalog, nothing is read into it.
    expect(understand("presure washer", { vocabulary, synonyms, catalogLanguage: "en" }).forms.some((form) => form.kind === "translation")).toBe(
      false,
    );
  });

  it("reads a phrase's last word alone into the catalog's other languages too, for pages that call it plainly", () => {
    const read = understand("bar stools", { vocabulary: null, synonyms: NO_SYNONYMS, catalogLanguage: "en", catalogLanguages: ["en", "pt"] });
    const portuguese = read.forms.filter((form) => form.kind === "translation");
    expect(portuguese).toContainEqual({ start: 0, end: 2, words: ["banco", "de", "bar"], kind: "translation" });
    expect(portuguese).toContainEqual({ start: 1, end: 2, words: ["banqueta"], kind: "translation" });
  });

  it("reads a query too few of whose words a language knows in the one they point to, rather than in none", () => {
    // Two of four words Spanish: under the share a language needs, but no language explains more.
    const read = plan("esterilla autohinchable para acampar");
    expect(read.language).toEqual({ query: "es", catalog: "en" });
    expect(read.translations).toEqual([{ from: "esterilla", to: ["sleeping pad"] }]);
    expect(read.unread).toEqual(["autohinchable", "acampar"]);
  });

  it("says which words it did not read", () => {
    expect(plan("Laufschuhe Damen zwoelftausend").unread).toEqual(["zwoelftausend"]);
    const unknown = plan("běžecké boty pánské");
    expect(unknown.language).toEqual({ query: null, catalog: "en" });
    expect(unknown.unread).toEqual(["běžecké", "boty", "pánské"]);
  });
});

describe("the languages' data files", () => {
  it("are shipped valid, with lexicons of a few hundred entries in at least French, German, Spanish, Italian, Dutch, Portuguese, Polish and Russian", () => {
    const { lexicons, stopWords } = languageData();
    for (const code of ["fr", "de", "es", "it", "nl", "pt", "pl", "ru"]) expect(lexicons.get(code)?.entries.length).toBeGreaterThan(300);
    expect(stopWords.get("en")?.has("the")).toBe(true);
    expect(stopWords.get("pl")?.has("się")).toBe(true);
  });

  it.each([
    ["running shoes laufschuhe", 'lexicon/de.txt line 2: expected "english words = word, word" with one "=" (in "running shoes laufschuhe")'],
    [
      "Running Shoes = laufschuhe",
      'lexicon/de.txt line 2: english: must be lower-case words (letters only, joined by single spaces, hyphens or apostrophes) (in "Running Shoes = laufschuhe")',
    ],
    ["shoes = schuhe, , schuh", 'lexicon/de.txt line 2: terms[1]: is empty "" (in "shoes = schuhe, , schuh")'],
    [
      "shoes = schuhe, Schuh2",
      'lexicon/de.txt line 2: terms[1]: must be lower-case words (letters only, joined by single spaces, hyphens or apostrophes) "Schuh2" (in "shoes = schuhe, Schuh2")',
    ],
    ["shoes =", 'lexicon/de.txt line 2: terms[0]: is empty "" (in "shoes =")'],
    ["endings: e, EN", 'lexicon/de.txt line 2: endings: [1]: must be lower-case letters (in "endings: e, EN")'],
    ["phrases: head last", 'lexicon/de.txt line 2: phrases: the one value is "head first" (in "phrases: head last")'],
  ])("refuse a broken lexicon line %j with its file, line and what is wrong", (line, message) => {
    expect(() => parseLexicon(`# a comment\n${line}\n`, "lexicon/de.txt")).toThrow(new RulesError(message));
  });

  it("reads which languages name a phrase's kind first", () => {
    const { lexicons } = languageData();
    expect(["es", "fr", "it", "pt"].every((code) => lexicons.get(code)?.headFirst)).toBe(true);
    expect(["de", "nl", "en"].some((code) => lexicons.get(code)?.headFirst)).toBe(false);
  });

  it("refuse a broken stop word and a broken detection file", () => {
    expect(() => parseStopWords("der\n\ndie das\n", "stop-words/de.txt")).toThrow(
      new RulesError('stop-words/de.txt line 3: "die das" must be one lower-case word'),
    );
    expect(() =>
      parseDetection('{"text":{"least":2,"margin":0.5},"query":{"least":2,"coverage":0.66},"catalogFallback":"en"}', "detection.json"),
    ).toThrow(/^detection\.json line 1: text\.margin: /);
    expect(() => parseDetection("{", "detection.json")).toThrow(/^detection\.json line 1: not JSON/);
  });
});
