/**
 * The logic behind two CLI commands (wired in server/cli/run.ts):
 *
 *   catalog extract FILE…   one NDJSON line per page: {"source", "pdp"} or {"source", "error"}
 *   catalog import PATH…    saved pages (.html, .htm, .html.gz; directories searched recursively)
 *                           mixed with JSON Lines feeds (NDJSON records, ACP or UCP products: server/feeds),
 *                           fed to the existing importer as ParsedLine items
 *
 * Both take the page URL from the page itself; when a page states none, from
 * `--url URL` (only with a single page) or `--urls FILE`, a sidecar in NDJSON:
 *
 *   {"path": "shop/kettle.html.gz", "url": "https://copperleafkitchen.example/products/kettle"}
 *
 * one object a line; a relative `path` is relative to the sidecar's folder.
 * One bad page never stops a batch: it becomes an error line. Inside a
 * directory given, a symbolic link is followed only to a file within that
 * directory; any other link is reported, not read.
 */
import { createReadStream } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { createInterface } from "node:readline";
import type { ImportLimits } from "../limits.js";
import { type FeedFormat, readFeed } from "../../feeds/index.js";
import type { ParsedLine } from "../ndjson.js";
import { describeIssues, exceedsLimits, ImportRecordSchema } from "../record.js";
import { PageTooLargeError, readPage } from "./charset.js";
import { type ExplainedRecord, type ExtractedRecord, extractProduct } from "./index.js";

/** A mistake in how the command was called (the CLI maps it to its UsageError). */
export class ExtractInputError extends Error {
  override readonly name = "ExtractInputError";
}

export interface PageUrlOptions {
  /** `--url`: the URL of the single page given. */
  url?: string;
  /** `--urls`: path of the NDJSON sidecar mapping page paths to URLs. */
  urlsFile?: string;
}

export type ExtractLine = { source: string; pdp: ExtractedRecord; explain?: ExplainedRecord } | { source: string; error: string };

const PAGE = /\.(html?|html?\.gz)$/i;
const NDJSON = /\.(ndjson|jsonl)(\.gz)?$/i;

export function isPagePath(path: string): boolean {
  return PAGE.test(path);
}

/** Reads the `--urls` sidecar into absolute page path → URL. */
export async function readUrlSidecar(path: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  const base = dirname(resolve(path));
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    line++;
    if (text.trim() === "") continue;
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      throw new ExtractInputError(`${path}:${line}: not valid JSON; expected {"path": "…", "url": "…"}`);
    }
    if (
      typeof entry !== "object" ||
      entry === null ||
      typeof (entry as { path?: unknown }).path !== "string" ||
      typeof (entry as { url?: unknown }).url !== "string"
    ) {
      throw new ExtractInputError(`${path}:${line}: expected {"path": "…", "url": "…"}`);
    }
    const { path: page, url } = entry as { path: string; url: string };
    map.set(resolve(base, page), url);
  }
  return map;
}

/** A file to read (its real path when reached through a link), or one refused with the reason. */
export type FoundFile = { path: string; read: string } | { path: string; refused: string };

/** Files under the given paths, directories searched recursively (sorted, so runs are repeatable). */
export async function* expandPaths(paths: readonly string[], accept: (path: string) => boolean): AsyncGenerator<FoundFile> {
  for (const path of paths) {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      yield { path, read: path }; // reported by the reader, so a missing file becomes an error line, not a crash
      continue;
    }
    if (info.isDirectory()) yield* walk(path, await realpath(path), accept);
    else yield { path, read: path };
  }
}

async function* walk(dir: string, root: string, accept: (path: string) => boolean): AsyncGenerator<FoundFile> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const child = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(child, root, accept);
    else if (entry.isSymbolicLink()) {
      if (accept(child)) yield await followLink(child, root);
    } else if (accept(child)) yield { path: child, read: child };
  }
}

async function followLink(path: string, root: string): Promise<FoundFile> {
  let target: string;
  try {
    target = await realpath(path);
  } catch {
    return { path, refused: "symbolic link to nothing (its target does not exist)" };
  }
  if (!target.startsWith(root + sep)) return { path, refused: `symbolic link to a file outside ${root}; not followed` };
  const info = await stat(target);
  return info.isFile() ? { path, read: target } : { path, refused: "symbolic link to something that is not a file; not followed" };
}

async function urlLookup(options: PageUrlOptions, pageCount: () => Promise<number>): Promise<(path: string) => string | undefined> {
  if (options.url !== undefined && options.urlsFile !== undefined) throw new ExtractInputError("give either --url or --urls, not both");
  if (options.url !== undefined) {
    if ((await pageCount()) !== 1) throw new ExtractInputError("--url applies to a single page; use --urls FILE for several");
    const url = options.url;
    return () => url;
  }
  if (options.urlsFile !== undefined) {
    const sidecar = await readUrlSidecar(options.urlsFile);
    return (path) => sidecar.get(resolve(path));
  }
  return () => undefined;
}

async function countPages(paths: readonly string[]): Promise<number> {
  let count = 0;
  for await (const found of expandPaths(paths, isPagePath)) if (isPagePath(found.path) || !NDJSON.test(found.path)) count++;
  return count;
}

/** Extracts one page file into a line (never throws for a bad page). */
export async function extractFile(found: FoundFile, url: string | undefined, limits: ImportLimits, explain = false): Promise<ExtractLine> {
  const source = found.path;
  if ("refused" in found) return { source, error: found.refused };
  let html: string;
  try {
    html = await readPage(found.read, limits.maxPageBytes);
  } catch (error) {
    if (error instanceof PageTooLargeError) return { source, error: error.message };
    return { source, error: `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  const result = extractProduct(html, { ...(url === undefined ? {} : { url }), explain, budgetMs: limits.extractBudgetMs });
  if (!result.ok) return { source, error: result.error };
  const refused = exceedsLimits(result.record, limits);
  if (refused) return { source, error: refused };
  return result.explained ? { source, pdp: result.record, explain: result.explained } : { source, pdp: result.record };
}

/** `catalog extract`: one line per page, in order; with `explain`, each field's layer, rule and confidence beside it. */
export async function* extractFiles(
  paths: readonly string[],
  options: PageUrlOptions,
  limits: ImportLimits,
  explain = false,
): AsyncGenerator<ExtractLine> {
  const urlOf = await urlLookup(options, () => countPages(paths));
  for await (const found of expandPaths(paths, isPagePath)) yield extractFile(found, urlOf(found.path), limits, explain);
}

/**
 * `catalog import PATH…`: pages are extracted and validated like any NDJSON
 * line (line 0 stands for "the whole page"); other files are feeds, read in
 * `format`, or in the format each one's first line is written in.
 */
export async function* importLines(
  paths: readonly string[],
  options: PageUrlOptions,
  limits: ImportLimits,
  format?: FeedFormat,
): AsyncGenerator<ParsedLine> {
  const urlOf = await urlLookup(options, () => countPages(paths.filter((path) => !NDJSON.test(path))));
  for await (const found of expandPaths(paths, (file) => isPagePath(file) || NDJSON.test(file))) {
    const { path } = found;
    if (!isPagePath(path)) {
      yield* "refused" in found ? [{ source: path, line: 0, error: found.refused }] : readFeedSafely(path, found.read, limits, format);
      continue;
    }
    const line = await extractFile(found, urlOf(path), limits);
    if ("error" in line) {
      yield { source: path, line: 0, error: line.error };
      continue;
    }
    const parsed = ImportRecordSchema.safeParse(line.pdp);
    yield parsed.success ? { source: path, line: 0, record: parsed.data } : { source: path, line: 0, error: describeIssues(parsed.error) };
  }
}

async function* readFeedSafely(source: string, path: string, limits: ImportLimits, format?: FeedFormat): AsyncGenerator<ParsedLine> {
  try {
    for await (const line of readFeed(path, limits, format)) yield { ...line, source };
  } catch (error) {
    yield { source, line: 0, error: `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
}
