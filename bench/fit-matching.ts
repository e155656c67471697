/**
 * Fits the matcher's weights and threshold (issue 50):
 *
 *   npm run fit:matching            fit on the shared half's "fit" part and write server/matching/settings.json
 *   npm run fit:matching -- --dry   print, write nothing
 *
 * Only the "fit" part (bench/matching-data.ts: components of the labelled pairs, split by a hash of their smallest
 * id) is read for fitting: its candidate pairs (the records each is compared with in the catalog) labelled same or
 * not by matches.csv train a logistic regression over the pair's features (L2-regularised, gradient descent, from
 * zero); then the threshold is the one that gives the fit part its highest pairwise F1 (the mean of the part as it is
 * and of the part "sparse", without the buy.com records of half its products: see `sparse`) among thresholds with a
 * precision of at least 0.97 in both after groups are formed. The "report" part is scored with the result and printed,
 * never read to choose anything.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import type { MatchInput } from "../server/matching/keys.js";
import { judgeCandidates, matchRecords } from "../server/matching/match.js";
import { pairFeatures, probability } from "../server/matching/score.js";
import { idfOver } from "../server/matching/score.js";
import { MATCH_SETTINGS_PATH, type MatchFeature, type MatchSettings, type MatchWeights, loadMatchSettings } from "../server/matching/settings.js";
import { matchKeys } from "../server/matching/keys.js";
import { DEFAULT_DATA, importAndRead, loadMatchingData, pairKey, pairsOfGroups, scorePairs, sparse, splitParts } from "./matching-data.js";

const ROOT = resolve(import.meta.dirname, "..");
const MIN_PRECISION = 0.97;
const L2 = 0.001;
const { values } = parseArgs({ options: { dry: { type: "boolean", default: false } } });

/** The imported records, kept between runs: importing and encoding them takes half a minute. */
async function inputsCached(): Promise<MatchInput[]> {
  const { records } = loadMatchingData(DEFAULT_DATA);
  const key = createHash("sha256")
    .update(JSON.stringify(records))
    .update(readFileSync(join(ROOT, "drizzle", "meta", "_journal.json")))
    .digest("hex")
    .slice(0, 16);
  const file = join(ROOT, "bench", ".cache", `matching-${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as MatchInput[];
  const embedder = await createLocalEmbedder();
  const inputs = await importAndRead(records, embedder);
  await embedder.close();
  mkdirSync(join(ROOT, "bench", ".cache"), { recursive: true });
  writeFileSync(file, JSON.stringify(inputs));
  return inputs;
}

function fitWeights(rows: { x: Record<MatchFeature, number>; y: number }[], start: MatchWeights): MatchWeights {
  const names = Object.keys(start).filter((name) => name !== "bias") as MatchFeature[];
  const w: MatchWeights = { ...start, bias: 0, ...Object.fromEntries(names.map((name) => [name, 0])) };
  const rate = 2;
  for (let epoch = 0; epoch < 3000; epoch++) {
    const grad: Record<string, number> = { bias: 0 };
    for (const name of names) grad[name] = L2 * w[name];
    for (const { x, y } of rows) {
      const error = probability(x, w) - y;
      grad.bias! += error / rows.length;
      for (const name of names) grad[name]! += (error * x[name]) / rows.length;
    }
    w.bias -= rate * grad.bias!;
    for (const name of names) w[name] -= rate * grad[name]!;
  }
  return Object.fromEntries(Object.entries(w).map(([name, value]) => [name, Math.round(value * 1000) / 1000])) as MatchWeights;
}

const { truth } = loadMatchingData(DEFAULT_DATA);
const inputs = await inputsCached();
const parts = splitParts(
  inputs.map((input) => input.id),
  truth,
);
const fitPart = inputs.filter((input) => parts.get(input.id) === "fit");
const reportPart = inputs.filter((input) => parts.get(input.id) === "report");
const base = loadMatchSettings();

const candidates = judgeCandidates(fitPart, base);
const labelledFit = [...truth].filter((pair) => pair.split(" ").every((id) => parts.get(id) === "fit"));
const found = new Set(candidates.map(({ a, b }) => pairKey(a.id, b.id)));
console.log(
  `fit part: ${fitPart.length} records, ${candidates.length} candidate pairs, ${labelledFit.filter((p) => found.has(p)).length}/${labelledFit.length} labelled pairs among them`,
);

const keys = fitPart.map((input) => matchKeys(input, base));
const idf = idfOver(keys);
const rows = candidates
  .filter(({ verdict }) => verdict.rule === "score")
  .map(({ a, b }) => ({ x: pairFeatures(a, b, idf, base), y: truth.has(pairKey(a.id, b.id)) ? 1 : 0 }));
const weights = fitWeights(rows, base.weights);
console.log("weights:", JSON.stringify(weights));

function scoreWith(settings: MatchSettings, part: MatchInput[]) {
  return scorePairs(pairsOfGroups(matchRecords(part, settings)), truth, new Set(part.map((input) => input.id)));
}
// In this data nearly every record has its match, which no threshold is needed for; a catalog is mostly products
// one merchant sells. The threshold must also hold where half of one shop's products are missing.
const fitSparse = sparse(fitPart);
let best = { threshold: base.threshold, f1: -1 };
for (let t = 0.01; t < 0.99; t += 0.01) {
  const threshold = Math.round(t * 100) / 100;
  const [full, thin] = [scoreWith({ ...base, weights, threshold }, fitPart), scoreWith({ ...base, weights, threshold }, fitSparse)];
  const f1 = (full.f1 + thin.f1) / 2;
  if (full.precision >= MIN_PRECISION && thin.precision >= MIN_PRECISION && f1 > best.f1) best = { threshold, f1 };
}
const fitted: MatchSettings = { ...base, weights, threshold: best.threshold };
const show = (label: string, part: MatchInput[]) => {
  const s = scoreWith(fitted, part);
  console.log(`${label}: P ${s.precision.toFixed(3)} R ${s.recall.toFixed(3)} F1 ${s.f1.toFixed(3)}`);
};
console.log(`threshold ${best.threshold}`);
show("fit part             ", fitPart);
show("fit part, sparse     ", fitSparse);
show("report part          ", reportPart);
show("report part, sparse  ", sparse(reportPart));
if (!values.dry) {
  writeFileSync(MATCH_SETTINGS_PATH, `${JSON.stringify(fitted, null, 2)}\n`);
  console.log(`wrote ${MATCH_SETTINGS_PATH.pathname}`);
}
