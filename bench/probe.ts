/**
 * npm run bench:probe -- QUERIES [DATA_DIR] — what the service answers (default configuration, the first five) for
 * each query of a file, one line each, to read by eye and to diff before and after a change to search. No grades and
 * no figures: the benchmark sets measure (bench:relevance); this shows what a shopper would see on queries nobody
 * graded. Without DATA_DIR, on the sample catalog (cached as bench:http builds it).
 *
 * bench/probe-queries/sample.txt holds shopper queries typed on the sample catalog; pdp.txt, queries typed on a
 * catalog imported from the team's saved pages, which the service was never tuned on:
 *
 *   DATA_DIR=/tmp/pdp SAMPLE_CATALOG=false npm run -s catalog -- import ../shared/data/pdp
 *   npm run -s bench:probe -- bench/probe-queries/pdp.txt /tmp/pdp
 *
 * crowdflower-fresh.txt, queries typed on the CrowdFlower catalog (none of its dev queries), on a copy of the catalog
 * bench:relevance builds:
 *
 *   cp -r bench/.cache/relevance-<hash>/pg /tmp/cf
 *   npm run -s bench:probe -- bench/probe-queries/crowdflower-fresh.txt /tmp/cf
 */
import { readFileSync } from "node:fs";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { openPglite } from "../server/db/open.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { sampleCatalog } from "./http-catalog.js";

const [queriesFile, dataDir] = process.argv.slice(2);
if (!queriesFile) {
  console.error("usage: npm run bench:probe -- QUERIES [DATA_DIR]");
  process.exit(2);
}
const queries = readFileSync(queriesFile, "utf8")
  .split("\n")
  .map((line) => line.trim())
  .filter(Boolean);
const embedder = await createLocalEmbedder();
const database = await openPglite(dataDir ?? (await sampleCatalog()).dataDir);
const root = createRoot(loadConfig({ SAMPLE_CATALOG: "false", LOG_LEVEL: "silent" }), { role: "cli", database: database.handle, embedder });
const { search } = await root.services();
for (const q of queries) {
  const { hits } = await search.search({ q, limit: 5, include_raw_data: false, parse_query: true, typos: true, synonyms: true, explain: false });
  console.log(`"${q}" (${hits.length}): ${hits.map((hit) => hit.product.name.slice(0, 45)).join(" | ")}`);
}
await root.close();
await database.handle.close();
await embedder.close();
