/**
 * Matching benchmark (issue 50):
 *
 *   npm run bench:matching                 the shared half (../shared/data/matching/abt-buy)
 *   npm run bench:matching -- --data DIR   another directory of the same three files
 *
 * Imports the two shops as two merchants (records abt-<id> on abt.example, buy-<id> on buy.example: name,
 * description, manufacturer as brand, price) into an in-memory catalog, which matches them as every import does
 * (server/matching, with the shipped settings.json), and prints pairwise precision, recall and F1 of the groups it
 * stored against matches.csv, beside a TF-IDF-over-names mutual-best-match baseline computed in the same run. The
 * weights and threshold were fitted on the "fit" part of the shared half (bench/matching-data.ts says how it is
 * split), so its "report" part is the figure to quote; each part is imported on its own, as a catalog holding only
 * those records. Then the import's throughput with matching and without, in the same run. Offline: the local encoder.
 */
import type { ImportRecord } from "../server/ingest/record.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import type { Embedder } from "../server/search/embedder.js";
import {
  dataDir,
  importCatalog,
  loadMatchingData,
  memoEmbedder,
  type PairScore,
  pairsOfGroups,
  readGroups,
  readInputs,
  scorePairs,
  splitParts,
  tfidfMutualBest,
} from "./matching-data.js";

const dir = dataDir();
const { records, truth } = loadMatchingData(dir);
const encoder = await createLocalEmbedder();
const embedder = memoEmbedder(encoder);

const format = (s: PairScore) =>
  `${s.precision.toFixed(3)}  ${s.recall.toFixed(3)}  ${s.f1.toFixed(3)}  (${s.correct}/${s.predicted} predicted, ${s.labelled} labelled)`;

async function row(label: string, subset: readonly ImportRecord[], encode: Embedder): Promise<number> {
  const { handle, seconds } = await importCatalog(subset, encode);
  try {
    const ids = new Set(subset.map((record) => record.id!));
    const matched = scorePairs(pairsOfGroups(await readGroups(handle)), truth, ids);
    const baseline = scorePairs(tfidfMutualBest(await readInputs(handle)), truth, ids);
    console.log(`${`${label} (${subset.length})`.padEnd(22)} matcher   ${format(matched)}`);
    console.log(`${"".padEnd(22)} tf-idf    ${format(baseline)}`);
    return seconds;
  } finally {
    await handle.close();
  }
}

console.log(`data: ${dir}`);
console.log(`${"part (records)".padEnd(22)} method    precision recall F1`);
// Without matching first (the encoder warms up on it), then the whole set with matching, both encoding every record:
// the two import times compared below.
const plain = await importCatalog(records, encoder, null);
await plain.handle.close();
const withMatching = await row("all", records, embedder);
const parts = splitParts(
  records.map((record) => record.id!),
  truth,
);
await row(
  "report",
  records.filter((record) => parts.get(record.id!) === "report"),
  embedder,
);
await row(
  "fit",
  records.filter((record) => parts.get(record.id!) === "fit"),
  embedder,
);
console.log(
  `import of ${records.length} records, encoding included: ${withMatching.toFixed(1)} s with matching, ${plain.seconds.toFixed(1)} s without (${(plain.seconds / withMatching).toFixed(2)}x the throughput)`,
);
await encoder.close();
