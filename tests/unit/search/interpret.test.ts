/** Constraints read from a shopper's query (issue 13): what is read, what is left to search, and what is refused. */
import { describe, expect, it } from "vitest";
import { brandIndex, interpret, spelledOut } from "../../../server/search/interpret.js";
import { SearchParamsSchema } from "../../../shared/schemas/index.js";

const brands = brandIndex(["NorthPeak", "Pebble & Pine", "Halden Audio", "A", "HP", "Kärcher"]);
const read = (q: string, extra: Record<string, unknown> = {}, currencies?: readonly string[]) => {
  const params = SearchParamsSchema.parse({ q, ...extra });
  return interpret({ ...params, q }, brands, currencies);
};

describe("constraints in the query", () => {
  it.each([
    ["tent under $200", "tent", { price_max: "200", currency: "USD" }],
    ["tent below 50 €", "tent", { price_max: "50", currency: "EUR" }],
    ["boots for less than 1,200 dollars", "boots", { price_max: "1200", currency: "USD" }],
    ["mug between 20 and 40 dollars", "mug", { price_min: "20", price_max: "40", currency: "USD" }],
    ["mug between $40 and $20", "mug", { price_min: "20", price_max: "40", currency: "USD" }],
    ["kettle £30-£60", "kettle", { price_min: "30", price_max: "60", currency: "GBP" }],
    ["serum ¥3000〜¥6000", "serum", { price_min: "3000", price_max: "6000", currency: "JPY" }],
    ["sofa over 499,99 €", "sofa", { price_min: "499.99", currency: "EUR" }],
    ["headphones at most 150 GBP", "headphones", { price_max: "150", currency: "GBP" }],
    ["rain jacket in stock", "rain jacket", { availability: ["in_stock"] }],
    ["in-stock rain jacket under $300", "rain jacket", { availability: ["in_stock"], price_max: "300", currency: "USD" }],
    ["northpeak tent", "tent", { brand: ["NorthPeak"] }],
    ["toys by pebble & pine", "toys", { brand: ["Pebble & Pine"] }],
    ["Pebble and Pine toys", "toys", { brand: ["Pebble & Pine"] }],
    ["karcher pressure washer", "pressure washer", { brand: ["Kärcher"] }], // typed without its accent
    ["kärcher pressure washer", "pressure washer", { brand: ["Kärcher"] }],
    // Written other ways: in thousands, after the price, as a budget, with the currency's country.
    ["tent under $1k", "tent", { price_max: "1000", currency: "USD" }],
    ["cream under 5k yen", "cream", { price_max: "5000", currency: "JPY" }],
    ["running shorts 50 USD or less", "running shorts", { price_max: "50", currency: "USD" }],
    ["coffee grinder 1500 SEK max", "coffee grinder", { price_max: "1500", currency: "SEK" }],
    ["coffee grinder budget 1500 SEK", "coffee grinder", { price_max: "1500", currency: "SEK" }],
    ["shoes $100 and up", "shoes", { price_min: "100", currency: "USD" }],
    ["cushion under 60 canadian dollars", "cushion", { price_max: "60", currency: "CAD" }],
    // Thousands set apart by spaces, as in Swedish and French: "under 2" was read without a currency, and "500 CAD" searched.
    ["sofa under 2 500 CAD", "sofa", { price_max: "2500", currency: "CAD" }],
    ["sofa under 1 299,50 €", "sofa", { price_max: "1299.50", currency: "EUR" }],
    // Negated, the other bound or state: "not over £300" is at most £300.
    ["speakers not over £300", "speakers", { price_max: "300", currency: "GBP" }],
    ["speakers not under £300", "speakers", { price_min: "300", currency: "GBP" }],
    ["coffee not in stock", "coffee", { availability: ["out_of_stock"] }],
    ["earbuds out of stock", "earbuds", { availability: ["out_of_stock"] }],
    ["kettle preorder", "kettle", { availability: ["preorder"] }],
    // Out of stock denied is in stock: "not sold out" had been read as sold out.
    ["tent not sold out", "tent", { availability: ["in_stock"] }],
    ["headphones that are not out of stock", "headphones", { availability: ["in_stock"] }],
    ["kettle excluding out of stock", "kettle", { availability: ["in_stock"] }],
    ["sofa not on backorder", "sofa", { availability: ["in_stock"] }],
    // A pre-order denied is wanted now: "not a preorder" had been read as a pre-order.
    ["oak table available now, not a preorder", "oak table", { availability: ["in_stock"] }],
    ["kettle that ships now", "kettle", { availability: ["in_stock"] }],
    // "available to ship now" whole: "available to" left behind read "to" as what the product is for.
    ["kettle available to ship now", "kettle", { availability: ["in_stock"] }],
    ["kettle available to order", "kettle", { availability: ["in_stock"] }],
    ["tent in stok", "tent", { availability: ["in_stock"] }], // typed fast: typo correction had made "stok" a stop
    ["headphones availble now", "headphones", { availability: ["in_stock"] }],
    ["kettle not in stok", "kettle", { availability: ["out_of_stock"] }],
    ["headphones less then £300", "headphones", { price_max: "300", currency: "GBP" }], // "then" for "than", as often typed
    ["sofa more then €900", "sofa", { price_min: "900", currency: "EUR" }],
    ["headphones that are not over £200 and available now?", "headphones", { price_max: "200", currency: "GBP", availability: ["in_stock"] }],
    // Currencies written by their marks, names and codes beyond the commonest: "200 lei" was searched as "lei".
    ["whiskey under 200 lei", "whiskey", { price_max: "200", currency: "RON" }],
    ["sneakers under R$300", "sneakers", { price_max: "300", currency: "BRL" }],
    ["kettle under 150 zł", "kettle", { price_max: "150", currency: "PLN" }],
    ["phone under ₩500000", "phone", { price_max: "500000", currency: "KRW" }],
    ["saree under Rs 2000", "saree", { price_max: "2000", currency: "INR" }],
    ["watch under 900 shekels", "watch", { price_max: "900", currency: "ILS" }],
    ["tea under NT$500", "tea", { price_max: "500", currency: "TWD" }],
    ["boots under 80 quid", "boots", { price_max: "80", currency: "GBP" }],
    ["perfume under 300 riyals", "perfume", { price_max: "300", currency: "SAR" }],
    ["lamp under 500 TWD", "lamp", { price_max: "500", currency: "TWD" }],
    ["lamp under 40000 CLP", "lamp", { price_max: "40000", currency: "CLP" }],
    // "around" a price is a budget: at most a fifth over it, and no least (a cheaper one fits).
    ["watch around £200", "watch", { price_max: "240", currency: "GBP" }],
    ["speaker about $45", "speaker", { price_max: "54", currency: "USD" }],
    ["rug approximately 99.99 euros", "rug", { price_max: "119.99", currency: "EUR" }],
    // "not from" a brand leaves it out, as "-northpeak" does; it is not read as the brand.
    ["jacket not from northpeak", "jacket", { exclude: ["northpeak"] }],
  ])("%s", (q, query, adds) => {
    const reading = read(q);
    expect(reading?.query).toBe(query);
    expect(reading?.adds).toEqual(adds);
  });

  it("reads nothing in a query without constraints, or in numbers that are not prices", () => {
    expect(read("tent for 2 people")).toBeNull();
    expect(read("2-3 person tent")).toBeNull();
    expect(read("16 gb memory card")).toBeNull();
    // "10 cup" is a size, not Cuban pesos; "about 30" without a currency is a count.
    expect(read("10 cup coffee maker under 40")?.adds ?? {}).toEqual({});
    expect(read("tent about 30 square feet")).toBeNull();
    expect(read("a guide to hp printers")).toBeNull(); // two-letter brand names are not read from queries
  });

  it("does not apply a bound without a currency, unless currency is given", () => {
    const bare = read("tent under 200");
    expect(bare?.adds).toEqual({});
    expect(bare?.notApplied).toEqual([expect.objectContaining({ filter: "price_max", reason: expect.stringContaining("no currency") })]);
    expect(bare?.query).toBe("tent");
    expect(read("tent under 200", { currency: "CAD" })?.adds).toEqual({ price_max: "200", currency: "CAD" });
  });

  it("reads a bound without a currency in the catalog's currency when it prices everything in one", () => {
    const params = SearchParamsSchema.parse({ q: "toys under 20" });
    const one = interpret({ ...params, q: "toys under 20" }, brands, ["USD"]);
    expect(one?.adds).toEqual({ price_max: "20", currency: "USD" });
    expect(one?.applied).toEqual([{ filter: "price_max", value: "20 USD", text: "under 20" }]);
    // Two currencies: the number alone says nothing of which.
    expect(interpret({ ...params, q: "toys under 20" }, brands, ["USD", "EUR"])?.adds).toEqual({});
    // A currency written or given still wins.
    expect(interpret({ ...params, q: "toys under £20" }, brands, ["USD"])?.adds).toEqual({ price_max: "20", currency: "GBP" });
  });

  it("applies no price bound when no product in the catalog states a price, and says why", () => {
    const params = SearchParamsSchema.parse({ q: "headphones under $50" });
    const none = interpret({ ...params, q: "headphones under $50" }, brands, []);
    expect(none?.adds).toEqual({});
    expect(none?.query).toBe("headphones");
    expect(none?.notApplied).toEqual([
      { filter: "price_max", value: "50 USD", text: "under $50", reason: "no product in the catalog states a price" },
    ]);
    // Words that are no price are still read.
    expect(interpret({ ...params, q: "headphones in stock" }, brands, [])?.adds).toEqual({ availability: ["in_stock"] });
  });

  it("reads $ and dollars as US dollars, unless the catalog prices everything in other dollars", () => {
    const params = SearchParamsSchema.parse({ q: "lamp under $200" });
    const at = (q: string, currencies: string[], extra = {}) => interpret({ ...params, ...extra, q }, brands, currencies)?.adds;
    expect(at("lamp under $200", ["CAD"])).toEqual({ price_max: "200", currency: "CAD" });
    expect(at("lamp under 200 dollars", ["CAD"])).toEqual({ price_max: "200", currency: "CAD" });
    expect(at("lamp under US$200", ["CAD"])).toEqual({ price_max: "200", currency: "USD" }); // said which
    expect(at("lamp under $200", ["CAD", "USD"])).toEqual({ price_max: "200", currency: "USD" });
    expect(at("lamp under $200", ["EUR"])).toEqual({ price_max: "200", currency: "USD" });
    expect(at("lamp under $200 CAD", ["CAD", "USD"])).toEqual({ price_max: "200", currency: "CAD" });
    expect(at("lamp under $200", ["CAD", "USD"], { currency: "CAD" })).toEqual({ price_max: "200", currency: "CAD" });
    expect(at("lamp under $200 EUR", ["CAD", "USD"])).toBeUndefined(); // two currencies for one price: no price read
  });

  it("reads kr as the one of the currencies written so that the catalog prices in", () => {
    const params = SearchParamsSchema.parse({ q: "coffee under 150 kr" });
    const at = (q: string, currencies: string[], extra = {}) => interpret({ ...params, ...extra, q }, brands, currencies);
    const sek = at("coffee under 150 kr", ["CAD", "USD", "SEK"]);
    expect(sek?.query).toBe("coffee"); // "kr" is not searched
    expect(sek?.applied).toEqual([{ filter: "price_max", value: "150 SEK", text: "under 150 kr" }]);
    expect(at("coffee under 150kr", ["NOK"])?.adds).toEqual({ price_max: "150", currency: "NOK" });
    expect(at("coffee below 200 kronor", ["SEK"])?.adds).toEqual({ price_max: "200", currency: "SEK" });
    // None, or two: which is not known, and the answer says so.
    for (const currencies of [["EUR"], ["NOK", "SEK"]]) {
      const unknown = at("coffee under 150 kr", currencies);
      expect(unknown?.adds).toEqual({});
      expect(unknown?.notApplied).toEqual([expect.objectContaining({ reason: '"kr" is one of DKK, ISK, NOK, SEK: write which, or give currency' })]);
    }
    expect(at("coffee under 150 kr", ["NOK", "SEK"], { currency: "NOK" })?.adds).toEqual({ price_max: "150", currency: "NOK" });
  });

  it("lets the caller's parameters win", () => {
    const reading = read("northpeak tent under $200 in stock", { price_max: "300", currency: "USD", availability: "out_of_stock", brand: "Other" });
    expect(reading?.adds).toEqual({});
    expect(reading?.notApplied.map((item) => item.reason)).toEqual(["price_max was given", "availability was given", "brand was given"]);
    expect(read("tent under €200", { currency: "USD" })?.notApplied[0]?.reason).toBe("currency=USD was given");
  });

  it("leaves nothing to search when the query was all constraints (then it browses)", () => {
    expect(read("northpeak under $100")?.query).toBe("");
  });
});

describe("words excluded with a minus", () => {
  it.each([
    ["jacket -down", "jacket", ["down"]],
    ["-down jacket", "jacket", ["down"]],
    ["rain jacket -down -kids'", "rain jacket", ["down", "kids'"]],
    ["tent -northpeak", "tent", ["northpeak"]], // excluded, not read as the brand
    ["earbuds -in-ear", "earbuds", ["in-ear"]],
    ["sleeping bag under $300 -synthetic", "sleeping bag", ["synthetic"]],
  ])("%s", (q, query, exclude) => {
    const reading = read(q);
    expect(reading?.query).toBe(query);
    expect(reading?.adds.exclude).toEqual(exclude);
    expect(reading?.applied).toContainEqual({ filter: "exclude", value: exclude[0], text: `-${exclude[0]}` });
  });

  it("leaves a minus inside a word, before a number, or alone as it is", () => {
    expect(read("t-shirt")).toBeNull();
    expect(read("2-person tent")).toBeNull();
    expect(read("sleeping bag -10")).toBeNull();
    expect(read("pan - cast iron")).toBeNull();
  });

  it("adds to the caller's exclude, up to its limit", () => {
    expect(read("jacket -down", { exclude: "fleece" })?.adds.exclude).toEqual(["fleece", "down"]);
    const many = read("jacket -a1 -a2 -a3 -a4 -a5 -a6 -a7 -a8 -a9 -a10 -a11");
    expect(many?.adds.exclude).toHaveLength(10);
    expect(many?.notApplied).toEqual([expect.objectContaining({ filter: "exclude", value: "a11", reason: "at most 10 words can be excluded" })]);
    expect(many?.query).toBe("jacket");
  });
});

describe("a price order asked in words", () => {
  /** In a catalog pricing in euros only. */
  const inOne = (q: string, extra: Record<string, unknown> = {}) => read(q, extra, ["EUR"]);

  it.each([
    ["cheapest kettle", "kettle", "price_asc", "cheapest"],
    ["kettle, cheapest first", "kettle,", "price_asc", "cheapest first"],
    ["least expensive tent in stock", "tent", "price_asc", "least expensive"],
    ["headphones price low to high", "headphones", "price_asc", "price low to high"],
    ["most expensive watch", "watch", "price_desc", "most expensive"],
    ["priciest espresso machine", "espresso machine", "price_desc", "priciest"],
    ["headphones sorted by price low to high", "headphones", "price_asc", "sorted by price low to high"],
    ["headphones by price, lowest first", "headphones", "price_asc", "by price, lowest first"],
    ["speakers sorted by price", "speakers", "price_asc", "sorted by price"],
    ["speakers ordered by price, highest first", "speakers", "price_desc", "ordered by price, highest first"],
  ])("%s", (q, query, sort, text) => {
    const reading = inOne(q);
    expect(reading?.query).toBe(query);
    expect(reading?.adds).toMatchObject({ sort, currency: "EUR" });
    expect(reading?.applied).toContainEqual({ filter: "sort", value: sort, text });
  });

  it("sorts in the currency the query or the caller names, and says why it cannot without one", () => {
    expect(read("cheapest tent under $400")?.adds).toMatchObject({ sort: "price_asc", currency: "USD", price_max: "400" });
    expect(read("cheapest tent", { currency: "GBP" })?.adds).toEqual({ sort: "price_asc" });
    const unknown = read("cheapest tent");
    expect(unknown?.query).toBe("tent");
    expect(unknown?.adds.sort).toBeUndefined();
    expect(unknown?.notApplied).toEqual([
      { filter: "sort", value: "price_asc", text: "cheapest", reason: "a price order needs a currency: give currency, or write one in a price" },
    ]);
    expect(inOne("cheapest tent", { sort: "newest" })?.notApplied).toEqual([
      { filter: "sort", value: "price_asc", text: "cheapest", reason: "sort was given" },
    ]);
    // A budget is no order: "cheap" asks for what is cheap, and stays a word.
    expect(inOne("cheap tent")).toBeNull();
    expect(inOne("price tag gun")).toBeNull();
    expect(inOne("headphones by price")).toBeNull();
  });
});

describe("shorthand", () => {
  it("spells out w/ and w/o, and leaves a w inside a word, a code or after a number alone", () => {
    expect(spelledOut("jacket w/ hood")).toBe("jacket with hood");
    expect(spelledOut("jacket w/hood")).toBe("jacket with hood");
    expect(spelledOut("rain jacket W/O hood")).toBe("rain jacket without hood");
    expect(spelledOut("10w/20w charger, 5 w/m")).toBe("10w/20w charger, 5 w/m");
    expect(spelledOut("wow/now")).toBe("wow/now");
  });
});

describe("words asked to be without", () => {
  it.each([
    ["headphones not wireless", "headphones", "wireless", "not wireless"],
    ["jacket without a hood", "jacket", "hood", "without a hood"],
    ["Without Hood jacket", "jacket", "hood", "Without Hood"],
    ["tent without footprint under $400", "tent", "footprint", "without footprint"],
    ["tea that has no caffeine", "tea", "caffeine", "has no caffeine"],
    ["jacket with no hood", "jacket", "hood", "with no hood"],
    ["running shoes not for trail", "running shoes", "trail", "not for trail"],
    ["jacket no hood", "jacket", "hood", "no hood"],
    ["toys except plush", "toys", "plush", "except plush"],
    ["speakers but not bluetooth", "speakers", "bluetooth", "but not bluetooth"],
    ["a coffee maker that isn't nespresso", "a coffee maker", "nespresso", "isn't nespresso"],
    ["headphones that aren’t wireless", "headphones", "wireless", "aren’t wireless"],
    ["running shoes, skip racing", "running shoes,", "racing", "skip racing"],
    ["toy blocks, avoid plastic", "toy blocks,", "plastic", "avoid plastic"],
  ])("%s", (q, query, word, text) => {
    const reading = read(q);
    expect(reading?.query).toBe(query);
    expect(reading?.avoid).toEqual([{ word, text }]);
    // Ranked against, not filtered on: a page may say what a product is without.
    expect(reading?.adds.exclude).toBeUndefined();
  });

  it("reads no negation in a word or a compound", () => {
    expect(read("non stick pan")).toBeNull();
    expect(read("knot tying kit")).toBeNull();
    expect(read("forget-me-not seeds")).toBeNull();
    expect(read("no show socks")).toBeNull(); // "no" first
    expect(read("pack of 6 or more")).toBeNull(); // no currency: things counted
    expect(read("backpack at least 60 litres")).toBeNull(); // a size
    expect(read("tent under 2 kg")).toBeNull();
    expect(read("backpack under 60l")).toBeNull();
    expect(read("set of 2 or more plates")).toBeNull();
    expect(read("jacket no more than $200")?.avoid).toEqual([]); // a comparison
  });
});

describe("words that only ask", () => {
  it.each([
    ["help me find a throw", "throw"],
    ["can you find headphones", "headphones"],
    ["I'm looking for headphones", "headphones"],
    ["looking for a kettle please", "kettle"],
    ["do you have tents?", "tents"],
    ["i'd like to buy a kettle", "kettle"],
    ["show me waterproof jackets", "waterproof jackets"],
    ["find me running shoes", "running shoes"],
    ["recommend a sunscreen", "sunscreen"],
    ["where can i buy a tent", "tent"],
    ["what can I get for a coffee lover", "a coffee lover"],
    ["what to buy a runner", "runner"],
    ["hi, could you please help me find a wool throw under $200, thanks!", "wool throw"],
  ])("%s → %s", (q, query) => {
    expect(read(q)?.query).toBe(query);
  });

  it("keeps words that only look like asking, a query with nothing else, and punctuation alone", () => {
    expect(read("need for speed")).toBeNull(); // no "I": a title
    expect(read("show jumping saddle")).toBeNull(); // "show" asks only before whom it is for
    expect(read("get well card")).toBeNull();
    expect(read("what to get hiking boots")).toEqual(expect.objectContaining({ query: "hiking boots" }));
    expect(read("what a wonderful world vinyl")).toBeNull();
    expect(read("find me")).toBeNull(); // nothing else to search
    expect(read("please")).toBeNull();
    expect(read("kettle?")).toBeNull(); // full text ignores the mark: nothing to tell
  });

  it("reads what a request says before the clause that asks as context: not searched, kept for the encoder, its constraints read", () => {
    const dinner = read("Hosting dinners for six; I want a solid oak dining table around 180 cm.");
    expect(dinner).toEqual(expect.objectContaining({ query: "solid oak dining table around 180 cm.", context: "Hosting dinners for six;" }));
    const budget = read("My budget is under $300. I need a tent for two");
    expect(budget?.query).toBe("tent for two");
    expect(budget?.applied).toContainEqual(expect.objectContaining({ filter: "price_max" }));
    // A clause that asks for nothing leaves the query whole.
    expect(read("My son is 5 years old: show me a balance bike")?.query).toBe("balance bike");
    expect(read("Cast iron: I think it lasts. Dutch oven")).toBeNull();
    expect(read("Tents; I need")).toBeNull();
  });
});
