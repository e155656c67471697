/**
 * What the analyser makes of a query, for `catalog rules test` (docs/search/rules.md): the constraints read out of it
 * (interpret.ts), each word with its forms (understand.ts: as typed, corrected, synonyms), the kind asked
 * (product-type.ts), whom and what it is for (sexes, ages, species, bed sizes) and what is not wanted. It reads the
 * same functions a search does, with the rules in use, so an operator sees the effect of a rules file before a start.
 */
import type { z } from "zod";
import { SearchParamsSchema } from "../../../shared/schemas/params.js";
import { ParsedQuerySchema } from "../../../shared/schemas/search.js";
import { bedSizesAsked } from "../bed-sizes.js";
import { isEnglishWord, STOP_WORDS } from "../common-words.js";
import { type BrandIndex, interpret, type Reading, spelledOut } from "../interpret.js";
import { queryHead } from "../product-type.js";
import { sexesAsked } from "../sexes.js";
import { speciesIn } from "../species.js";
import type { SynonymSet } from "../synonyms.js";
import { type QueryPlan, understand } from "../understand.js";
import type { Vocabulary } from "../vocabulary.js";

/** The parsed query (shared/schemas/search.ts): what `rules test` prints and every stage of a search reads. */
export const QueryReportSchema = ParsedQuerySchema;
export type QueryReport = z.infer<typeof QueryReportSchema>;

export interface ReportDeps {
  synonyms: SynonymSet;
  /** The catalog's words (corrections), or null: none are read. */
  vocabulary: Vocabulary | null;
  brands: BrandIndex;
  currencies: readonly string[];
}

/** Flags of a form worth showing ("guessed": a correction of a word English has; "goes with": a kind going with the thing). */
const NOTES = ["prefix", "apart", "compound", "guessed", "either", "goesWith"] as const;

export function queryReport(query: string, deps: ReportDeps): QueryReport {
  const q = spelledOut(query).trim();
  const reading = q ? interpret({ ...SearchParamsSchema.parse({ q }), q }, deps.brands, deps.currencies) : null;
  const searched = reading ? reading.query : q;
  const plan = understand(searched, { vocabulary: deps.vocabulary, synonyms: deps.synonyms, avoid: reading?.avoid.map((a) => a.word) });
  return parsedQuery(query, reading, searched, plan, deps.vocabulary);
}

/** The parsed query from the rules' reading: the constraints (interpret.ts) and the words' forms (understand.ts). */
export function parsedQuery(query: string, reading: Reading | null, searched: string, plan: QueryPlan, vocabulary: Vocabulary | null): QueryReport {
  const spans = new Map<string, QueryReport["words"][number]>();
  // In the query's order, a run of words after the first of them.
  const forms = [...plan.forms].sort((a, b) => a.start - b.start || a.end - b.end);
  for (const form of forms) {
    const text = plan.words.slice(form.start, form.end).join(" ");
    const span = spans.get(`${form.start}-${form.end}`) ?? { text, forms: [] };
    span.forms.push({ kind: form.kind, words: form.words.join(" "), notes: NOTES.filter((note) => form[note] === true) });
    spans.set(`${form.start}-${form.end}`, span);
  }
  // As the local reranker reads it, without the catalog's word counts: a word is content unless it is a stop word or
  // a word neither the catalog (any form) nor English has.
  const head = queryHead(
    plan.words,
    (i) => !STOP_WORDS.has(plan.words[i]!) && (isEnglishWord(plan.words[i]!) || (vocabulary?.count(plan.words[i]!) ?? 0) > 0),
  );
  return {
    query,
    language: plan.language.query,
    searched,
    also: [],
    words: [...spans.values()],
    constraints: [...(reading?.applied ?? []), ...(reading?.notApplied ?? [])],
    kind: head === undefined ? null : plan.words[head]!,
    sexes: [...sexesAsked(searched)],
    ages: plan.ages ? { text: plan.ages.text, fromMonths: plan.ages.from, toMonths: Number.isFinite(plan.ages.to) ? plan.ages.to : null } : null,
    species: [...speciesIn(searched)],
    bedSizes: [...bedSizesAsked(searched)],
    goesWith: plan.goesWith,
    notWanted: plan.avoid,
  };
}

/** The report as lines of text, one heading a line, empty parts left out. */
export function formatQueryReport(report: QueryReport): string[] {
  const lines = [`query: ${report.query}`];
  if (report.searched !== report.query) lines.push(`searched: ${report.searched || "(nothing: it browses)"}`);
  if (report.also.length > 0) lines.push(`also searched: ${report.also.join("; ")}`);
  lines.push("words:");
  const width = Math.max(0, ...report.words.map((word) => word.text.length));
  for (const word of report.words) {
    const forms = word.forms.map((form) => `${form.kind} ${form.words}${form.notes.length > 0 ? ` (${form.notes.join(", ")})` : ""}`);
    lines.push(`  ${word.text.padEnd(width)}  ${forms.join("; ")}`);
  }
  for (const constraint of report.constraints) {
    const why = constraint.reason === undefined ? "" : ` (not applied: ${constraint.reason})`;
    lines.push(`constraint: ${constraint.filter} = ${constraint.value} from "${constraint.text}"${why}`);
  }
  lines.push(`kind asked: ${report.kind ?? "(none)"}`);
  if (report.sexes.length > 0) lines.push(`sex: ${report.sexes.join(", ")}`);
  if (report.ages) lines.push(`ages: ${report.ages.fromMonths} to ${report.ages.toMonths ?? "any"} months, from "${report.ages.text}"`);
  if (report.species.length > 0) lines.push(`species: ${report.species.join(", ")}`);
  if (report.bedSizes.length > 0) lines.push(`bed size: ${report.bedSizes.join(", ")}`);
  for (const goes of report.goesWith) lines.push(`goes with ${goes.from}: ${goes.to.join(", ")}`);
  if (report.notWanted.length > 0) lines.push(`not wanted: ${report.notWanted.join(", ")}`);
  return lines;
}
