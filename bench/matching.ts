/**
 * Matching benchmark (issue 50):
 *
 *   npm run bench:matching                 the shared half (../shared/data/matching/abt-buy)
 *   npm run bench:matching -- --data DIR   another directory of the same three files
 *
 * Imports the two shops as two merchants (records abt-<id> on abt.example, buy-<id> on buy.example: name,
 * description, manufacturer as brand, price), matches them with the catalog's settings (server/matching/settings.json)
 * and prints pairwise precision, recall and F1 against matches.csv, beside a TF-IDF-over-names mutual-best-match
 * baseline computed in the same run. The weights and threshold were fitted on the "fit" part of the shared half
 * (bench/matching-data.ts says how it is split), so its "report" part is the figure to quote; each part is matched
 * on its own, as a catalog holding only those records would be. Offline: the local sentence encoder.
 */
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import type { MatchInput } from "../server/matching/keys.js";
import { matchRecords } from "../server/matching/match.js";
import { loadMatchSettings } from "../server/matching/settings.js";
import { dataDir, importAndRead, loadMatchingData, type PairScore, pairsOfGroups, scorePairs, splitParts, tfidfMutualBest } from "./matching-data.js";

const dir = dataDir();
const settings = loadMatchSettings();
const { records, truth } = loadMatchingData(dir);
const embedder = await createLocalEmbedder();
const started = performance.now();
const inputs = await importAndRead(records, embedder);
const importSeconds = (performance.now() - started) / 1000;
await embedder.close();
const parts = splitParts(
  inputs.map((input) => input.id),
  truth,
);

const format = (s: PairScore) =>
  `${s.precision.toFixed(3)}  ${s.recall.toFixed(3)}  ${s.f1.toFixed(3)}  (${s.correct}/${s.predicted} predicted, ${s.labelled} labelled)`;

function row(label: string, subset: readonly MatchInput[]): void {
  const ids = new Set(subset.map((input) => input.id));
  const t0 = performance.now();
  const matched = scorePairs(pairsOfGroups(matchRecords(subset, settings)), truth, ids);
  const ms = performance.now() - t0;
  const baseline = scorePairs(tfidfMutualBest(subset), truth, ids);
  console.log(`${label.padEnd(22)} matcher   P ${format(matched)}  [${ms.toFixed(0)} ms]`);
  console.log(`${"".padEnd(22)} tf-idf    P ${format(baseline)}`);
}

console.log(`data: ${dir}; ${inputs.length} records imported in ${importSeconds.toFixed(1)} s; threshold ${settings.threshold}`);
console.log(`${"part (records)".padEnd(22)} method    precision recall F1`);
row(
  `report (${inputs.filter((i) => parts.get(i.id) === "report").length})`,
  inputs.filter((i) => parts.get(i.id) === "report"),
);
row(
  `fit (${inputs.filter((i) => parts.get(i.id) === "fit").length})`,
  inputs.filter((i) => parts.get(i.id) === "fit"),
);
row(`all (${inputs.length})`, inputs);
