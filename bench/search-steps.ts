/**
 * npm run bench:search-steps — where one search's time goes (issue 16, item 4):
 * the search service in process on a bench catalog (default the generated
 * 100,000 products; `--products 0` the sample catalog), one search at a time,
 * every SQL statement the search issues timed at the PGlite client, the
 * sentence encoder (in its thread, as the server runs it) timed per call, and
 * the process's CPU time (all threads) per search. Prints, per search: wall and
 * CPU p50/p95, the encoder, each kind of SQL statement (count and milliseconds),
 * and what is left (JavaScript: understanding, fusion, the reranker's scoring,
 * records; and waiting for the encoder when it outlasts the full-text query).
 * `--catalog crowdflower` runs bench:relevance's CrowdFlower catalog (9,913
 * products) with its dev queries instead.
 *
 * `--shared-buffers MB` opens PGlite with that page cache (PGLITE_SHARED_BUFFERS_MB; default: sized to the data dir
 * as the server does).
 * `--explain` prints EXPLAIN (ANALYZE, BUFFERS) of every statement of one
 * search (the first query, after warm-up). `--queries N` (default 60),
 * `--typos false` searches without typo correction, `--filtered` searches with
 * bench:search's filters (USD 20–200, in stock, one of its seven categories in turn).
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createRoot } from "../server/compose.js";
import { loadConfig } from "../server/config.js";
import { openPglite, sharedBuffersFor } from "../server/db/open.js";
import { createThreadedEmbedder } from "../server/search/embedders/threads.js";
import type { SearchParams } from "../shared/schemas/index.js";
import { SearchParamsSchema } from "../shared/schemas/index.js";
import { crowdflowerCatalog, generatedCatalog, sampleCatalog, searchQueries } from "./http-catalog.js";
import { percentile } from "./relevance-data.js";

const { values } = parseArgs({
  options: {
    products: { type: "string", default: "100000" },
    catalog: { type: "string" },
    queries: { type: "string", default: "60" },
    explain: { type: "boolean", default: false },
    typos: { type: "string", default: "true" },
    "shared-buffers": { type: "string" },
    filtered: { type: "boolean", default: false },
  },
});
const count = Number(values.products);
if (values.catalog !== undefined && values.catalog !== "crowdflower") throw new Error(`unknown catalog ${values.catalog}; known: crowdflower`);
const catalog = values.catalog ? await crowdflowerCatalog() : count === 0 ? await sampleCatalog() : await generatedCatalog(count);
// In a thread of its own, as the server runs it by default (ENCODER_THREADS=1): the service ranks full text while
// the query is embedded, and an encoder on this thread would be counted in the statements' times.
const embedder = await createThreadedEmbedder({ threads: 1 });
const sharedBuffersMb = values["shared-buffers"] === undefined ? sharedBuffersFor(catalog.dataDir) : Number(values["shared-buffers"]);
const { handle, client } = await openPglite(catalog.dataDir, { sharedBuffersMb });

/** Statements by kind: what each SQL text is, from its shape. */
const KINDS: [string, RegExp][] = [
  ["full text (ts_rank)", /ts_rank\(/],
  ["vector (<=>), retrieval", /<=>.*order by ("distance"|.*<=>)/s],
  ["reranker: documents + cosines", /"search"::text/],
  ["reranker: stems", /to_tsvector\(search_config\(l\), t\)/],
  ["reranker: document frequencies", /count\(\*\) filter \(where "products"."search" @@/],
  ["records", /"raw_data"|"structured"|"gtin"/],
  ["set_config", /set_config/],
  ["catalog version / size", /count\(\*\)|catalog_meta|version/],
];
const kindOf = (text: string) => KINDS.find(([, pattern]) => pattern.test(text))?.[0] ?? `other: ${text.slice(0, 80)}`;

interface Statement {
  text: string;
  params: unknown[];
  ms: number;
}
let recording: Statement[] | null = null;
const query = client.query.bind(client);
// Times each statement at the client (a bench-only wrapper: the service's code is untouched). Statements run one at
// a time here, as PGlite runs them anyway, so one waiting for another is not counted as its own time.
let turn: Promise<unknown> = Promise.resolve();
client.query = ((text: string, params?: unknown[], options?: Parameters<typeof query>[2]) => {
  const run = turn.then(async () => {
    const started = performance.now();
    try {
      return await query(text, params, options);
    } finally {
      recording?.push({ text, params: params ?? [], ms: performance.now() - started });
    }
  });
  turn = run.catch(() => undefined);
  return run;
}) as typeof client.query;

let embedMs = 0;
const embed = embedder.embed.bind(embedder);
embedder.embed = async (texts) => {
  const started = performance.now();
  try {
    return await embed(texts);
  } finally {
    embedMs += performance.now() - started;
  }
};
const config = { ...loadConfig({ SAMPLE_CATALOG: "false", LOG_LEVEL: "silent" }), PRODUCT_CACHE_SIZE: 0 };
const root = createRoot(config, { role: "cli", database: handle, embedder });
const services = await root.services();
// As the server does at start (server/main.ts): the reranker's statistics and the vocabulary.
await (await root.reranker()).warm?.();
await services.search.warm();
const typos = values.typos !== "false";
const queries = catalog.queries?.slice(0, Number(values.queries)) ?? searchQueries(Number(values.queries));
// bench:search's filtered case, so its steps can be compared with the unfiltered ones.
const CATEGORIES = ["Outdoor", "Kitchen", "Clothing", "Home", "Beauty", "Audio > Headphones", "Food"];
let searches = 0;
const filtersOf = () =>
  values.filtered
    ? { price_min: "20", price_max: "200", currency: "USD", availability: "in_stock", category: CATEGORIES[searches++ % CATEGORIES.length] }
    : {};
const search = (q: string) => services.search.search(SearchParamsSchema.parse({ q, typos, ...filtersOf() }) as SearchParams);

// Warm-up: vocabulary, statistics, JIT; then the measured searches, each query new to the query-vector cache.
for (const q of searchQueries(200).slice(-10)) await search(q);

if (values.explain) {
  recording = [];
  await search(queries[0]!);
  const statements = recording;
  recording = null;
  for (const statement of statements) {
    if (!/^\s*select/i.test(statement.text)) continue;
    const plan = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${statement.text}`, statement.params);
    console.log(`\n-- ${kindOf(statement.text)} (${statement.ms.toFixed(1)} ms as issued)\n${statement.text.slice(0, 600)}`);
    console.log(plan.rows.map((row) => row["QUERY PLAN"]).join("\n"));
  }
}

const walls: number[] = [];
const cpuMs: number[] = [];
const byKind = new Map<string, { n: number; ms: number }>();
let sqlMs = 0;
embedMs = 0;
for (const q of queries) {
  recording = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await search(q);
  walls.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  cpuMs.push((used.user + used.system) / 1000);
  for (const statement of recording) {
    const kind = kindOf(statement.text);
    const entry = byKind.get(kind) ?? { n: 0, ms: 0 };
    entry.n++;
    entry.ms += statement.ms;
    sqlMs += statement.ms;
    byKind.set(kind, entry);
  }
}
recording = null;

const n = queries.length;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(
  `\nbench:search-steps on ${catalog.name} (${catalog.products} products, PGlite in process, one search at a time, ${n} queries, typos ${typos}${values.filtered ? ", filtered" : ""}, shared_buffers ${sharedBuffersMb} MB), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC,`,
);
console.log(`${cpus().length} cores (${cpus()[0]?.model ?? "?"}), node ${process.version}, load average ${loadavg()[0]!.toFixed(2)}\n`);
console.log(
  `wall per search: p50 ${percentile(walls, 50).toFixed(1)} ms, p95 ${percentile(walls, 95).toFixed(1)} ms, mean ${mean(walls).toFixed(1)} ms`,
);
console.log(`CPU per search (process, all threads): p50 ${percentile(cpuMs, 50).toFixed(1)} ms, mean ${mean(cpuMs).toFixed(1)} ms\n`);
console.log("| step | statements per search | ms per search (mean) |");
console.log("|---|---|---|");
console.log(`| sentence encoder (query embedding, in its thread, beside the full-text query) | – | ${(embedMs / n).toFixed(1)} |`);
for (const [kind, entry] of [...byKind].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(`| SQL: ${kind} | ${(entry.n / n).toFixed(2)} | ${(entry.ms / n).toFixed(1)} |`);
}
console.log(`| everything else (JavaScript, and waiting for the encoder) | – | ${(mean(walls) - sqlMs / n).toFixed(1)} |`);
await root.close();
await handle.close();
await embedder.close();
