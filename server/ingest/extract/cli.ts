/**
 * The logic behind two CLI commands (wired in server/cli/run.ts):
 *
 *   catalog extract FILE…   one NDJSON line per page: {"source", "pdp"} or {"source", "error"}
 *   catalog import PATH…    saved pages (.html, .htm, .html.gz; directories searched recursively)
 *                           mixed with NDJSON files, fed to the existing importer as ParsedLine items
 *
 * Both take the page URL from the page itself; when a page states none, from
 * `--url URL` (only with a single page) or `--urls FILE`, a sidecar in NDJSON:
 *
 *   {"path": "shop/kettle.html.gz", "url": "https://copperleafkitchen.example/products/kettle"}
 *
 * one object a line; a relative `path` is relative to the sidecar's folder.
 * One bad page never stops a batch: it becomes an error line.
 */
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { readNdjson, type ParsedLine } from "../ndjson.js";
import { describeIssues, ImportRecordSchema } from "../record.js";
import { readPage } from "./charset.js";
import { type ExtractedRecord, extractProduct } from "./index.js";

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

export type ExtractLine = { source: string; pdp: ExtractedRecord } | { source: string; error: string };

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

/** Files under the given paths, directories searched recursively (sorted, so runs are repeatable). */
export async function* expandPaths(paths: readonly string[], accept: (path: string) => boolean): AsyncGenerator<string> {
  for (const path of paths) {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      yield path; // reported by the reader, so a missing file becomes an error line, not a crash
      continue;
    }
    if (!info.isDirectory()) {
      yield path;
      continue;
    }
    const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) yield* expandPaths([child], accept);
      else if (accept(child)) yield child;
    }
  }
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
  for await (const path of expandPaths(paths, isPagePath)) if (isPagePath(path) || !NDJSON.test(path)) count++;
  return count;
}

/** Extracts one page file into a line (never throws for a bad page). */
export async function extractFile(path: string, url: string | undefined): Promise<ExtractLine> {
  let html: string;
  try {
    html = await readPage(path);
  } catch (error) {
    return { source: path, error: `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  const result = extractProduct(html, url === undefined ? {} : { url });
  return result.ok ? { source: path, pdp: result.record } : { source: path, error: result.error };
}

/** `catalog extract FILE…`: one line per page, in order. */
export async function* extractFiles(paths: readonly string[], options: PageUrlOptions = {}): AsyncGenerator<ExtractLine> {
  const urlOf = await urlLookup(options, () => countPages(paths));
  for await (const path of expandPaths(paths, isPagePath)) yield extractFile(path, urlOf(path));
}

/**
 * `catalog import PATH…`: pages are extracted and validated like any NDJSON
 * line (line 0 stands for "the whole page"); NDJSON files are read as before.
 */
export async function* importLines(paths: readonly string[], options: PageUrlOptions = {}): AsyncGenerator<ParsedLine> {
  const urlOf = await urlLookup(options, () => countPages(paths.filter((path) => !NDJSON.test(path))));
  for await (const path of expandPaths(paths, (file) => isPagePath(file) || NDJSON.test(file))) {
    if (!isPagePath(path)) {
      yield* readNdjsonSafely(path);
      continue;
    }
    const line = await extractFile(path, urlOf(path));
    if ("error" in line) {
      yield { source: path, line: 0, error: line.error };
      continue;
    }
    const parsed = ImportRecordSchema.safeParse(line.pdp);
    yield parsed.success ? { source: path, line: 0, record: parsed.data } : { source: path, line: 0, error: describeIssues(parsed.error) };
  }
}

async function* readNdjsonSafely(path: string): AsyncGenerator<ParsedLine> {
  try {
    yield* readNdjson(path);
  } catch (error) {
    yield { source: path, line: 0, error: `cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
}
