/**
 * The caps an import enforces (set in server/config.ts, passed down from the
 * CLI): what exceeds one is refused with a message naming the setting.
 */
import type { Config } from "../config.js";

export interface ImportLimits {
  /** IMPORT_MAX_LINE_BYTES: one NDJSON line. */
  maxLineBytes: number;
  /** IMPORT_MAX_PAGE_BYTES: one saved page, after gunzip. */
  maxPageBytes: number;
  /** IMPORT_MAX_STRIPPED_HTML_BYTES: a record's raw_data.strippedHtml. */
  maxStrippedHtmlBytes: number;
  /** EXTRACT_BUDGET_MS: the CPU one page's extraction may take. */
  extractBudgetMs: number;
}

export function importLimits(
  config: Pick<Config, "IMPORT_MAX_LINE_BYTES" | "IMPORT_MAX_PAGE_BYTES" | "IMPORT_MAX_STRIPPED_HTML_BYTES" | "EXTRACT_BUDGET_MS">,
): ImportLimits {
  return {
    maxLineBytes: config.IMPORT_MAX_LINE_BYTES,
    maxPageBytes: config.IMPORT_MAX_PAGE_BYTES,
    maxStrippedHtmlBytes: config.IMPORT_MAX_STRIPPED_HTML_BYTES,
    extractBudgetMs: config.EXTRACT_BUDGET_MS,
  };
}

/** `12.5 MiB`, `800 KiB`, `512 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / 1024 / 1024).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/** "page is larger than IMPORT_MAX_PAGE_BYTES (8 MiB)", with the size when it is known. */
export function overCap(what: string, setting: string, cap: number, size?: number): string {
  return `${what} is ${size === undefined ? "larger" : `${formatBytes(size)}, larger`} than ${setting} (${formatBytes(cap)})`;
}

/**
 * Open HTML elements at once, past which an open tag is dropped before htmlparser2 sees it (its content is kept, in
 * the deepest element kept). Fixed, like MAX_JSON_DEPTH: no page is that deep by design, and the parser pays for
 * depth at every tag (its stack is an array it unshifts and searches), so 400 KB of unclosed tags took 4–7 s.
 * The deepest page in ../shared/data/pdp nests 37 elements.
 */
export const HTML_MAX_DEPTH = 256;
