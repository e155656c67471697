/**
 * The ranking weights and the relevance cut-off fitted to graded judgments by `npm run bench:fit` (bench/fit.ts),
 * read from fitted.json beside it and validated at load: a broken file is refused with its name and what is wrong.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseJsonFile } from "../../data-file.js";

const weight = z.number().min(0).max(100);

export const FittedSchema = z.strictObject({
  made: z.strictObject({
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/u),
    command: z.string().min(1),
    data: z.string().min(1),
    figures: z.record(z.string(), z.number()),
  }),
  /** The linear weights of the signals the dev queries can tell apart (ranking.ts `combine`). */
  weights: z.strictObject({
    bm25: weight,
    coverageAll: weight,
    phrase: weight,
    sequence: weight,
    cosine: weight,
    type: weight,
    headNamed: weight,
    accessory: weight,
  }),
  /**
   * A candidate is cut only when its relevance (its score without the signals that only order) is under
   * `relevance`, or `gap` under the best's, and nothing ties it to the query: its encoder similarity is under
   * `encoder` or less than `margin` over the candidates' median, and it covers less than `words` of the query.
   */
  cutOff: z.strictObject({
    relevance: z.number(),
    gap: z.number().positive(),
    encoder: z.number().min(0).max(1),
    margin: z.number().min(0).max(1),
    words: z.number().min(0).max(1),
  }),
});
export type Fitted = z.infer<typeof FittedSchema>;
export type CutOff = Fitted["cutOff"];

export const FITTED_PATH = fileURLToPath(new URL("fitted.json", import.meta.url));

/** Parses a fitted file's text; `source` names it in errors. */
export function parseFitted(text: string, source: string): Fitted {
  return parseJsonFile(FittedSchema, text, source);
}

export function loadFitted(path: string = FITTED_PATH): Fitted {
  return parseFitted(readFileSync(path, "utf8"), path);
}
