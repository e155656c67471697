/**
 * The matcher's settings (settings.json), read once against their schema: the word lists the keys are read with,
 * the fitted weights and threshold, and how many candidates a record is compared with.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { parseJsonFile } from "../data-file.js";

const Word = z.string().regex(/^[a-z0-9]+$/, "must be lower-case letters and digits");

export const MatchWeightsSchema = z.strictObject({
  bias: z.number(),
  code_equal: z.number(),
  code_prefix: z.number(),
  code_stem: z.number(),
  code_conflict: z.number(),
  name_cosine: z.number(),
  vector_cosine: z.number(),
  brand_same: z.number(),
  brand_differ: z.number(),
});
export type MatchWeights = z.infer<typeof MatchWeightsSchema>;
export type MatchFeature = Exclude<keyof MatchWeights, "bias">;

export const MatchSettingsSchema = z.strictObject({
  $comment: z.string().optional(),
  /** Words a manufacturer's name may end with that say nothing of the brand ("LG Electronics" is LG). */
  brand_suffixes: z.array(Word),
  /** Units a number may carry ("8GB", "1080p"): a measure, not a model code. */
  units: z.array(Word),
  code: z.strictObject({
    /** The shortest model code, in letters and digits. */
    min_length: z.number().int().min(2).max(10),
    /** A code at least this long names one product: two records with such codes and none shared disagree. */
    strong_length: z.number().int().min(3).max(20),
    /** A code that is another's prefix but for at most this many characters (a colour or region suffix) matches it. */
    prefix_extra: z.number().int().min(0).max(6),
  }),
  weights: MatchWeightsSchema,
  /** The probability from which a candidate pair is the same product. */
  threshold: z.number().gt(0).lt(1),
  candidates: z.strictObject({
    /** Nearest vectors of other merchants compared with a record. */
    neighbours: z.number().int().min(0).max(200),
    /** Records compared per shared GTIN, MPN or model code; a key more records share than this names no product. */
    per_key: z.number().int().min(1).max(1000),
  }),
});
export type MatchSettings = z.infer<typeof MatchSettingsSchema>;

export const MATCH_SETTINGS_PATH = new URL("./settings.json", import.meta.url);

export function loadMatchSettings(path: URL | string = MATCH_SETTINGS_PATH): MatchSettings {
  return parseJsonFile(MatchSettingsSchema, readFileSync(path, "utf8"), String(path));
}

let loaded: MatchSettings | undefined;

/** The shipped settings, read once (the file is part of the code: it changes with a release, not at run time). */
export function shippedMatchSettings(): MatchSettings {
  loaded ??= loadMatchSettings();
  return loaded;
}

/** Which settings matched a record (`products.matched_with`): records matched with others are what `catalog rematch` does. */
export function settingsFingerprint(settings: MatchSettings): string {
  const { $comment: _comment, ...rest } = settings;
  return createHash("sha256").update(JSON.stringify(rest)).digest("hex").slice(0, 16);
}
