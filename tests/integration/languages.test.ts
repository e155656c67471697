/**
 * Languages (issue 48, part 5), on the English sample catalog with a few pages in German and French, through the real
 * API on both database paths: each product indexed in its own language's text-search configuration with accents
 * folded, a query read in its language, and one in another language than the catalog's read into English through
 * the lexicons; and Russian pages on a small English catalog of their own.
 */
import { readFileSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { products } from "../../server/db/schema.js";
import { getMeta } from "../../server/catalog/repository.js";
import { catalogLanguages } from "../../server/search/languages/catalog.js";
import { configOf } from "../../server/search/languages/sql.js";
import { SAMPLE_CATALOG_PATH } from "../../server/sample/index.js";
import type { SearchResponse } from "../../shared/schemas/index.js";
import type { TestRecord } from "../helpers/catalog.js";
import { appOnPath, DATABASE_PATHS } from "../helpers/paths.js";

const SAMPLE: TestRecord[] = readFileSync(SAMPLE_CATALOG_PATH, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as TestRecord);

const FOREIGN: TestRecord[] = [
  {
    // Declared by the locale in its URL.
    url: "https://lederwerk.example/de/p/umhaengetasche-cognac",
    name: "Umhängetasche Cognac",
    desc: "Eine geräumige Tasche aus weichem Leder mit zwei Fächern und einem verstellbaren Schulterriemen.",
    category: "Accessoires > Umhängetaschen",
  },
  {
    url: "https://lederwerk.example/de/p/wasserkocher",
    name: "Wasserkocher aus Edelstahl, 1,7 L",
    desc: "Ein Wasserkocher mit Temperaturwahl, der das Wasser in drei Minuten zum Kochen bringt.",
  },
  {
    // Read from its text.
    url: "https://atelier-argent.example/p/bracelet-jonc",
    name: "Bracelet jonc en argent",
    desc: "Un bijou fin en argent massif, fabriqué à la main dans notre atelier de Lyon, livré dans un écrin.",
  },
  {
    url: "https://atelier-argent.example/p/creme-visage",
    name: "Crème hydratante pour le visage",
    desc: "Une crème légère pour les peaux sensibles, sans parfum, qui pénètre vite et ne laisse pas de film gras.",
  },
  { url: "https://pantry.example/p/torch", name: "Crème Brûlée Torch", desc: "A butane kitchen torch for caramelising the sugar on desserts." },
  // Too short to tell: indexed in the catalog's language.
  { url: "https://pantry.example/p/ramekins", name: "Ramekins, Set of 6" },
];

describe.each(DATABASE_PATHS)("on %s", (path) => {
  const { app, search } = appOnPath(path, { records: [...SAMPLE, ...FOREIGN] });
  const urls = (body: SearchResponse) => body.products.map((hit) => hit.pdp.url);
  const categoryOf = (hit: SearchResponse["products"][number]) => ("category" in hit.pdp ? hit.pdp.category : undefined);
  const languagesOf = async (url: string) => {
    const [row] = await app()
      .database.db.select({ lang: products.lang, searchLang: products.searchLang })
      .from(products)
      .where(eq(products.url, url));
    return row;
  };

  it("stores each product's language, and indexes one that does not say in the catalog's", async () => {
    expect(await languagesOf(FOREIGN[0]!.url)).toEqual({ lang: "de", searchLang: "de" });
    expect(await languagesOf(FOREIGN[2]!.url)).toEqual({ lang: "fr", searchLang: "fr" });
    expect(await languagesOf(SAMPLE[0]!.url)).toEqual({ lang: "en", searchLang: "en" });
    expect(await languagesOf(FOREIGN[5]!.url)).toEqual({ lang: null, searchLang: "en" });
    const [row] = await app()
      .database.db.select({ search: sql<string>`${products.search}::text` })
      .from(products)
      .where(eq(products.url, FOREIGN[0]!.url));
    // German's stemmer and stop words: "Tasche" is 'tasch', "aus" is no word.
    expect(row!.search).toContain("'tasch'");
    expect(row!.search).not.toContain("'aus'");
  });

  it("keeps how many products each language indexes, and reads which a query is searched in from detection.json as it is now", async () => {
    const { db } = app().database;
    const counts = JSON.parse((await getMeta(db, "catalog_indexed_languages")) ?? "null") as Record<string, number>;
    expect(counts.en).toBeGreaterThan(200);
    expect(counts.de).toBeGreaterThanOrEqual(2);
    // The catalog's own language first, then the others by how many products they index.
    expect((await catalogLanguages(db)).slice(0, 1)).toEqual(["en"]);
    expect(await catalogLanguages(db)).toEqual(expect.arrayContaining(["de", "fr"]));
  });

  it("names each language's configuration as the database's search_config does", async () => {
    for (const code of ["en", "de", "fr", "es", "it", "nl", "pt", "pl", "ru", "nb", "nn", "xx", "simple"]) {
      const [row] = await app()
        .database.db.select({ same: sql<boolean>`${configOf(code)}::text = search_config(${code})::text` })
        .from(products)
        .limit(1);
      expect(row?.same, code).toBe(true);
    }
  });

  it("finds a German page by a German query, stemmed by German", async () => {
    const answer = await search("q=Taschen+aus+Leder");
    // Among the first: the English bags hold "bag" in their names, the German page both words in its description only
    // ("Umhängetasche" is one word; no decompounding).
    expect(urls(answer).slice(0, 5)).toContain(FOREIGN[0]!.url);
    expect(answer.interpretation?.language).toEqual({ query: "de", catalog: "en" });
    expect(answer.interpretation?.translations).toEqual([
      { from: "taschen", to: ["bag"] },
      { from: "leder", to: ["leather"] },
    ]);
    expect(urls(await search("q=Wasserkocher+Edelstahl"))[0]).toBe(FOREIGN[1]!.url);
  });

  it("finds a French page by a French query, stemmed by French", async () => {
    expect(urls(await search("q=bijoux+argent"))[0]).toBe(FOREIGN[2]!.url);
    expect(urls(await search("q=cr%C3%A8mes+hydratantes"))[0]).toBe(FOREIGN[3]!.url);
  });

  it("finds a page in another language than the query's by the query's words read through the lexicons into it", async () => {
    // English words, French and German pages: "jewellery" is "bijou", "silver" "argent", "kettle" "Wasserkocher".
    expect(urls(await search("q=silver+jewellery")).slice(0, 3)).toContain(FOREIGN[2]!.url);
    expect(urls(await search("q=kettle"))).toContain(FOREIGN[1]!.url);
  });

  it("folds accents: creme finds crème, as typed, with typo correction off", async () => {
    expect(urls(await search("q=creme+brulee&typos=false"))[0]).toBe(FOREIGN[4]!.url);
    expect(urls(await search("q=creme+hydratante&typos=false"))[0]).toBe(FOREIGN[3]!.url);
  });

  it.each(["chaussures de course pour femme", "Laufschuhe Damen"])("reads %j on the English catalog as women's running shoes", async (q) => {
    const answer = await search(`q=${encodeURIComponent(q)}`);
    const top = answer.products.slice(0, 3);
    expect(top.length).toBe(3);
    for (const hit of top) expect(categoryOf(hit)).toMatch(/^Shoes > Running Shoes/);
    expect(top[0]!.pdp.name).toMatch(/Women's/);
    expect(answer.interpretation?.corrections).toBeUndefined();
    expect(answer.interpretation?.not_read).toBeUndefined();
  });

  it("reads whom and what colour from words the lexicons read, as from the catalog's own: donsjas voor heren is men's", async () => {
    // "heren" is no word the English rules know; read as "men", it filters as "men's" does.
    const answer = await search(`q=${encodeURIComponent("donsjas voor heren")}`);
    expect(answer.interpretation?.applied).toEqual([{ filter: "audience", value: "men", text: "heren" }]);
    expect(answer.products[0]!.pdp.name).toMatch(/Down Jacket.*Men's/);
    expect(answer.products.map((hit) => hit.pdp.name).join(" ")).not.toMatch(/Women's/);
  });

  it("reads a translation through the catalog's synonyms, and searches no word read as whom it is for", async () => {
    // "knuffelbeer" is a teddy bear, which the catalog sells as a soft toy that never says "teddy"; "baby" filters, and
    // the bear need not say "baby" (a rattle that says it is no bear).
    const answer = await search(`q=${encodeURIComponent("knuffelbeer voor de baby")}`);
    expect(answer.interpretation?.applied).toEqual([{ filter: "audience", value: "baby", text: "baby" }]);
    expect(answer.interpretation?.synonyms).toContainEqual({ from: "teddy bear", to: expect.arrayContaining(["soft toy"]) });
    expect(answer.products[0]!.pdp.name).toMatch(/Bear Plush/);
  });
  it("says what it did not read of a query in a language it does not know, and guesses none of it", async () => {
    const answer = await search(`q=${encodeURIComponent("běžecké boty pánské running")}`);
    expect(answer.interpretation?.language).toEqual({ query: null, catalog: "en" });
    expect(answer.interpretation?.not_read).toEqual(expect.arrayContaining(["běžecké", "boty", "pánské"]));
    expect(answer.interpretation?.corrections).toBeUndefined();
    // Nothing read and nothing found: exactly empty, no word guessed ("plugh" is no typo of "plush").
    expect((await app().app.inject({ url: "/api/v1/products/search?q=xyzzy+plugh+qwertz", headers: { authorization: app().key } })).json()).toEqual({
      products: [],
    });
  });

  it("reads the kind asked in a query in another language by that language's order, not English's", async () => {
    // Dutch names the kind before "voor": a sleeping bag for the tent is a sleeping bag, not a tent.
    const answer = await search(`q=${encodeURIComponent("slaapzak voor de tent")}`);
    expect(answer.interpretation?.language).toEqual({ query: "nl", catalog: "en" });
    expect(answer.products[0]!.pdp.name).toMatch(/Sleeping Bag/);
  });

  it("leaves an English query as it was", async () => {
    const answer = await search("q=running+shoes+for+women");
    expect(answer.interpretation?.language).toBeUndefined();
    expect(categoryOf(answer.products[0]!)).toMatch(/^Shoes > Running Shoes/);
  });
});

// Russian pages, declared by the locale in their URLs, each kind's word only in other cases than the lexicon's
// ("зонтов", "зонта"; "гитары", "гитару"), on a small English catalog of their own: added to the sample catalog above,
// they made its query in no language ("xyzzy plugh qwertz") answer a weak match by the encoder alone.
const RUSSIAN: TestRecord[] = [
  {
    url: "https://dom-i-sad.example/ru/p/nabor-zontov",
    name: "Набор из трёх складных зонтов",
    desc: "Три зонта разных цветов в подарочной коробке: каждый складывается в свой чехол.",
  },
  {
    url: "https://dom-i-sad.example/ru/p/chehol-dlya-gitary",
    name: "Чехол для акустической гитары",
    desc: "Мягкий чехол с карманом для нот: гитару в нём носят на спине.",
  },
];

// On PGlite only: what is Russian's here is read before the database, and the stemming is the same configuration on both paths.
describe("Russian pages", () => {
  const english = SAMPLE.filter((record, index) => index < 10 || /kettle/i.test(record.name));
  const { search } = appOnPath("PGlite", { records: [...english, ...RUSSIAN] });
  const urls = (body: SearchResponse) => body.products.map((hit) => hit.pdp.url);

  it.each([
    ["umbrella", RUSSIAN[0]!],
    ["guitar case", RUSSIAN[1]!],
  ])("finds by the English %j a Russian page whose word is in another case, by its words", async (q, page) => {
    // "umbrella" is read as "зонт", which Russian's stemmer meets in "зонтов" and "зонта"; "guitar case" as "гитара"
    // and "чехол", met in "гитары".
    const answer = await search(`q=${encodeURIComponent(q)}&explain=true`);
    expect(urls(answer)[0]).toBe(page.url);
    expect(answer.products[0]!.explain?.scores.lexical).toBeGreaterThan(0);
  });

  it("reads a Russian query into English, and finds a Russian page by its words as typed", async () => {
    const answer = await search(`q=${encodeURIComponent("чайники для плиты")}`);
    expect(answer.interpretation?.language).toEqual({ query: "ru", catalog: "en" });
    expect(answer.interpretation?.translations).toEqual([
      { from: "чайники", to: ["kettle"] },
      { from: "плиты", to: ["hob"] },
    ]);
    expect(answer.products[0]!.pdp.name).toMatch(/Kettle/);
    expect(urls(await search(`q=${encodeURIComponent("складные зонты")}`))[0]).toBe(RUSSIAN[0]!.url);
  });
});

// Pages in languages the sentence encoder does not read: it puts a query of words in no language near them.
const UNREAD_BY_THE_ENCODER: TestRecord[] = [
  { url: "https://mode.example/de/p/umstandskleid", name: "Umstandskleid in Wickeloptik", desc: "Bequemes Umstandskleid aus weichem Jersey." },
  { url: "https://lazienki.example/pl/p/zestaw-podtynkowy", name: "Zestaw podtynkowy WC SEREL GROHE", desc: "Stelaż podtynkowy z miską i deską." },
  { url: "https://lazienki.example/pl/p/bateria-umywalkowa", name: "Bateria umywalkowa stojąca chrom", desc: "Jednouchwytowa bateria do umywalki." },
];

describe("a query nothing reads, beside pages the encoder cannot read", () => {
  const english = SAMPLE.filter((_, index) => index < 10);
  const { search } = appOnPath("PGlite", { records: [...english, ...UNREAD_BY_THE_ENCODER] });

  it("answers exactly empty: the encoder's nearness to words in no language known is no evidence", async () => {
    expect(await search("q=xyzzy+plugh+qwertz")).toEqual({ products: [] });
  });
});
