/**
 * Blind query sets (bench/blind/*.json, format in bench/blind/README.md): queries written from a catalog's product
 * list alone, by someone who never saw the search code or earlier sets, with the wanted and never-wanted products
 * decided before any search ran. How an answer to each is scored, and the table bench:relevance and bench:blind print.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const BLIND_KINDS = ["plain", "constraints", "typos", "agent", "gifts", "not-sold", "language"] as const;
export type BlindKind = (typeof BLIND_KINDS)[number];

const BlindQuerySchema = z.object({
  q: z.string().min(1),
  kind: z.enum(BLIND_KINDS),
  lang: z.string().min(2).optional(),
  grades: z.record(z.string(), z.number().int().min(1).max(3)),
  never: z.array(z.string()).default([]),
  note: z.string().optional(),
});
export type BlindQuery = z.infer<typeof BlindQuerySchema>;

const BlindSetSchema = z.object({
  set: z.string().min(1),
  catalog: z.enum(["sample", "pdp"]),
  written: z.string(),
  author_note: z.string().optional(),
  queries: z.array(BlindQuerySchema).min(1),
});
export type BlindSet = z.infer<typeof BlindSetSchema>;

export const BLIND_DIR = fileURLToPath(new URL("blind/", import.meta.url));

/** Every set in `dir`, or the files named; a set that does not parse is refused with its file and path. */
export function loadBlindSets(files?: readonly string[]): BlindSet[] {
  const paths = files?.length
    ? files
    : readdirSync(BLIND_DIR)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => join(BLIND_DIR, f));
  return paths.map((path) => {
    const parsed = BlindSetSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    if (!parsed.success) throw new Error(`${path}: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  });
}

/** One answer as the bench saw it: the products' URLs in order and the answer's message codes. */
export interface BlindAnswer {
  urls: readonly string[];
  messages: readonly string[];
}

export interface BlindScore {
  pass: boolean;
  /** nDCG@5 over the graded products; null for a query for something not sold. */
  ndcg5: number | null;
  /** A query for something sold answered with nothing. */
  wrongEmpty: boolean;
}

const sold = (query: BlindQuery) => query.kind !== "not-sold";

function dcg(gains: readonly number[]): number {
  return gains.reduce((sum, gain, i) => sum + (2 ** gain - 1) / Math.log2(i + 2), 0);
}

export function ndcgAt5(urls: readonly string[], grades: ReadonlyMap<string, number>): number {
  const ideal = dcg([...grades.values()].sort((a, b) => b - a).slice(0, 5));
  return ideal === 0 ? 0 : dcg(urls.slice(0, 5).map((url) => grades.get(url) ?? 0)) / ideal;
}

/**
 * A query for something sold passes when a product graded 3 is in the first three and no never-wanted product is in
 * the first five. A query for something not sold passes when the answer is empty, holds only products its grades
 * accept, or says its matches are weak (`weak_matches`) with no never-wanted product in the first five.
 */
export function scoreBlind(query: BlindQuery, answer: BlindAnswer): BlindScore {
  const grades = new Map(Object.entries(query.grades));
  const top5 = answer.urls.slice(0, 5);
  const neverShown = top5.some((url) => query.never.includes(url));
  if (!sold(query)) {
    const onlyAccepted = top5.every((url) => grades.has(url));
    return { pass: !neverShown && (onlyAccepted || answer.messages.includes("weak_matches")), ndcg5: null, wrongEmpty: false };
  }
  const bestInTop3 = answer.urls.slice(0, 3).some((url) => grades.get(url) === 3);
  return { pass: bestInTop3 && !neverShown, ndcg5: ndcgAt5(answer.urls, grades), wrongEmpty: answer.urls.length === 0 };
}

export interface BlindRow {
  label: string;
  queries: number;
  passed: number;
  ndcg5: number | null;
  wrongEmpty: number;
}

function row(label: string, scores: readonly BlindScore[]): BlindRow {
  const graded = scores.flatMap((s) => (s.ndcg5 === null ? [] : [s.ndcg5]));
  return {
    label,
    queries: scores.length,
    passed: scores.filter((s) => s.pass).length,
    ndcg5: graded.length ? graded.reduce((a, b) => a + b, 0) / graded.length : null,
    wrongEmpty: scores.filter((s) => s.wrongEmpty).length,
  };
}

/** One row per kind the set holds, then the whole set. */
export function summariseBlind(set: BlindSet, answers: readonly BlindAnswer[]): BlindRow[] {
  const scored = set.queries.map((query, i) => ({ query, score: scoreBlind(query, answers[i]!) }));
  const kinds = BLIND_KINDS.filter((kind) => scored.some((s) => s.query.kind === kind));
  return [
    ...kinds.map((kind) =>
      row(
        kind,
        scored.filter((s) => s.query.kind === kind).map((s) => s.score),
      ),
    ),
    row(
      "all",
      scored.map((s) => s.score),
    ),
  ];
}

export function blindTable(set: BlindSet, rows: readonly BlindRow[]): string[] {
  const lines = [`${set.set} (${set.catalog} catalog, written ${set.written}, ${set.queries.length} queries)`, ""];
  lines.push("| kind | queries | pass | pass rate | nDCG@5 | wrong empty answers |", "|---|---|---|---|---|---|");
  for (const r of rows) {
    const ndcg = r.ndcg5 === null ? "–" : r.ndcg5.toFixed(4);
    lines.push(`| ${r.label} | ${r.queries} | ${r.passed} | ${((100 * r.passed) / r.queries).toFixed(0)}% | ${ndcg} | ${r.wrongEmpty} |`);
  }
  return lines;
}

/** The queries a set's answers miss, each with its first five products (a set whose figure is recorded: a dev set). */
export function blindMisses(set: BlindSet, answers: readonly BlindAnswer[]): string[] {
  const short = (url: string) => url.replace(/^https?:\/\/(www\.)?/u, "").slice(0, 60);
  return set.queries.flatMap((query, i) => {
    const answer = answers[i]!;
    if (scoreBlind(query, answer).pass) return [];
    const wanted = Object.entries(query.grades)
      .filter(([, grade]) => grade === 3)
      .map(([url]) => short(url));
    const top = answer.urls.slice(0, 5).map((url) => `${query.never.includes(url) ? "NEVER " : ""}${query.grades[url] ?? 0}:${short(url)}`);
    const messages = answer.messages.length ? ` [${answer.messages.join(", ")}]` : "";
    return [`- (${query.kind}) "${query.q}"${messages}\n    wanted: ${wanted.join(" ; ") || "nothing"}\n    got: ${top.join(" ; ") || "nothing"}`];
  });
}
