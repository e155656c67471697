/**
 * The analyse stage: `q` read once. Constraints written in it become filters (interpret.ts: prices, stock, a brand,
 * words not wanted); the words left are read for what they stand for (understand.ts: typos corrected to the catalog's
 * words, synonyms, kinds, ages). Every later stage reads the plan, never the raw string.
 */
import type { SearchParams } from "../../../shared/schemas/index.js";
import { type BrandIndex, interpret, NEEDS_CURRENCY, type Reading, spelledOut } from "../interpret.js";
import { type HeldAttributes, readAttributes } from "../attributes.js";
import { withoutAccents, wordsIn } from "../lexical.js";
import { NO_SYNONYMS, type SynonymSet } from "../synonyms.js";
import { type QueryPlan, understand } from "../understand.js";
import type { Vocabulary } from "../vocabulary.js";
import type { RetrievalBudget } from "./budget.js";
import type { SearchContext } from "./context.js";
import type { ModelReading, QueryModel } from "./model-reading.js";
import { matchedUnpriced } from "./page.js";

export interface CatalogFacts {
  brands(): Promise<BrandIndex>;
  currencies(): Promise<string[]>;
  /** The audiences and colours the catalog's products state: the only ones a query's words are read as. */
  held(): Promise<HeldAttributes>;
  vocabulary(): Promise<Vocabulary>;
  synonyms: SynonymSet;
  /** The catalog's language: a query in another is read through the lexicons (languages/reading.ts). */
  language(): Promise<string>;
  /** The languages enough of the catalog is in: the query's words are searched in each. */
  languages(): Promise<string[]>;
  /** A language model that reads queries (QUERY_ANALYSER=model); absent: the rules alone. */
  queryModel?: QueryModel;
}

/** Who read the query: the rules; a model; or the rules because the model failed (`reason` says how). */
export type Analyser = { name: "rules" } | { name: "model" } | { name: "rules_fallback"; reason: string };

export interface Analysis {
  /** The words searched, constraints taken out; undefined when nothing is left to search (browse). */
  query: string | undefined;
  reading: Reading | null;
  plan: QueryPlan | null;
  /** The same reading for other words (a query without some of its words). */
  planOf: (words: string) => Promise<QueryPlan>;
  /** The parameters with the constraints read from `q`. */
  read: SearchParams;
  analyser: Analyser;
  /** The model's reading, when it was used. */
  model?: ModelReading;
}

export async function analyse(params: SearchParams, facts: CatalogFacts): Promise<Analysis> {
  // Postgres text cannot hold NUL; it carries no meaning in a query anyway.
  const q = (params.q && spelledOut(params.q.replaceAll("\u0000", " ")).trim()) || undefined;
  // The model reads while the rules do; the rules' reading stands whenever the model's cannot be used.
  const asked = q && params.parse_query && facts.queryModel ? facts.queryModel.read(q) : undefined;
  const interpreted =
    q && params.parse_query ? interpret({ ...params, q }, await facts.brands(), await facts.currencies(), await facts.held()) : null;
  const query = interpreted ? interpreted.query || undefined : q;
  const avoid = interpreted?.avoid.map((avoided) => avoided.word);
  const planOf = async (words: string) =>
    understand(words, {
      vocabulary: params.typos ? await facts.vocabulary() : null,
      synonyms: params.synonyms ? facts.synonyms : NO_SYNONYMS,
      avoid,
      catalogLanguage: await facts.language(),
      catalogLanguages: await facts.languages(),
    });
  const plan = query ? await planOf(query) : null;
  // The scene a request sets ("my daughter is turning 4 …") tells the sentence encoder what kind of thing is meant.
  if (plan && interpreted?.context) plan.embedText = `${interpreted.context} ${plan.embedText}`;
  const reading = query && plan && params.parse_query ? readTranslated(interpreted, query, plan, params, await facts.held()) : interpreted;
  const rules: Analysis = { query, reading, plan, planOf, read: { ...params, ...reading?.adds }, analyser: { name: "rules" } };
  const outcome = await asked;
  if (!outcome) return rules;
  if ("fallback" in outcome) return { ...rules, analyser: { name: "rules_fallback", reason: outcome.fallback } };
  return withModelReading(rules, outcome.reading, facts);
}

/**
 * Whom and what colour, in words of another language the lexicons read ("donsjas voor *heren*": men): read from their
 * reading as from the catalog's own words, where the query's words set neither; shown with the words as typed.
 */
function readTranslated(interpreted: Reading | null, query: string, plan: QueryPlan, params: SearchParams, held: HeldAttributes) {
  if (plan.translations.length === 0) return interpreted;
  const reading = interpreted ?? { query, adds: {}, applied: [], notApplied: [], avoid: [] };
  const read = readAttributes(plan.translations.map((t) => t.to[0]).join(" "), { ...params, ...reading.adds }, held);
  const typed = (text: string) => plan.translations.find((t) => t.to.some((to) => to.split(" ").includes(text)))?.from ?? text;
  for (const shown of read.applied) {
    if (shown.filter === "audience" && reading.adds.audience === undefined) reading.adds.audience = read.adds.audience;
    else if (shown.filter === "colour" && reading.adds.colour === undefined) reading.adds.colour = read.adds.colour;
    else continue;
    reading.applied.push({ ...shown, text: shown.text.split(" ").map(typed).join(" ") });
  }
  const audience = (shown: { filter: string }) => shown.filter === "audience";
  unsearch(plan, {
    typed: (interpreted?.applied ?? []).filter(audience).flatMap((shown) => shown.text.split(" ")),
    translated: read.applied.filter(audience).flatMap((shown) => shown.text.split(" ")),
  });
  return reading.applied.length > 0 || interpreted ? reading : null;
}

/**
 * A word read as whom a product is for is not searched too, as the catalog language's sexes and ages are not: "voor de
 * baby" filters on babies, and a soft toy for them need not say "baby". Only words read whole as the audience, as
 * typed (an English word the rules read) or as translated. A colour stays searched, as it does in the catalog's
 * language ("argent" is a silver page's word).
 */
function unsearch(plan: QueryPlan, applied: { typed: readonly string[]; translated: readonly string[] }): void {
  const spans = plan.forms.filter(
    (form) =>
      form.kind === "translation" &&
      (form.words.every((word) => applied.translated.includes(word)) ||
        plan.words.slice(form.start, form.end).every((word) => applied.typed.includes(word))),
  );
  plan.forms = plan.forms.filter((form) => !spans.some((span) => form.start >= span.start && form.end <= span.end));
}

/**
 * The model's reading in the analysis: its words are searched (with its other names beside them, as synonyms are) and
 * read by the sentence encoder; its constraints apply only where the rules read none and only as the catalog allows
 * (a currency it prices in, a brand it has).
 */
async function withModelReading(rules: Analysis, model: ModelReading, facts: CatalogFacts): Promise<Analysis> {
  const searched = model.searched.trim();
  if (!searched) return { ...rules, analyser: { name: "rules_fallback", reason: "the model found nothing to search" } };
  const plan = await rules.planOf(searched);
  const also = model.also.map(wordsIn).filter((alsoWords) => alsoWords.length > 0 && alsoWords.join(" ") !== plan.words.join(" "));
  for (const alsoWords of also) plan.forms.push({ start: 0, end: plan.words.length, words: alsoWords, kind: "synonym" });
  if (also.length > 0) plan.synonyms.push({ from: searched, to: also.map((alsoWords) => alsoWords.join(" ")) });
  const read = { ...rules.read, ...(await modelConstraints(rules, model, facts)) };
  return { ...rules, query: searched, plan, read, analyser: { name: "model" }, model };
}

async function modelConstraints(rules: Analysis, model: ModelReading, facts: CatalogFacts): Promise<Partial<SearchParams>> {
  const { read, reading } = rules;
  const adds: Partial<SearchParams> = {};
  const shown = (filter: string, value: string) => reading?.applied.push({ filter, value, text: "(read by the model)" });
  const { price_min, price_max, currency, in_stock, brand } = model.constraints;
  const priced = read.price_min === undefined && read.price_max === undefined && (price_min !== null || price_max !== null);
  const asked = read.currency ?? currency;
  if (priced && asked && (await facts.currencies()).includes(asked)) {
    adds.currency = asked;
    if (price_min !== null) adds.price_min = String(price_min);
    if (price_max !== null) adds.price_max = String(price_max);
    if (price_min !== null) shown("price_min", `${price_min} ${asked}`);
    if (price_max !== null) shown("price_max", `${price_max} ${asked}`);
  }
  if (in_stock && !read.availability) {
    adds.availability = ["in_stock"];
    shown("availability", "in_stock");
  }
  // As the brand index keys a name: its words without accents.
  const known = brand ? (await facts.brands()).byWords.get(wordsIn(brand).map(withoutAccents).join(" ")) : undefined;
  if (known && !read.brand) {
    adds.brand = [known];
    shown("brand", known);
  }
  return adds;
}

/**
 * A price order asked in words without a currency ("cheapest headphones", where the catalog prices in several) is in
 * the currency every product the words match is priced in, when there is one; else the reason names theirs, for the
 * caller to choose. One more search, only then.
 */
export async function priceOrderOf(
  ctx: SearchContext,
  analysis: Analysis,
  budget: RetrievalBudget,
): Promise<Pick<SearchParams, "sort" | "currency">> {
  const { reading, query, plan, read } = analysis;
  const order = reading?.notApplied.find((entry) => entry.reason === NEEDS_CURRENCY);
  if (!reading || !query || !plan || !order || !budget.spend()) return {};
  budget.unpriced = await matchedUnpriced(ctx, query, plan, read);
  const currencies = budget.unpriced.map(({ currency }) => currency).sort();
  if (currencies.length !== 1) {
    if (currencies.length > 1) order.reason = `${NEEDS_CURRENCY}; the products matched are priced in ${currencies.join(", ")}`;
    return {};
  }
  reading.notApplied = reading.notApplied.filter((entry) => entry !== order);
  reading.applied.push({ filter: order.filter, value: order.value, text: order.text });
  return { sort: order.value === "price_asc" ? "price_asc" : "price_desc", currency: currencies[0] };
}
