/**
 * Ages: who a query shops for ("wooden toys for toddlers", "gift for a 1 year
 * old") and who a product's description says it suits ("for children aged 3
 * to 6", "Age: 18 months+", "not suitable for children under three"). The
 * local reranker ranks a product whose stated ages leave out every age asked
 * after those that suit or say nothing (a marble run with small parts is no
 * toddler's toy). It orders and never filters: most pages state no ages, and
 * a shopper buying ahead still finds the rest. The answer's `interpretation`
 * shows the ages read. The words, patterns and stages are data: rules/en/ages.json.
 */
import { anyOf, derived } from "./rules/index.js";

/** Ages in months, `from` included, `to` excluded (Infinity: no upper bound). */
export interface AgeRange {
  from: number;
  to: number;
}

/** The ages a query asks for, and the words they were read from. */
export interface AskedAges extends AgeRange {
  text: string;
  /** Where `text` begins in the query, and whether it counts years or months ("5 year old"), not a stage ("toddlers"). */
  index: number;
  counted: boolean;
}

type Read = (m: RegExpMatchArray) => AgeRange;

/**
 * The patterns, words and stages, data in rules/en/ages.json: each pattern's slots filled with the words of the rules
 * in use, made again only when other rules are installed.
 */
const lists = derived(({ ages }) => {
  const numbers = new Map(Object.entries(ages.numberWords));
  const inMonths = new Set(ages.units.months);
  const count = (text: string) => numbers.get(text.toLowerCase()) ?? Number(text);
  /** A number of months or (by default) years, in months. */
  const months = (amount: string, unit: string | undefined) =>
    unit !== undefined && inMonths.has(unit.toLowerCase()) ? count(amount) : count(amount) * 12;
  const slots: Record<string, string> = {
    number: String.raw`(\d{1,2}|${Object.keys(ages.numberWords).join("|")})`,
    unit: `(${[...ages.units.months, ...ages.units.years].join("|")})`,
    until: anyOf(ages.until),
    /** "+" or "and up" after an age: from it on. */
    andUp: anyOf(ages.andUp),
    who: anyOf(ages.who),
  };
  const compile = (pattern: string, flags: string) =>
    new RegExp(
      pattern.replace(/\{(\w+)\}/gu, (_, slot: string) => slots[slot]!),
      flags,
    );
  // The unit is the first one the pattern captured after its numbers.
  const unitOf = (m: RegExpMatchArray, after: number) => m.slice(after + 1).find((group) => group !== undefined);
  const reads: Record<"between" | "age" | "from", Read> = {
    /** From the first to the last months or years, both included: "3 to 6" years runs up to the 7th birthday. */
    between: (m) => ({ from: months(m[1]!, unitOf(m, 2)), to: months(m[2]!, unitOf(m, 2)) + months("1", unitOf(m, 2)) }),
    age: (m) => ({ from: months(m[1]!, unitOf(m, 1)), to: months(m[1]!, unitOf(m, 1)) + months("1", unitOf(m, 1)) }),
    /** From an age on, with no upper bound. */
    from: (m) => ({ from: months(m[1]!, unitOf(m, 1)), to: Infinity }),
  };
  const rule = (flags: string) => (entry: { pattern: string; read: keyof typeof reads }) =>
    [compile(entry.pattern, flags), reads[entry.read]] as [RegExp, Read];
  const stages = ages.stages.map((stage) => ({ ...stage, regex: new RegExp(stage.pattern, "i") }));
  return {
    asked: ages.asked.map(rule("i")),
    stated: ages.stated.map(rule("gi")),
    stages,
    grownUp: new RegExp(String.raw`\b${anyOf(ages.grownUp.words)}(?:['’]s?)?(?![\p{L}])`, "iu"),
    grownUpFrom: ages.grownUp.fromMonths,
  };
});

/** The ages a query asks for, or null when it names none. */
export function askedAges(query: string): AskedAges | null {
  const { asked, stages } = lists();
  for (const [pattern, read] of asked) {
    const match = query.match(pattern);
    if (match) return { ...read(match), text: match[0], index: match.index ?? 0, counted: true };
  }
  for (const stage of stages) {
    const match = query.match(stage.regex);
    if (match) return { ...stage.asked, text: match[0], index: match.index ?? 0, counted: false };
  }
  return null;
}

/** The ages a product's text says it suits (every statement at once), or null when it states none. */
export function statedAges(text: string): AgeRange | null {
  let range: AgeRange | null = null;
  for (const [pattern, read] of lists().stated) {
    for (const match of text.matchAll(pattern)) {
      const stated = read(match);
      if (!(stated.from < stated.to)) continue;
      range = range ? { from: Math.max(range.from, stated.from), to: Math.min(range.to, stated.to) } : stated;
    }
  }
  // Statements that contradict each other say nothing usable.
  return range && range.from < range.to ? range : null;
}

/**
 * The ages a product suits by its text (statedAges), or else from 13 years when its name is for men or women: the
 * men's running shoes are no answer for "a 7 year old boy", who wears the kids' ones; or else the stages of childhood
 * its category or name names: the toddlers' activity cube is no answer for "toys for a 5 year old".
 */
export function productAges(name: string, desc: string, category: string | null = null): AgeRange | null {
  return (
    statedAges(`${name}. ${desc}`) ??
    (lists().grownUp.test(name) ? { from: lists().grownUpFrom, to: Infinity } : null) ??
    labelled(category ?? "", true) ??
    labelled(name, false)
  );
}

/**
 * The stages of childhood a category or name labels a product with, as one range from the youngest to the oldest
 * ("Toys > Baby & Toddler": 0 to 60 months), or null. In a name, "baby" alone is no label: it names a doll, a brand
 * (Baby Phat) or spinach as often as an age; beside another stage it is one ("Baby Toddler Boy Cargo Shorts").
 */
function labelled(text: string, category: boolean): AgeRange | null {
  const named = lists().stages.filter((stage) => stage.regex.test(text));
  if (named.length === 0 || (!category && named.length === 1 && named[0]!.labelsNameAlone === false)) return null;
  return { from: Math.min(...named.map((stage) => stage.labelled.from)), to: Math.max(...named.map((stage) => stage.labelled.to)) };
}

/** Whether the ages stated leave out every age asked. */
export function excludes(stated: AgeRange, asked: AgeRange): boolean {
  return stated.from >= asked.to || stated.to <= asked.from;
}
