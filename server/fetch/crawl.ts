/**
 * Fetched pages into the catalog: `catalog fetch` (URLs, a URL list or a
 * sitemap) and `catalog refresh` (products last checked before a bound). Each
 * page goes through the fetcher (robots.txt, politeness, address and size
 * checks) and then through the same extraction and import as a saved page, so
 * a fetched record is stored exactly as an imported one would be, with the
 * validators its answer carried.
 *
 * What each answer does to the catalog:
 *   200, same content   only `fetched_at` and `checked_at` move (import.ts)
 *   200, new content    re-extracted and written; `updated_at` moves
 *   304                 no extraction: only `checked_at` moves
 *   404 or 410          the product is marked gone (it leaves search; lookups answer 410)
 *   anything else       a failure with the URL and why; the batch goes on
 * A gone product whose page answers again (200 or 304) is back.
 */
import type { IncomingHttpHeaders } from "node:http";
import { productUrlKey } from "../../shared/url.js";
import {
  type Confirmation,
  commitChanges,
  confirmProducts,
  countAtHost,
  countCheckedBefore,
  databaseNow,
  type FetchState,
  findFetchStates,
  markGone,
  productsCheckedBefore,
  restoreProducts,
} from "../catalog/repository.js";
import type { Database } from "../db/client.js";
import type { BudgetClock } from "../ingest/extract/budget.js";
import { decodePage, extractProduct } from "../ingest/extract/index.js";
import { type ImportLine, type ImportSummary, importRecords } from "../ingest/import.js";
import type { ImportLimits } from "../ingest/limits.js";
import { describeIssues, exceedsLimits, ImportRecordSchema } from "../ingest/record.js";
import type { Embedder } from "../search/embedder.js";
import type { Fetched, Fetcher } from "./fetcher.js";
import { parseSitemap } from "./sitemap.js";

export interface CrawlDeps {
  db: Database;
  embedder: Embedder;
  fetcher: Fetcher;
  limits: ImportLimits;
  /** Pages in progress at once (FETCH_CONCURRENCY; the fetcher still takes one per host at a time). */
  concurrency: number;
}

/** A page to fetch; `lastmod` from a sitemap lets an unchanged page be skipped without a request. */
export interface Target {
  url: string;
  lastmod?: Date;
}

export interface CrawlSummary extends ImportSummary {
  /** Answered 304: confirmed without extraction. */
  notModified: number;
  /** Answered 404 or 410: marked gone. */
  gone: number;
  /** Not requested: the sitemap's `lastmod` is older than the product's last check. */
  skipped: number;
  /** Pages extracted (a 200 with a body); a 304 costs none. */
  extracted: number;
}

export interface CrawlOptions {
  onProgress?: (summary: CrawlSummary, done: number) => void;
  signal?: AbortSignal;
}

/** Records are written a few at a time, so an interrupted crawl keeps most of what it fetched. */
const BATCH_SIZE = 16;
/** Pages confirmed unchanged (304) are written this many at a time; a stopped run loses at most these checks. */
const CONFIRM_BATCH = 64;

/** `charset=` of a Content-Type header, if any. */
function charsetOf(headers: IncomingHttpHeaders): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(String(headers["content-type"] ?? ""));
  return match?.[1];
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === "string" && value.length <= 1024 ? value : null;
}

/** Runs `work` on every item with at most `limit` in progress, yielding results as they finish. */
async function* inParallel<T, R>(items: AsyncIterable<T> | Iterable<T>, limit: number, work: (item: T) => Promise<R>): AsyncGenerator<R> {
  const running = new Map<number, Promise<{ key: number; result: R }>>();
  let next = 0;
  for await (const item of items) {
    const key = next++;
    running.set(
      key,
      work(item).then((result) => ({ key, result })),
    );
    if (running.size >= limit) {
      const done = await Promise.race(running.values());
      running.delete(done.key);
      yield done.result;
    }
  }
  while (running.size > 0) {
    const done = await Promise.race(running.values());
    running.delete(done.key);
    yield done.result;
  }
}

/** The product a fetched URL already is: the one last fetched from it, else the one whose page URL it is. */
function stateFor(states: readonly FetchState[], key: string): FetchState | undefined {
  return states.find((state) => state.fetchKey === key) ?? states.find((state) => state.urlKey === key);
}

/**
 * What a page fetched whole gives the importer: its record, extracted as from a saved page, with the validators its
 * answer carried; or why it gives none. `key` is the URL key it was asked for, kept if the final URL has none.
 */
export function pageLine(
  fetched: Extract<Fetched, { kind: "ok" }>,
  source: string,
  key: string,
  limits: ImportLimits,
  budgetClock: BudgetClock = "cpu",
): ImportLine {
  let html: string;
  try {
    html = decodePage(fetched.body, limits.maxPageBytes, charsetOf(fetched.headers));
  } catch (error) {
    return { source, line: 0, error: (error as Error).message };
  }
  const extracted = extractProduct(html, { url: fetched.url, budgetMs: limits.extractBudgetMs, budgetClock });
  if (!extracted.ok) return { source, line: 0, error: extracted.error };
  const refused = exceedsLimits(extracted.record, limits);
  if (refused) return { source, line: 0, error: refused };
  const parsed = ImportRecordSchema.safeParse(extracted.record);
  if (!parsed.success) return { source, line: 0, error: describeIssues(parsed.error) };
  const validators = {
    fetchUrl: fetched.url,
    fetchKey: productUrlKey(fetched.url) ?? key,
    etag: header(fetched.headers, "etag"),
    lastModified: header(fetched.headers, "last-modified"),
  };
  return { source, line: 0, record: parsed.data, validators };
}

function emptySummary(): CrawlSummary {
  return { imported: 0, updated: 0, unchanged: 0, failed: 0, failures: [], replaced: [], notModified: 0, gone: 0, skipped: 0, extracted: 0 };
}

/**
 * Fetches the targets and imports what they answer. `stateOf` says what the catalog holds for a target (its
 * validators, when it was checked); `catalog fetch` looks it up by URL, `catalog refresh` already has it.
 */
async function crawl(
  deps: CrawlDeps,
  targets: AsyncIterable<Target & { state?: FetchState | null }> | Iterable<Target & { state?: FetchState | null }>,
  options: CrawlOptions,
): Promise<CrawlSummary> {
  const counts = emptySummary();
  let done = 0;
  /** 304s, confirmed in one statement a batch: a refresh of an unchanged catalog is mostly these. */
  let confirmations: Confirmation[] = [];
  const confirmPending = async () => {
    const batch = confirmations;
    confirmations = [];
    await confirmProducts(deps.db, batch);
  };

  /** What one target gives the importer: a record, an error, or nothing (a 304, a gone page, a skip). */
  async function visit(target: Target & { state?: FetchState | null }): Promise<ImportLine | null> {
    const source = target.url;
    const key = productUrlKey(target.url);
    if (key === null) return { source, line: 0, error: "not an absolute http(s) URL" };
    const state = target.state === undefined ? stateFor(await findFetchStates(deps.db, [key]), key) : (target.state ?? undefined);
    if (state && !state.goneAt && target.lastmod && target.lastmod <= state.checkedAt) {
      counts.skipped++;
      return null;
    }
    const fetched = await deps.fetcher.get(target.url, {
      accept: "html",
      ...(state ? { conditional: { url: new URL(state.target).href, etag: state.etag, lastModified: state.lastModified } } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    switch (fetched.kind) {
      case "refused":
      case "failed":
        return { source, line: 0, error: fetched.url === source ? fetched.reason : `${fetched.url}: ${fetched.reason}` };
      case "gone": {
        if (!state) return { source, line: 0, error: `answered ${fetched.status}: no such page` };
        await deps.db.transaction(async (tx) => commitChanges(tx, await markGone(tx, [state.id])));
        counts.gone++;
        return null;
      }
      case "not_modified": {
        // Only sent with a stored product's validators, so `state` is there.
        if (!state) return { source, line: 0, error: "answered 304 to a request that was not conditional" };
        if (state.goneAt) {
          await deps.db.transaction(async (tx) => {
            await confirmProducts(tx, [{ id: state.id, read: false }]);
            await commitChanges(tx, await restoreProducts(tx, [state.id]));
          });
        } else {
          confirmations.push({ id: state.id, read: false });
          if (confirmations.length >= CONFIRM_BATCH) await confirmPending();
        }
        counts.notModified++;
        return null;
      }
      case "ok":
        counts.extracted++;
        return pageLine(fetched, source, key, deps.limits);
    }
  }

  /** A fault on one page (the database refusing a write, a stored URL that no longer parses) fails that page only. */
  async function visitSafely(target: Target & { state?: FetchState | null }): Promise<ImportLine | null> {
    try {
      return await visit(target);
    } catch (error) {
      return { source: target.url, line: 0, error: `failed: ${(error as Error).message}` };
    }
  }

  async function* lines(): AsyncGenerator<ImportLine> {
    for await (const line of inParallel(targets, deps.concurrency, visitSafely)) {
      done++;
      if (line) yield line;
      else options.onProgress?.({ ...counts }, done);
    }
  }

  const summary = await importRecords({ db: deps.db, embedder: deps.embedder }, lines(), {
    batchSize: BATCH_SIZE,
    onProgress: (imported) => options.onProgress?.({ ...counts, ...imported }, done),
  });
  await confirmPending();
  return { ...counts, ...summary };
}

/** `catalog fetch URL…`: each URL fetched once and imported. */
export function fetchPages(deps: CrawlDeps, targets: AsyncIterable<Target> | Iterable<Target>, options: CrawlOptions = {}): Promise<CrawlSummary> {
  return crawl(deps, targets, options);
}

/** The most sitemaps an index may lead to in one run: a bound on what a crafted index can make us fetch. */
const MAX_SITEMAPS = 1000;

/**
 * The pages a sitemap (or a sitemap index, whose sitemaps are read in turn, one level deep) lists, with their
 * `lastmod`. A sitemap that cannot be read is reported through `fail` and passed over.
 */
export async function* sitemapTargets(
  fetcher: Fetcher,
  url: string,
  maxBytes: number,
  fail: (url: string, reason: string) => void,
  signal?: AbortSignal,
): AsyncGenerator<Target> {
  const queue: { url: string; depth: number }[] = [{ url, depth: 0 }];
  let read = 0;
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (++read > MAX_SITEMAPS) {
      fail(next.url, `not read: more than ${MAX_SITEMAPS} sitemaps`);
      continue;
    }
    const fetched = await fetcher.get(next.url, { accept: "sitemap", ...(signal ? { signal } : {}) });
    if (fetched.kind !== "ok") {
      fail(next.url, fetched.kind === "gone" ? `sitemap answered ${fetched.status}` : "reason" in fetched ? fetched.reason : fetched.kind);
      continue;
    }
    const sitemap = parseSitemap(fetched.body, maxBytes);
    if ("error" in sitemap) {
      fail(next.url, sitemap.error);
      continue;
    }
    if (sitemap.kind === "urlset") {
      for (const entry of sitemap.urls) yield { url: new URL(entry.loc, fetched.url).href, ...(entry.lastmod ? { lastmod: entry.lastmod } : {}) };
    } else if (next.depth > 0) {
      fail(next.url, "a sitemap index inside a sitemap index is not read");
    } else {
      for (const entry of sitemap.sitemaps) queue.push({ url: new URL(entry.loc, fetched.url).href, depth: next.depth + 1 });
    }
  }
}

/** `catalog fetch --sitemap URL`: the sitemap's pages, those unchanged since their last check skipped. */
export async function fetchSitemap(deps: CrawlDeps, url: string, options: CrawlOptions = {}): Promise<CrawlSummary> {
  const unreadable: { source: string; line: number; error: string }[] = [];
  const targets = sitemapTargets(
    deps.fetcher,
    url,
    deps.limits.maxPageBytes,
    (source, reason) => unreadable.push({ source, line: 0, error: reason }),
    options.signal,
  );
  const summary = await crawl(deps, targets, options);
  for (const { source, error } of unreadable) {
    summary.failed++;
    summary.failures.push({ source, line: 0, reason: error });
  }
  return summary;
}

export interface RefreshOptions extends CrawlOptions {
  /** Products last checked before this instant are fetched again. */
  before: Date;
  /**
   * Only the products at this host (as `brand_url` takes it): their own site's, or the one their page is fetched
   * from (a shop may serve its pages from a host other than its canonical one).
   */
  brandHost?: string;
  /** At most this many products. */
  limit?: number;
  /**
   * Told once, before the first fetch, how many products this run will visit; with `brandHost`, also how many
   * products are at that host at all, so that a run that visits none can say whether the host matched nothing.
   */
  onTotal?: (total: number, atHost?: number) => void;
}

/**
 * `catalog refresh`: products last checked before `before`, oldest check first, fetched again from where they were
 * last fetched (else their page URL). Each visit moves `checked_at` past the bound, so a run that is stopped and
 * started again goes on with the products not yet visited.
 */
export async function refresh(deps: CrawlDeps, options: RefreshOptions): Promise<CrawlSummary> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  // Never past the run's start: a product this run checks must not come round again within it.
  const before = new Date(Math.min(options.before.getTime(), (await databaseNow(deps.db)).getTime()));
  const total = Math.min(limit, await countCheckedBefore(deps.db, before, options.brandHost));
  if (options.brandHost === undefined) options.onTotal?.(total);
  else options.onTotal?.(total, total > 0 ? total : await countAtHost(deps.db, options.brandHost));
  async function* targets(): AsyncGenerator<Target & { state: FetchState }> {
    let from: { checkedText: string; id: string } | undefined;
    let given = 0;
    while (given < limit) {
      const page = await productsCheckedBefore(deps.db, {
        before,
        limit: Math.min(100, limit - given),
        ...(options.brandHost === undefined ? {} : { brandHost: options.brandHost }),
        ...(from ? { from } : {}),
      });
      if (page.length === 0) return;
      for (const state of page) {
        given++;
        yield { url: state.target, state };
      }
      const last = page.at(-1)!;
      from = { checkedText: last.checkedText, id: last.id };
    }
  }
  return crawl(deps, targets(), options);
}
