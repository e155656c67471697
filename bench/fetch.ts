/**
 * npm run bench:fetch — fetching product pages from shops on loopback (issue 18), into a fresh in-memory database
 * with the local embedder, three ways in one run:
 *
 * 1. first fetch, politeness off (FETCH_HOST_DELAY_MS=0): the pipeline's own speed (fetch, extract, embed, store);
 * 2. refresh of the unchanged catalog, politeness off: every page answers 304, so nothing is extracted or embedded
 *    (goal: at least 10× the first fetch's pages/s, the baseline);
 * 3. first fetch with politeness on (the default FETCH_HOST_DELAY_MS) on a smaller set: what the delay costs.
 *
 * The pages are `--hosts` shops (one loopback port each: one request in flight per host) of `--pages` pages each,
 * written like merchants' JSON-LD pages. Options: --hosts N (default 4), --pages N per host (default 50),
 * --polite-pages N per host for case 3 (default 5).
 */
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadConfig } from "../server/config.js";
import { openPglite } from "../server/db/open.js";
import { type CrawlSummary, fetchPages, refresh } from "../server/fetch/crawl.js";
import { createFetcher, fetchSettings } from "../server/fetch/fetcher.js";
import { importLimits } from "../server/ingest/limits.js";
import { createLocalEmbedder } from "../server/search/embedders/local.js";
import { productPage, startMerchantServer, type MerchantServer } from "../tests/helpers/merchant-server.js";

const { values: flags } = parseArgs({
  options: {
    hosts: { type: "string", default: "4" },
    pages: { type: "string", default: "50" },
    "polite-pages": { type: "string", default: "5" },
  },
});
const HOSTS = Number(flags.hosts);
const PAGES = Number(flags.pages);
const POLITE_PAGES = Number(flags["polite-pages"]);

const config = loadConfig({ FETCH_ALLOW_PRIVATE: "true", LOG_LEVEL: "silent" });

async function shops(pages: number): Promise<{ servers: MerchantServer[]; urls: string[] }> {
  const servers = await Promise.all(Array.from({ length: HOSTS }, () => startMerchantServer()));
  const urls: string[] = [];
  servers.forEach((shop, h) => {
    for (let i = 0; i < pages; i++) {
      const path = `/p/item-${h}-${i}`;
      shop.setPage(path, productPage(shop.origin, path, { name: `Trail item ${h}-${i} with a long enough name`, price: `${10 + i}.00` }));
      urls.push(`${shop.origin}${path}`);
    }
  });
  return { servers, urls };
}

async function run(pages: number, hostDelayMs: number, withRefresh: boolean) {
  const { handle } = await openPglite();
  await handle.migrate();
  const embedder = await createLocalEmbedder();
  const { servers, urls } = await shops(pages);
  const fetcher = createFetcher({ ...fetchSettings(config), hostDelayMs });
  const deps = { db: handle.db, embedder, fetcher, limits: importLimits(config), concurrency: config.FETCH_CONCURRENCY };
  const timed = async (work: () => Promise<CrawlSummary>) => {
    const started = performance.now();
    const summary = await work();
    // Figures over failed pages would measure nothing.
    if (summary.failed > 0) throw new Error(`${summary.failed} pages failed, the first: ${JSON.stringify(summary.failures[0])}`);
    return { summary, seconds: (performance.now() - started) / 1000 };
  };
  // The encoder's first call loads the model: not the pipeline's cost.
  await embedder.embed(["warm up"]);
  const first = await timed(() =>
    fetchPages(
      deps,
      urls.map((url) => ({ url })),
    ),
  );
  const again = withRefresh ? await timed(() => refresh(deps, { before: new Date(Date.now() + 1000) })) : undefined;
  fetcher.close();
  await embedder.close();
  await Promise.all(servers.map((server) => server.close()));
  await handle.close();
  return { pages: urls.length, first, again };
}

const row = (label: string, pages: number, seconds: number, summary: CrawlSummary, baseline?: number) => {
  const rate = pages / seconds;
  const ratio = baseline ? `${(rate / baseline).toFixed(1)}×` : "1.0× (baseline)";
  const what = `imported ${summary.imported}, updated ${summary.updated}, not modified ${summary.notModified}, extracted ${summary.extracted}, failed ${summary.failed}`;
  console.log(
    `${label.padEnd(44)} ${String(pages).padStart(6)} ${seconds.toFixed(2).padStart(8)} ${rate.toFixed(1).padStart(9)} ${ratio.padStart(16)}  ${what}`,
  );
  return rate;
};

console.log(
  `bench:fetch — ${HOSTS} loopback shops; ${cpus().length} CPUs, load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
console.log(`${"case".padEnd(44)} ${"pages".padStart(6)} ${"seconds".padStart(8)} ${"pages/s".padStart(9)} ${"vs first fetch".padStart(16)}`);
const fast = await run(PAGES, 0, true);
const baseline = row("first fetch, politeness off", fast.pages, fast.first.seconds, fast.first.summary);
if (fast.again) row("refresh of the unchanged catalog (304s)", fast.pages, fast.again.seconds, fast.again.summary, baseline);
const polite = await run(POLITE_PAGES, config.FETCH_HOST_DELAY_MS, false);
row(`first fetch, politeness on (${config.FETCH_HOST_DELAY_MS} ms/host)`, polite.pages, polite.first.seconds, polite.first.summary, baseline);
