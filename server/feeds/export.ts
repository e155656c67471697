/**
 * Exporting the catalog as a feed: the products there (or one merchant's, or those changed since a change-feed
 * position), a page of ids at a time, each written as one line of the format before the next page is read. Memory is
 * bounded by a page of records (and one record's raw data), whatever the catalog's size; the writer's own pace (a
 * slow pipe) holds the export back rather than filling memory.
 */
import { findJsonLd, findStoredByIds } from "../catalog/repository.js";
import { variantsFromJsonLd } from "../catalog/variants.js";
import type { DbOrTx } from "../db/client.js";
import { productToAcp } from "./acp.js";
import type { Mapped } from "./mapped.js";
import type { FeedFormat } from "./read.js";
import { changedAfter, feedHead, productIdsAfter, rawDataOf, storedRecords } from "./repository.js";
import { productToUcp } from "./ucp.js";

export interface ExportOptions {
  format: FeedFormat;
  /** Only the products at this host (as `brand_url` scopes a search). */
  brandHost?: string;
  /** Only what changed after this change-feed position (`next_cursor`). */
  since?: number;
  pageSize?: number;
}

export interface ExportSummary {
  exported: number;
  /** Products left out, each with the reason the format has no line for it. */
  skipped: { id: string; reason: string }[];
  /** With `since`: products gone since then, which a feed of products cannot state (the change feed does). */
  gone: number;
  /** The change-feed position to export from next time (`since`) for what changes after this export. */
  nextCursor: number;
}

/** Writes each line (without its newline); resolves when the line may be followed by the next. */
export type WriteLine = (line: string) => Promise<void> | void;

/** A `since` past the change feed's end: a cursor of another catalog, or made up (exporting nothing would hide it). */
export class CursorAheadError extends Error {
  override readonly name = "CursorAheadError";
}

export async function exportFeed(db: DbOrTx, options: ExportOptions, write: WriteLine): Promise<ExportSummary> {
  // Read before the products: a change committed while they are read is after this position, so it is not missed.
  const head = await feedHead(db);
  if (options.since !== undefined && options.since > head)
    throw new CursorAheadError(`cursor ${options.since} is past the end of this catalog's change feed (${head}): it is not one this catalog gave`);
  const summary: ExportSummary = { exported: 0, skipped: [], gone: 0, nextCursor: options.since ?? head };
  for await (const ids of idPages(db, options, summary)) {
    for await (const { id, mapped } of linesOf(db, options.format, ids)) {
      if ("skipped" in mapped) summary.skipped.push({ id, reason: mapped.skipped });
      else {
        await write(JSON.stringify(mapped.line));
        summary.exported++;
      }
    }
  }
  return summary;
}

/** Pages of ids to export: the catalog in id order, or the change feed in its order (counting the gone). */
async function* idPages(db: DbOrTx, options: ExportOptions, summary: ExportSummary): AsyncGenerator<string[]> {
  const limit = options.pageSize ?? 100;
  const scope = options.brandHost === undefined ? {} : { brandHost: options.brandHost };
  if (options.since === undefined) {
    let after: string | null = null;
    for (;;) {
      const ids = await productIdsAfter(db, { after, limit, ...scope });
      if (ids.length > 0) yield ids;
      if (ids.length < limit) return;
      after = ids.at(-1)!;
    }
  }
  for (;;) {
    const rows = await changedAfter(db, { since: summary.nextCursor, limit, ...scope });
    summary.gone += rows.filter((row) => row.gone).length;
    const ids = rows.filter((row) => !row.gone).map((row) => row.id);
    if (rows.length > 0) summary.nextCursor = rows.at(-1)!.seq;
    if (ids.length > 0) yield ids;
    if (rows.length < limit) return;
  }
}

/** Each product of a page as a line of the format, in the page's order. */
async function* linesOf(db: DbOrTx, format: FeedFormat, ids: string[]): AsyncGenerator<{ id: string; mapped: Mapped<unknown> }> {
  if (format === "ndjson") {
    for (const record of await storedRecords(db, ids)) {
      const rawData = await rawDataOf(db, record.id);
      yield { id: record.id, mapped: { line: rawData ? { ...record, raw_data: rawData } : record } };
    }
    return;
  }
  const stored = await findStoredByIds(db, ids, false);
  const ldJson = format === "ucp" ? await findJsonLd(db, ids) : new Map<string, unknown>();
  for (const { product } of stored) {
    const mapped = format === "acp" ? productToAcp(product) : productToUcp(product, variantsFromJsonLd(ldJson.get(product.id)));
    yield { id: product.id, mapped };
  }
}
