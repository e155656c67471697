/**
 * Constraints a shopper writes into the query ("under $200", "below 50 €",
 * "between 20 and 40 dollars", "in stock", a brand the catalog has, a word
 * with a minus in front: "jacket -down"), read as filters and taken out of the
 * words searched; words asked to be without ("not wireless"), taken out too and
 * ranked against; words that only ask ("help me find a …, please"), taken out. Nothing is applied silently:
 * the answer's `interpretation` lists what was applied and what was read but
 * not applied, and why. Parameters the caller gave win over what the query
 * says. `parse_query=false` turns this off.
 */
import { DOLLARS, isCurrencyCode, KRONOR } from "../../shared/currency.js";
import { type AppliedConstraint, EXCLUDE_MAX, type SearchParams } from "../../shared/schemas/index.js";
import { matches } from "../catalog/attributes/lexicon.js";
import { type HeldAttributes, readAttributes } from "./attributes.js";
import { withoutAccents, wordsIn } from "./lexical.js";
import { derived } from "./rules/index.js";
import { isUnit } from "./product-type.js";

export interface Reading {
  /** The query without the constraints; empty when nothing else was asked (then it browses). */
  query: string;
  /** Filters to add to the parameters. */
  adds: Pick<SearchParams, "price_min" | "price_max" | "currency" | "availability" | "brand" | "exclude" | "sort" | "audience" | "colour">;
  applied: AppliedConstraint[];
  notApplied: (AppliedConstraint & { reason: string })[];
  /** Words the shopper asks to be without ("not wireless", "without a hood"): ranked against, never filtered on. */
  avoid: { word: string; text: string }[];
  /** What a request says before it asks (askingClause): not searched, but read by the sentence encoder with the rest. */
  context?: string;
}

/** The brands a catalog has, by their words lower-cased and without accents ("Pebble & Pine" → "pebble pine", "Kärcher" → "karcher"). */
export interface BrandIndex {
  byWords: ReadonlyMap<string, string>;
  /** The most words a brand name has. */
  longest: number;
}

export function brandIndex(names: readonly string[]): BrandIndex {
  const byWords = new Map<string, string>();
  let longest = 0;
  const add = (words: readonly string[], name: string) => {
    const key = words.map(withoutAccents).join(" ");
    if (!byWords.has(key)) byWords.set(key, name);
    longest = Math.max(longest, words.length);
  };
  for (const name of names) {
    const words = wordsIn(name);
    // One- and two-letter names ("A", "HP" aside) read as ordinary words too often to be taken for a brand.
    if (words.length === 0 || words.join("").length < 3) continue;
    add(words, name);
    // "&" is no word, and a shopper writes it "and": "Pebble and Pine" is Pebble & Pine.
    if (name.includes("&")) add(wordsIn(name.replaceAll("&", " and ")), name);
  }
  return { byWords, longest };
}

/** "kr", which is one of `KRONOR`: the catalog's, when it has one of them (interpret). */
const KR = "kr";
/** "$" or "dollars", which is one of `DOLLARS`: US dollars, unless the catalog prices everything in other dollars. */
const DOLLAR = "$";

/**
 * A number, in thousands when a "k" follows it ("$1k", "5K yen"); its thousands may be set apart by spaces, as in
 * Swedish and French ("1 500 kr", "2 500 CAD").
 */
const SPACED = String.raw`\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:,\d{1,2})?`;
const AMOUNT = String.raw`(?:${SPACED}|\d+(?:[.,]\d+)*)(?:k(?![\p{L}\p{N}]))?`;
/** An amount whose thousands are set apart by spaces, whole. */
const SPACED_AMOUNT = new RegExp(`^${SPACED}$`, "u");
/**
 * How currencies are written (rules/en/constraints.json) as one pattern of a price: a mark before or after the amount.
 * A name or code ends where its word does ("rand" is no "random"); a mark may stand against the amount ("R$300"). One
 * lookahead for all the names: one after each made the patterns take 50–300 ms to compile on their first search.
 */
const currencies = derived(({ constraints }) => {
  const marks = [...Object.keys(constraints.currencyWords), ...constraints.codes]
    .sort((a, b) => b.length - a.length)
    .map((mark) => mark.replace(/[$.]/g, (c) => `\\${c}`).replace(/ /g, String.raw`\s+`));
  const named = (mark: string) => /\p{L}$/u.test(mark);
  const currency = `(?:${marks.filter((mark) => !named(mark)).join("|")}|(?:${marks.filter(named).join("|")})(?![\\p{L}]))`;
  return {
    words: constraints.currencyWords,
    price: String.raw`(?:(${currency})\s?)?(${AMOUNT})(?:\s?(${currency}))?`,
    connectors: new Set(constraints.connectors),
  };
});

interface Price {
  amount: string;
  currency: string | undefined;
}

/** `1,200`, `1.200,50`, `1 200`, `12,50`, `19.99`, `1.5k` as a decimal string; null when it is not an amount. */
function decimal(written: string): string | null {
  if (/k$/iu.test(written)) {
    const units = decimal(written.slice(0, -1));
    return units === null ? null : String(Math.round(Number(units) * 1000 * 100) / 100);
  }
  if (SPACED_AMOUNT.test(written)) return written.replace(/\s/gu, "").replace(",", ".");
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(written)) return written.replaceAll(",", "");
  if (/^\d{1,3}(\.\d{3})+(,\d+)?$/.test(written)) return written.replaceAll(".", "").replace(",", ".");
  if (/^\d+,\d{1,2}$/.test(written)) return written.replace(",", ".");
  if (/^\d+(\.\d+)?$/.test(written)) return written;
  return null;
}

function currencyOf(written: string | undefined): string | undefined | null {
  if (written === undefined) return undefined;
  const lower = written.toLowerCase().replace(/\s+/gu, " ");
  const named = currencies().words[lower];
  if (named) return named;
  const code = lower.toUpperCase();
  return isCurrencyCode(code) ? code : null;
}

/** The currency two marks written for one price agree on ("$20 CAD" is in Canadian dollars), or null when they do not. */
function agreed(a: string | undefined, b: string | undefined): string | undefined | null {
  if (a === undefined || b === undefined || a === b) return a ?? b;
  if (a === DOLLAR && DOLLARS.includes(b)) return b;
  if (b === DOLLAR && DOLLARS.includes(a)) return a;
  return null;
}

function price(before: string | undefined, amount: string, after: string | undefined): Price | null {
  const value = decimal(amount);
  const a = currencyOf(before);
  const b = currencyOf(after);
  if (value === null || a === null || b === null) return null;
  const currency = agreed(a, b);
  return currency === null ? null : { amount: value, currency };
}

interface Found {
  start: number;
  end: number;
  text: string;
  constraints: (
    | { filter: "price_min" | "price_max"; value: string; currency?: string | undefined }
    | { filter: "availability"; value: NonNullable<SearchParams["availability"]>[number]; currency?: undefined }
  )[];
}

/**
 * Compiles the price patterns, at start rather than on the first search with a digit (~60 ms: V8 compiles a pattern
 * when first run and again, to machine code, when run once more).
 */
export function loadPricePatterns(): void {
  for (let run = 0; run < 2; run++) findPhrases("between $1 and $2, $1-$2, around $1, under $1, over $1, $1 or less, $1 or more");
}

/**
 * How a query writes a constraint (constraints.json `phrases`): each phrase its alternatives as one group, `{part}`s
 * filled; a phrase with none matches nothing. "In stock" as often typed fast ("in stok", "availble now") is read
 * before typo correction, which would make "stok" a stop.
 */
const phrases = derived(({ constraints: { parts, phrases: lists } }) => {
  const filled = (pattern: string) => pattern.replace(/\{(\w+)\}/gu, (_, part: string) => `(?:${parts[part]})`);
  const group = Object.fromEntries(
    Object.entries(lists).map(([name, list]) => [name, list.length > 0 ? `(?:${list.map(filled).join("|")})` : "(?!)"]),
  ) as Record<keyof typeof lists, string>;
  const word = (name: keyof typeof lists) => new RegExp(String.raw`\b${group[name]}\b`, "giu");
  return {
    group,
    notOutOfStock: word("notOutOfStock"),
    outOfStock: word("outOfStock"),
    inStock: word("inStock"),
    preorder: word("preorder"),
    withCurrencyOnly: new RegExp(`^${group.withCurrencyOnly}`, "iu"),
    asking: askingPatterns(group),
    priceOrder: new RegExp(String.raw`(?<=^|[\s,])(?:(${group.cheapestFirst})|(${group.dearestFirst}))(?=$|[\s,.!?])`, "giu"),
    avoided: new RegExp(String.raw`(?<=^|\s)${group.avoiding}\s+(?!${group.notAvoided}\b)(?:${group.articles}\s+)?(\p{L}[\p{L}\p{N}'’-]*)`, "giu"),
    notFromBrand: new RegExp(String.raw`(?<=^|\s)${group.notFromBrand}\s+(\p{L}[\p{L}\p{N}'’-]*)`, "giu"),
  };
});

/** The price and stock phrases of a query, left to right, not overlapping. */
function findPhrases(q: string): Found[] {
  const PRICE = currencies().price;
  const patterns = phrases();
  const w = patterns.group;
  const found: Found[] = [];
  const take = (pattern: RegExp, read: (match: RegExpExecArray) => Found["constraints"] | null) => {
    for (const match of q.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (found.some((other) => start < other.end && other.start < end)) continue;
      const constraints = read(match);
      // A number without a currency before a unit is a size, not a price: "at least 60 litres", "under 2 kg".
      const unit = /^\s*([\p{L}]+)/u.exec(q.slice(end))?.[1];
      const sized = unit !== undefined && isUnit(unit.toLowerCase()) && constraints?.some((c) => c.filter !== "availability" && !c.currency);
      if (constraints && !sized) found.push({ start, end, text: match[0].trim(), constraints });
    }
  };
  const flags = "giu";
  // Every price has a digit: a query without one (most of them) skips the price patterns, whose ~100 currency marks
  // took 2–4 ms a search to try at every position (bench:search-steps on the CrowdFlower dev queries, profiled).
  if (/\d/.test(q)) {
    // Ranges first, so "between 20 and 40" is not read as two open bounds.
    take(new RegExp(String.raw`\b${w.between}\s+${PRICE}\s+${w.rangeAnd}\s+${PRICE}`, flags), (m) =>
      range(price(m[1], m[2]!, m[3]), price(m[4], m[5]!, m[6])),
    );
    // "〜" and "～" join a range as Japanese writes it ("¥3000〜¥6000").
    take(new RegExp(String.raw`(?<![\p{L}\p{N}])${PRICE}\s*${w.rangeJoin}\s*${PRICE}`, flags), (m) => {
      // "2-3 person tent" is not a price range: one side must say its currency.
      if (!m[1] && !m[3] && !m[4] && !m[6]) return null;
      return range(price(m[1], m[2]!, m[3]), price(m[4], m[5]!, m[6]));
    });
    // "around £200" (near). Only with a currency, as "about 30" counts things as often.
    take(new RegExp(String.raw`(?:\b${w.around}\s*|~\s*)${PRICE}`, flags), (m) => (m[1] || m[3] ? near(price(m[1], m[2]!, m[3])) : null));
    // A bound said after "not" is the other one: "not over £300" is at most £300.
    take(new RegExp(String.raw`(?:\b(${w.boundNot})\s+)?(?:\b${w.atMost}|[<≤])\s*${PRICE}`, flags), (m) =>
      bound(m[1] ? "price_min" : "price_max", price(m[2], m[3]!, m[4])),
    );
    take(new RegExp(String.raw`(?:\b(${w.boundNot})\s+)?(?:\b${w.atLeast}|[>≥])\s*${PRICE}`, flags), (m) => {
      // "from" also names places and brands: only with a currency does it bound a price.
      if (patterns.withCurrencyOnly.test(m[0]) && !m[2] && !m[4]) return null;
      return bound(m[1] ? "price_max" : "price_min", price(m[2], m[3]!, m[4]));
    });
    // The bound after the price ("50 USD or less", "1500 SEK max"): only with a currency, as "6 or more" counts things.
    take(new RegExp(String.raw`(?<![\p{L}\p{N}])${PRICE}\s*${w.atMostAfter}`, flags), (m) =>
      m[1] || m[3] ? bound("price_max", price(m[1], m[2]!, m[3])) : null,
    );
    take(new RegExp(String.raw`(?<![\p{L}\p{N}])${PRICE}\s*${w.atLeastAfter}`, flags), (m) =>
      m[1] || m[3] ? bound("price_min", price(m[1], m[2]!, m[3])) : null,
    );
  }
  // Stock: what is not out of stock first, then what is not in stock, so that neither is read as the state it denies.
  take(patterns.notOutOfStock, () => [{ filter: "availability", value: "in_stock" }]);
  take(patterns.outOfStock, () => [{ filter: "availability", value: "out_of_stock" }]);
  take(patterns.inStock, () => [{ filter: "availability", value: "in_stock" }]);
  take(patterns.preorder, () => [{ filter: "availability", value: "preorder" }]);
  return found.sort((a, b) => a.start - b.start);
}

function bound(filter: "price_min" | "price_max", value: Price | null): Found["constraints"] | null {
  return value ? [{ filter, value: value.amount, currency: value.currency }] : null;
}

/** How far above a price "around" reaches. */
const AROUND = 0.2;

/**
 * "around £200": at most a fifth over it, and no least. A price said roughly is a budget ("budget is about €60",
 * "around 400 kr for the two"): a cheaper product that fits is one a shopper takes, where a lower bound would cut it.
 */
function near(value: Price | null): Found["constraints"] | null {
  if (!value) return null;
  const cents = Number(value.amount) * 100;
  return bound("price_max", { ...value, amount: String(Math.round(cents * (1 + AROUND)) / 100) });
}

function range(low: Price | null, high: Price | null): Found["constraints"] | null {
  if (!low || !high) return null;
  const currency = agreed(low.currency, high.currency);
  if (currency === null) return null;
  const [min, max] = Number(low.amount) <= Number(high.amount) ? [low, high] : [high, low];
  return [
    { filter: "price_min", value: min.amount, currency },
    { filter: "price_max", value: max.amount, currency },
  ];
}

/** Words that only join a constraint to the rest ("tent *for* under $200", "jacket *by* NorthPeak"). */

function trimConnectors(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  // So is a mark left alone once the words around it are taken ("… and available now?").
  const { connectors } = currencies();
  const joins = (word: string) => connectors.has(word.toLowerCase()) || !/[\p{L}\p{N}]/u.test(word);
  while (words.length > 0 && joins(words[0]!)) words.shift();
  while (words.length > 0 && joins(words.at(-1)!)) words.pop();
  return words.join(" ");
}

/**
 * Words around what is asked that only ask for it, as shoppers write to a person and agents pass on ("help me find a
 * throw", "I'm looking for headphones", "do you have tents?", "…, please"). Searched, they weigh as rare words the
 * catalog hardly holds ("find a throw" left the throws under the floor). Only at the start or the end of the query,
 * and only in these forms: "need for speed", "show jumping saddle" and "get well card" keep their words.
 */
function askingPatterns(group: Record<string, string>) {
  return {
    start: new RegExp(
      String.raw`^\s*(?:${group.askingGreeting}\s+)?(?:${group.askingPolite}\s+)?${group.askingStart}(?:\s+${group.articles})?\s+`,
      "iu",
    ),
    end: new RegExp(String.raw`(?:,?\s*${group.askingEnd})?\s*[?!.]+$|,?\s+${group.askingEnd}\s*$`, "iu"),
    // The ask at the start of a later clause, tried where one begins (sticky): "Hosting dinners for six; I want a …".
    clause: new RegExp(String.raw`(?:${group.askingPolite}\s+)?${group.askingStart}(?:\s+${group.articles})?\s+`, "iuy"),
  };
}

/** Where a clause begins: after a full stop, a semicolon, a colon, a question or an exclamation mark, and a space. */
const CLAUSE_BREAK = /[;:.!?]\s+/gu;
/**
 * How far from either end the words that only ask are looked for: they are short, and a regular expression tried at
 * every position of a long run of spaces costs time growing with its square.
 */
const ASKING_REACH = 64;

/** Which dollars "$" is: the catalog's, when it prices everything in one kind; or else the one given; or else US dollars. */
function dollarOf(given: string | undefined, currencies: readonly string[]): string {
  if (currencies.length === 1 && DOLLARS.includes(currencies[0]!)) return currencies[0]!;
  return given !== undefined && DOLLARS.includes(given) ? given : "USD";
}

/** Which currency "kr" is: the one of `KRONOR` the catalog prices in, when it has one, or else the one given. */
function kronorOf(given: string | undefined, currencies: readonly string[]): string | undefined {
  const held = currencies.filter((currency) => KRONOR.includes(currency));
  if (held.length === 1) return held[0];
  return given !== undefined && KRONOR.includes(given) ? given : undefined;
}

/** Why a price order asked in words was not applied: the service then looks for the currency its products share. */
export const NEEDS_CURRENCY = "a price order needs a currency: give currency, or write one in a price";

/**
 * "w/" and "w/o" as a shopper writes "with" and "without" ("jacket w/ hood"): the letter alone reads as watts. Not
 * after a number, where it is a unit ("5 W/m").
 */
const SHORTHAND = /(?<![\p{L}\p{N}])(?<!\p{N}\s)w\/(o(?![\p{L}\p{N}]))?\s*/giu;

/** The query with shorthand spelt out: "jacket w/o hood" → "jacket without hood", which `interpret` then reads. */
export function spelledOut(q: string): string {
  return q.replace(SHORTHAND, (_, without: string | undefined) => (without ? "without " : "with "));
}

/** What `interpret` reads from: the query, the caller's parameters, the catalog's currencies, and what it has read so far. */
interface Interpreting {
  q: string;
  params: SearchParams & { q: string };
  /** The currencies the catalog prices products in, as given (undefined: unknown). */
  given: readonly string[] | undefined;
  currencies: readonly string[];
  reading: Reading;
  /** What is taken out of the query: the phrases read so far. */
  spans: { start: number; end: number }[];
}

/**
 * Reads the constraints of `q`; null when it holds none. `currencies`: the ones the catalog prices products in (a few suffice). When there is one, a bound written without a
 * currency ("toys under 20") is in it; otherwise it is read but not applied, as the number alone says nothing of which.
 * When there is none, no price bound is applied: filtered, every product would be left out ("headphones under $50" on a
 * catalog of titles alone answered nothing), and the answer says why. Not given, the catalog's prices are unknown.
 */
export function interpret(
  params: SearchParams & { q: string },
  brands: BrandIndex,
  given?: readonly string[],
  held?: HeldAttributes,
): Reading | null {
  const q = params.q;
  const at: Interpreting = {
    q,
    params,
    given,
    currencies: given ?? [],
    reading: { query: q, adds: {}, applied: [], notApplied: [], avoid: [] },
    spans: [],
  };
  const asking = readAsking(at);
  const context = asking ? 0 : askingClause(at);
  readExcluded(at);
  readPhrases(at);
  readPriceOrder(at);
  readExcludedBrands(at);
  readAvoided(at);
  readBrands(at, brands);
  if (held) readHeld(at, held);
  // What comes before the clause that asks is context: its constraints are read above, its other words not searched.
  const { reading } = at;
  if (context > 0) {
    reading.context = remaining(q.slice(0, context), at.spans);
    at.spans.push({ start: 0, end: context });
  }
  if (!asking && context === 0 && reading.applied.length === 0 && reading.notApplied.length === 0 && reading.avoid.length === 0) return null;
  reading.query = remaining(q, at.spans);
  return reading;
}

/** What only asks is taken out first, when anything is left to search. Whether there was any. */
function readAsking({ q, spans }: Interpreting): boolean {
  const { asking: patterns } = phrases();
  const start = patterns.start.exec(q.slice(0, ASKING_REACH))?.[0].length ?? 0;
  const tail = Math.max(start, q.length - ASKING_REACH);
  const end = patterns.end.exec(q.slice(tail));
  const asked = { start, end: end ? tail + end.index : q.length };
  const letters = /[\p{L}\p{N}]/u;
  const asking = letters.test(q.slice(0, asked.start) + q.slice(asked.end)) && letters.test(q.slice(asked.start, asked.end));
  if (asking) spans.push({ start: 0, end: asked.start }, { start: asked.end, end: q.length });
  return asking;
}

/**
 * A request that sets the scene before it asks ("Hosting dinners for six; I want a solid oak dining table …"): the
 * words that only ask are taken out, and where the asked-for begins is given back (0 when no later clause asks).
 */
function askingClause({ q, spans }: Interpreting): number {
  const { clause } = phrases().asking;
  for (const boundary of q.matchAll(CLAUSE_BREAK)) {
    clause.lastIndex = boundary.index + boundary[0].length;
    const ask = clause.exec(q);
    if (!ask || !/[\p{L}\p{N}]/u.test(q.slice(clause.lastIndex))) continue;
    spans.push({ start: ask.index, end: clause.lastIndex });
    return clause.lastIndex;
  }
  return 0;
}

function overlaps({ spans }: Interpreting, match: RegExpMatchArray & { index: number }): boolean {
  return spans.some((span) => match.index < span.end && span.start < match.index + match[0].length);
}

/** Added to the caller's `exclude`, not replaced. */
function exclude({ params, reading, spans }: Interpreting, match: RegExpMatchArray & { index: number }, value: string): void {
  spans.push({ start: match.index, end: match.index + match[0].length });
  const shown = { filter: "exclude", value, text: match[0] };
  const excluded = reading.adds.exclude ?? params.exclude ?? [];
  if (excluded.length >= EXCLUDE_MAX) reading.notApplied.push({ ...shown, reason: `at most ${EXCLUDE_MAX} words can be excluded` });
  else {
    reading.adds.exclude = [...excluded, shown.value];
    reading.applied.push(shown);
  }
}

/**
 * Excluded words first, so that "-northpeak" is not read as the brand. A minus starts a word only after a space
 * and before a letter: "t-shirt", "2-person" and "-10°C" keep theirs.
 */
function readExcluded(at: Interpreting): void {
  for (const match of at.q.matchAll(/(?<=^|\s)-(\p{L}[^\s,;]*)/gu)) exclude(at, match, match[1]!);
}

/** The price and stock phrases (findPhrases), applied unless the caller or another phrase said otherwise. */
function readPhrases({ q, params, given, currencies, reading, spans }: Interpreting): void {
  for (const phrase of findPhrases(q)) {
    spans.push(phrase);
    for (const constraint of phrase.constraints) {
      // The currency written, as the catalog reads it: "kr" may stay unknown.
      const written =
        constraint.currency === KR
          ? kronorOf(params.currency, currencies)
          : constraint.currency === DOLLAR
            ? dollarOf(params.currency, currencies)
            : constraint.currency;
      const mark = written ?? constraint.currency;
      const shown = {
        filter: constraint.filter,
        value: mark ? `${constraint.value} ${mark}` : constraint.value,
        text: phrase.text,
      };
      if (constraint.filter === "availability") {
        if (params.availability) reading.notApplied.push({ ...shown, reason: "availability was given" });
        else {
          reading.adds.availability = [constraint.value];
          reading.applied.push(shown);
        }
        continue;
      }
      const currency = constraint.currency ? written : (params.currency ?? (currencies.length === 1 ? currencies[0] : undefined));
      if (params[constraint.filter] !== undefined) reading.notApplied.push({ ...shown, reason: `${constraint.filter} was given` });
      else if (given?.length === 0) reading.notApplied.push({ ...shown, reason: "no product in the catalog states a price" });
      else if (!currency && constraint.currency === KR)
        reading.notApplied.push({ ...shown, reason: `"kr" is one of ${KRONOR.join(", ")}: write which, or give currency` });
      else if (!currency) reading.notApplied.push({ ...shown, reason: 'no currency: write it ("under $200") or give currency' });
      else if (params.currency && params.currency !== currency)
        reading.notApplied.push({ ...shown, reason: `currency=${params.currency} was given` });
      else if (reading.adds.currency && reading.adds.currency !== currency)
        reading.notApplied.push({ ...shown, reason: "two currencies in one query" });
      else {
        reading.adds[constraint.filter] = constraint.value;
        reading.adds.currency = currency;
        reading.applied.push({ ...shown, value: `${constraint.value} ${currency}` });
      }
    }
  }
}

/**
 * "cheapest", "most expensive": a price order, in the currency a price in the query or the caller names, or the
 * catalog's only one; a price sort orders one currency's prices (api.md). "cheap" is no order: it stays a word.
 */
function readPriceOrder(at: Interpreting): void {
  const { q, params, currencies, reading, spans } = at;
  for (const match of q.matchAll(phrases().priceOrder)) {
    if (overlaps(at, match)) continue;
    spans.push({ start: match.index, end: match.index + match[0].length });
    const shown = { filter: "sort", value: match[1] ? "price_asc" : "price_desc", text: match[0] } as const;
    const currency = params.currency ?? reading.adds.currency ?? (currencies.length === 1 ? currencies[0] : undefined);
    if (params.sort || reading.adds.sort) reading.notApplied.push({ ...shown, reason: "sort was given" });
    else if (!currency) reading.notApplied.push({ ...shown, reason: NEEDS_CURRENCY });
    else {
      reading.adds.sort = shown.value;
      if (!params.currency) reading.adds.currency = currency;
      reading.applied.push(shown);
    }
  }
}

/** "not from NorthPeak", "not by Copperleaf": the brand's products are left out, as "-northpeak" leaves them. */
function readExcludedBrands(at: Interpreting): void {
  for (const match of at.q.matchAll(phrases().notFromBrand)) {
    if (!overlaps(at, match)) exclude(at, match, match[1]!);
  }
}

/**
 * "not wireless", "without a hood", "with no hood", "jacket no hood", "not for trail", "except plush": what the
 * shopper does not want. Not a filter, as "-word" is: a page saying what a product is without ("caffeine free" for
 * "coffee without caffeine") holds the word too. The word is not searched. Prices and stock were read before ("not
 * over £300", "not in stock"). "no" first in the query is no such word ("no show socks"), nor before a comparison
 * ("no more than $50").
 */
function readAvoided(at: Interpreting): void {
  for (const match of at.q.matchAll(phrases().avoided)) {
    if (overlaps(at, match)) continue;
    at.spans.push({ start: match.index, end: match.index + match[0].length });
    at.reading.avoid.push({ word: match[1]!.toLowerCase(), text: match[0] });
  }
}

/** Brands: the longest run of the query's words that names one, outside the phrases read before. */
function readBrands({ q, params, reading, spans }: Interpreting, brands: BrandIndex): void {
  const tokens = [...q.matchAll(/[\p{L}\p{N}]+/gu)].filter((token) => !spans.some((span) => token.index >= span.start && token.index < span.end));
  // As the brand index keys a name: its words lower-cased, without accents.
  const words = tokens.map((token) => withoutAccents(token[0].toLowerCase()));
  for (const { value: name, index, length } of matches(brands, words)) {
    const start = tokens[index]!.index;
    const last = tokens[index + length - 1]!;
    const text = q.slice(start, last.index + last[0].length);
    if (params.brand || params.brand_url)
      reading.notApplied.push({ filter: "brand", value: name, text, reason: `${params.brand ? "brand" : "brand_url"} was given` });
    else {
      reading.adds.brand = [...(reading.adds.brand ?? []), name];
      reading.applied.push({ filter: "brand", value: name, text });
      spans.push({ start, end: last.index + last[0].length });
    }
  }
}

/** Whom and what colour: filters for values the catalog holds, the words still searched (attributes.ts). */
function readHeld({ q, params, reading, spans }: Interpreting, held: HeldAttributes): void {
  // Outside what was read before: "-red" and "not red" ask for no red.
  const attributes = readAttributes(blanked(q, spans), params, held);
  Object.assign(reading.adds, attributes.adds);
  reading.applied.push(...attributes.applied);
  reading.notApplied.push(...attributes.notApplied);
}

/** The query with the spans (which may overlap) blanked out, by UTF-16 unit as they count. */
function blanked(q: string, spans: readonly { start: number; end: number }[]): string {
  return q
    .split("")
    .map((unit, k) => (spans.some((span) => k >= span.start && k < span.end) ? " " : unit))
    .join("");
}

/** The query with what was read taken out, and the words that only joined it to the rest. */
function remaining(q: string, spans: readonly { start: number; end: number }[]): string {
  return trimConnectors(blanked(q, spans).replace(/\s+/g, " ").trim());
}
