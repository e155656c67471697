/**
 * Ages: who a query shops for ("wooden toys for toddlers", "gift for a 1 year
 * old") and who a product's description says it suits ("for children aged 3
 * to 6", "Age: 18 months+", "not suitable for children under three"). The
 * local reranker ranks a product whose stated ages leave out every age asked
 * after those that suit or say nothing (a marble run with small parts is no
 * toddler's toy). It orders and never filters: most pages state no ages, and
 * a shopper buying ahead still finds the rest. The answer's `interpretation`
 * shows the ages read.
 */

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

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  eighteen: 18,
};

const NUMBER = String.raw`(\d{1,2}|${Object.keys(NUMBER_WORDS).join("|")})`;
const UNIT = `(months?|mos?|years?|yrs?)`;
const UNTIL = `(?:-|–|to)`;
/** "+" or "and up" after an age: from it on. */
const AND_UP = String.raw`(?:\+|and\s+(?:up|over|older|above))`;

function count(text: string): number {
  return NUMBER_WORDS[text.toLowerCase()] ?? Number(text);
}

/** A number of months or (by default) years, in months. */
function months(amount: string, unit: string | undefined): number {
  return /^mo/i.test(unit ?? "") ? count(amount) : count(amount) * 12;
}

/** From `first` to `last` months or years, both included: "3 to 6" years runs up to the 7th birthday. */
function between(first: string, last: string, unit: string | undefined): AgeRange {
  return { from: months(first, unit), to: months(last, unit) + months("1", unit) };
}

/** From an age on, with no upper bound. */
function fromAge(amount: string, unit: string | undefined): AgeRange {
  return { from: months(amount, unit), to: Infinity };
}

// Not "baby blue", "baby pink": colours; nor a "baby shower", which is for the parents.
const BABY = /\b(?:new ?borns?|infants?|bab(?:y|ies)(?!\s+(?:blue|pink|shower)))\b/i;
const TODDLER = /\btoddlers?\b/i;
const PRESCHOOLER = /\bpre-?schoolers?\b/i;
const TEEN = /\bteen(?:s|agers?)?\b/i;

/** Stages of childhood a shopper names, by the usual bounds. */
const STAGES: [RegExp, AgeRange][] = [
  [BABY, { from: 0, to: 12 }],
  [TODDLER, { from: 12, to: 36 }],
  [PRESCHOOLER, { from: 36, to: 60 }],
  [TEEN, { from: 156, to: 228 }],
];

/** The same stages as shops label products by them: sizes run past the ages (baby to 24 months, toddler to 5T). */
const LABELS: [RegExp, AgeRange][] = [
  [BABY, { from: 0, to: 24 }],
  [TODDLER, { from: 12, to: 60 }],
  [PRESCHOOLER, { from: 36, to: 72 }],
  [TEEN, { from: 156, to: 228 }],
];

/** "1 year old", "6-8 year olds", "18-month-old", "3 yo", "ages 3-5", "age 4". */
const ASKED: [RegExp, (m: RegExpMatchArray) => AgeRange][] = [
  [new RegExp(String.raw`\b${NUMBER}\s*${UNTIL}\s*${NUMBER}[\s-]*${UNIT}[\s-]*olds?\b`, "i"), (m) => between(m[1]!, m[2]!, m[3])],
  [new RegExp(String.raw`\b${NUMBER}[\s-]*${UNIT}[\s-]*olds?\b`, "i"), (m) => between(m[1]!, m[1]!, m[2])],
  [new RegExp(String.raw`\b${NUMBER}\s*yo\b`, "i"), (m) => between(m[1]!, m[1]!, undefined)],
  [new RegExp(String.raw`\bages?\s+${NUMBER}\s*${UNTIL}\s*${NUMBER}(?:\s*${UNIT})?\b`, "i"), (m) => between(m[1]!, m[2]!, m[3])],
  [new RegExp(String.raw`\bage[sd]?\s+${NUMBER}(?:\s*${UNIT})?\b(?!\s*(?:${UNTIL}|\+|and\s))`, "i"), (m) => between(m[1]!, m[1]!, m[2])],
];

/** The ages a query asks for, or null when it names none. */
export function askedAges(query: string): AskedAges | null {
  for (const [pattern, read] of ASKED) {
    const match = query.match(pattern);
    if (match) return { ...read(match), text: match[0], index: match.index ?? 0, counted: true };
  }
  for (const [pattern, range] of STAGES) {
    const match = query.match(pattern);
    if (match) return { ...range, text: match[0], index: match.index ?? 0, counted: false };
  }
  return null;
}

const WHO = `(?:children|kids|child|babies|infants|ages?|aged)`;

/** Statements of the ages a product suits, each read as a range. */
const STATED: [RegExp, (m: RegExpMatchArray) => AgeRange][] = [
  // "for children aged 3 to 6", "children from 3 to 8 years", "ages 2-4"
  [
    new RegExp(String.raw`\b${WHO}\s+(?:aged\s+|from\s+|of\s+)?${NUMBER}\s*${UNTIL}\s*${NUMBER}(?:\s*${UNIT})?`, "gi"),
    (m) => between(m[1]!, m[2]!, m[3]),
  ],
  // "from 6 to 36 months" (a unit is needed: "a seat from 30 to 40 cm" is no age)
  [new RegExp(String.raw`\bfrom\s+${NUMBER}\s*${UNTIL}\s*${NUMBER}\s*${UNIT}\b`, "gi"), (m) => between(m[1]!, m[2]!, m[3])],
  // "not suitable for children under three", "not recommended for babies under 6 months"
  [
    new RegExp(
      String.raw`\bnot\s+(?:suitable|recommended|intended|for)\s+(?:for\s+)?(?:use\s+by\s+)?${WHO}?\s*(?:under|below|younger than|less than)\s+(?:the\s+age\s+of\s+)?${NUMBER}(?:\s*${UNIT})?`,
      "gi",
    ),
    (m) => fromAge(m[1]!, m[2]),
  ],
  // "Age: 18 months+", "ages 3+", "aged 5 and up"
  [new RegExp(String.raw`\b(?:ages?|aged)\s*:?\s*${NUMBER}(?:\s*${UNIT})?\s*${AND_UP}`, "gi"), (m) => fromAge(m[1]!, m[2])],
  // "3+ years", "18 months and up", "from 12 months"
  [new RegExp(String.raw`\b${NUMBER}\s*(?:\+\s*${UNIT}|${UNIT}\s*${AND_UP})`, "gi"), (m) => fromAge(m[1]!, m[2] ?? m[3])],
  [new RegExp(String.raw`\b(?:for|suitable)\s+(?:children\s+|kids\s+)?from\s+${NUMBER}\s*${UNIT}(?!\s*${UNTIL})`, "gi"), (m) => fromAge(m[1]!, m[2])],
];

/** The ages a product's text says it suits (every statement at once), or null when it states none. */
export function statedAges(text: string): AgeRange | null {
  let range: AgeRange | null = null;
  for (const [pattern, read] of STATED) {
    for (const match of text.matchAll(pattern)) {
      const stated = read(match);
      if (!(stated.from < stated.to)) continue;
      range = range ? { from: Math.max(range.from, stated.from), to: Math.min(range.to, stated.to) } : stated;
    }
  }
  // Statements that contradict each other say nothing usable.
  return range && range.from < range.to ? range : null;
}

/** A name for men or women ("…, Men's", "Women's …", "Ladies'"): made for grown-ups, from 13 years. */
const GROWN_UP = /\b(?:men|women|ladies|mens|womens)(?:['’]s?)?(?![\p{L}])/iu;

/**
 * The ages a product suits by its text (statedAges), or else from 13 years when its name is for men or women: the
 * men's running shoes are no answer for "a 7 year old boy", who wears the kids' ones; or else the stages of childhood
 * its category or name names: the toddlers' activity cube is no answer for "toys for a 5 year old".
 */
export function productAges(name: string, desc: string, category: string | null = null): AgeRange | null {
  return (
    statedAges(`${name}. ${desc}`) ??
    (GROWN_UP.test(name) ? { from: 13 * 12, to: Infinity } : null) ??
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
  const named = LABELS.filter(([pattern]) => pattern.test(text));
  if (named.length === 0 || (!category && named.length === 1 && named[0]![0] === BABY)) return null;
  return { from: Math.min(...named.map(([, range]) => range.from)), to: Math.max(...named.map(([, range]) => range.to)) };
}

/** Whether the ages stated leave out every age asked. */
export function excludes(stated: AgeRange, asked: AgeRange): boolean {
  return stated.from >= asked.to || stated.to <= asked.from;
}
