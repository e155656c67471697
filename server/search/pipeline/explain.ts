/**
 * The explain stage: what the answer says of how the query was read (`interpretation`) and, with `explain=true`, why
 * each product matched.
 */
import type { Explain, Interpretation, SearchParams } from "../../../shared/schemas/index.js";
import type { ParsedQuery } from "../../../shared/schemas/search.js";
import { fieldLexemes, stemsIn } from "../browse.js";
import { describeFilters } from "../filters.js";
import { parseTsvector } from "../lexical.js";
import type { QueryPlan } from "../understand.js";
import { parsedQuery } from "../rules/report.js";
import type { Analysis } from "./analyse.js";
import type { SearchContext, SearchHitResult } from "./context.js";
import type { Page } from "./page.js";

/**
 * The interpretation, when constraints were read, a typo corrected, a synonym applied, ages or unwanted words read, a
 * model asked (`analyser`), a query read in another language, or `explain=true` (the whole parsed query).
 * `answered`: whether the answer holds products. A query in no language known that matched nothing is answered
 * exactly `{"products":[]}` (docs/api.md): naming its words as not read adds nothing to an empty answer.
 */
export function interpretationOf(analysis: Analysis, explain: boolean, answered: boolean): Interpretation | undefined {
  const { reading, plan, query, analyser, model } = analysis;
  const modelAsked = analyser.name !== "rules";
  const parsed = explain && plan && query ? parsedOf(analysis) : undefined;
  const otherLanguage = plan !== null && plan.language.query !== plan.language.catalog && (answered || plan.language.query !== null);
  const noted = plan && (otherLanguage || plan.corrections.length > 0 || plan.synonyms.length > 0 || plan.goesWith.length > 0 || plan.ages);
  if (!reading && !noted && !modelAsked && !parsed) return undefined;
  return {
    query: model ? (query ?? "") : reading ? reading.query : (query ?? ""),
    applied: reading?.applied ?? [],
    ...(reading && reading.notApplied.length > 0 ? { not_applied: reading.notApplied } : {}),
    ...(plan && plan.corrections.length > 0 ? { corrections: plan.corrections } : {}),
    ...(plan && plan.synonyms.length > 0 ? { synonyms: plan.synonyms } : {}),
    ...(plan && plan.goesWith.length > 0 ? { goes_with: plan.goesWith } : {}),
    ...(plan?.ages ? { ages: { text: plan.ages.text, from_months: plan.ages.from, to_months: plan.ages.to } } : {}),
    ...(reading && reading.avoid.length > 0 ? { avoided: reading.avoid } : {}),
    ...(otherLanguage ? { language: plan.language } : {}),
    ...(plan && plan.translations.length > 0 ? { translations: plan.translations } : {}),
    ...(otherLanguage && plan.unread.length > 0 ? { not_read: plan.unread } : {}),
    ...(modelAsked ? { analyser: analyser.name } : {}),
    ...(parsed ? { parsed } : {}),
  };
}

/** The parsed query the stages read: the rules' reading, with what the model read over it. */
function parsedOf({ reading, plan, query, model }: Analysis): ParsedQuery {
  const parsed = parsedQuery(query!, reading, query!, plan!, null);
  return model ? { ...parsed, language: model.language, also: model.also, kind: model.kind ?? parsed.kind } : parsed;
}

/** Each word of every form, and the query words (as typed) it stands for. */
function standsForOf(plan: QueryPlan | null): Map<string, Set<string>> {
  const standsFor = new Map<string, Set<string>>();
  for (const form of plan?.forms ?? []) {
    for (const word of form.words) {
      const typed = standsFor.get(word) ?? new Set<string>();
      for (const original of plan!.words.slice(form.start, form.end)) typed.add(original);
      standsFor.set(word, typed);
    }
  }
  return standsFor;
}

/** Fills in why each hit matched (`explain=true`). */
export async function explainHits(
  ctx: SearchContext,
  hits: SearchHitResult[],
  plan: QueryPlan | null,
  params: SearchParams,
  scores: Page["scores"],
): Promise<void> {
  const read = ctx.read();
  const words = plan ? [...new Set(plan.words)] : [];
  const standsFor = standsForOf(plan);
  // Each word's stems in each of the plan's languages.
  const texts = [...standsFor.keys()].flatMap((text) => [...new Set(plan?.languages)].map((language) => ({ language, text })));
  const [stems, fields] = await Promise.all([
    stemsIn(read, texts),
    fieldLexemes(
      read,
      hits.map((hit) => hit.product.id),
    ),
  ]);
  const byWord = new Map<string, string[][]>();
  for (const [i, { text }] of texts.entries()) byWord.set(text, [...(byWord.get(text) ?? []), stems[i]!]);
  const fieldsById = new Map(fields.map((row) => [row.id, row]));
  const filters = describeFilters(params);
  for (const hit of hits) {
    const row = fieldsById.get(hit.product.id);
    const matchedFields: Explain["matched"]["fields"] = [];
    const matchedWords = new Set<string>();
    for (const field of ["name", "brands", "desc", "category"] as const) {
      const lexemes = new Set(parseTsvector(row?.[field] ?? "").map((term) => term.lexeme));
      let any = false;
      // A word with several stems matches where all are: "over-ear" in "Over-Ear", not in the "ear" of "On-Ear".
      for (const [word, readings] of byWord) {
        if (readings.some((stems) => stems.length > 0 && stems.every((lexeme) => lexemes.has(lexeme)))) {
          any = true;
          for (const typed of standsFor.get(word) ?? []) matchedWords.add(typed);
        }
      }
      if (any) matchedFields.push(field);
    }
    const id = hit.product.id;
    hit.explain = {
      matched: { fields: matchedFields, words: words.filter((word) => matchedWords.has(word)) },
      scores: { lexical: scores?.lexical.get(id) ?? null, semantic: scores?.semantic.get(id) ?? null, rerank: scores?.rerank?.get(id) ?? null },
      filters,
    };
  }
}
