/**
 * Import: validated records in, embedded and upserted in transactions. A
 * record whose content hash is already stored is not written again nor
 * embedded: only when its page was read and confirmed moves (`fetched_at`,
 * `checked_at`), so importing the same file twice changes no record. A batch
 * the database refuses is written again record by record, so that only the
 * record at fault fails; the summary counts what is found stored afterwards.
 *
 * Every transaction that changes records ends with `commitChanges` (the change
 * feed and the catalog version); a record of a gone product that is imported
 * again brings it back, changed or not. An import that wrote products ends by
 * settling the catalog's language (search/languages/catalog.ts) and refreshing
 * the planner's statistics when they are due (catalog/analyze.ts).
 */
import type { Database } from "../db/client.js";
import { deferIndexes, lockBulkLoad, restoreDeferredIndexes, unlockBulkLoad } from "../db/deferred-indexes.js";
import type { DatabaseHandle } from "../db/handle.js";
import { upsertProductsInBulk } from "../catalog/bulk.js";
import { describeDatabaseError, isDatabaseUnavailable } from "../db/errors.js";
import { analyzeIfDue } from "../catalog/analyze.js";
import { recordPriceStates } from "../catalog/prices.js";
import {
  commitChanges,
  confirmProducts,
  deleteMeta,
  findExisting,
  getMeta,
  type PageValidators,
  restoreProducts,
  setMeta,
  upsertProducts,
} from "../catalog/repository.js";
import type { Embedder } from "../search/embedder.js";
import { catalogLanguage, settleCatalogLanguage } from "../search/languages/catalog.js";
import { matchProducts, storedMatchKeys } from "../matching/service.js";
import { type MatchSettings, settingsFingerprint, shippedMatchSettings } from "../matching/settings.js";
import type { ParsedLine } from "./ndjson.js";
import { prepareRecord, type PreparedRecord } from "./record.js";
import { suppliedVector } from "./vectors.js";

export interface ImportFailure {
  source: string;
  line: number;
  reason: string;
}

/** A line whose record a later line of the same import replaced (same product: the same URL, or the same id). */
export interface ImportReplacement {
  source: string;
  line: number;
  /** The product both lines are. */
  id: string;
  replacedBy: { source: string; line: number };
}

export interface ImportSummary {
  imported: number;
  updated: number;
  unchanged: number;
  failed: number;
  failures: ImportFailure[];
  /** Lines not stored as given because a later line was the same product; not failures (the later line is the record). */
  replaced: ImportReplacement[];
}

export interface ImportDeps {
  db: Database;
  embedder: Embedder;
  /** Matching's settings; the shipped ones when not given; null: no matching (a benchmark's baseline). */
  matching?: MatchSettings | null;
}

export interface ImportOptions {
  /** Records a transaction: 64, or 1,000 for a bulk load. */
  batchSize?: number;
  onProgress?: (summary: ImportSummary) => void;
  /** A bulk load (`catalog import --bulk`): see `bulkImport`. */
  bulk?: BulkLoad;
}

export interface BulkLoad {
  /** A connection of its own without the query deadline, for the load's lock and its index builds (db/handle.ts). */
  longStatements: DatabaseHandle["longStatements"];
  /** The load is written; the indexes it put off are being built. */
  onIndexing?: (names: string[]) => void;
  /** Those are built; matching the records, `done` of `total`, is under way. */
  onMatching?: (done: number, total: number) => void;
}

/** A bulk load's batches: a thousand records a statement, where the per-statement costs are spread thin. */
const BULK_BATCH = 1000;
/**
 * A bulk load's transactions at once. Two: on two cores the database's write of 10,000 more products into a
 * million-product catalog ran 1.35× faster on two connections than on one (bench:million --reuse --bulk).
 */
const BULK_WRITERS = 2;
/** Set while a bulk load runs, until it has matched what it wrote: found set, a load was stopped before that. */
const UNFINISHED_KEY = "bulk_load_unfinished";

/** A line to import; a record from a fetched page carries the validators its fetch answered, stored with it. */
export type ImportLine = ParsedLine & { validators?: PageValidators };

export async function importRecords(
  deps: ImportDeps,
  lines: AsyncIterable<ImportLine> | Iterable<ImportLine>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const { bulk } = options;
  if (bulk) return bulk.longStatements((long) => bulkImport(deps, lines, options, bulk, long));
  const { summary } = await load(deps, lines, options.batchSize ?? 64, options.onProgress, false);
  await afterImport(deps, summary);
  return summary;
}

/**
 * A bulk load (docs/decisions/0020-bulk-load.md), for a catalog loaded from empty or from much smaller than the load:
 * batches of 1,000 upserted by one statement each (catalog/bulk.ts), the HNSW and full-text indexes dropped before the
 * load and built after it (db/deferred-indexes.ts), and matching run once every record is stored and indexed, over
 * the records written, in the import's order (after a load that was stopped, over every record read: which of them
 * the stopped one matched is not known). What is stored is what the ordinary import stores; meanwhile vector and full-text searches of
 * the catalog scan the table instead of an index. One bulk load at a time: a second waits for the first's lock.
 */
async function bulkImport(
  deps: ImportDeps,
  lines: AsyncIterable<ImportLine> | Iterable<ImportLine>,
  options: ImportOptions,
  bulk: BulkLoad,
  long: Database,
): Promise<ImportSummary> {
  await lockBulkLoad(long);
  try {
    // A load stopped before it matched what it wrote: this one matches every record it reads, unchanged ones too.
    const resumed = (await getMeta(long, UNFINISHED_KEY)) !== null;
    await setMeta(long, UNFINISHED_KEY, new Date().toISOString());
    await deferIndexes(long);
    const { summary, ids, written } = await load(deps, lines, options.batchSize ?? BULK_BATCH, options.onProgress, true);
    await restoreDeferredIndexes(long, bulk.onIndexing ? { onIndexing: bulk.onIndexing } : {});
    // Before matching: a planner that still thinks the catalog empty finds each record's nearest vectors by a scan.
    await analyzeIfDue(long);
    const settings = matchSettings(deps);
    const toMatch = resumed ? ids : written;
    for (let at = 0; settings && at < toMatch.length; at += BULK_BATCH) {
      bulk.onMatching?.(at, toMatch.length);
      await matchProducts(deps.db, toMatch.slice(at, at + BULK_BATCH), settings);
    }
    await deleteMeta(long, UNFINISHED_KEY);
    await afterImport(deps, summary);
    return summary;
  } finally {
    await unlockBulkLoad(long);
  }
}

/**
 * Reads, prepares and writes the lines through the pipeline; answers the summary, the id of every record read (in the
 * order first read) and, for a bulk load, of every record written. `bulk`: written by the bulk upsert, and not matched
 * batch by batch.
 */
async function load(
  deps: ImportDeps,
  lines: AsyncIterable<ImportLine> | Iterable<ImportLine>,
  batchSize: number,
  onProgress: ImportOptions["onProgress"],
  bulk: boolean,
): Promise<{ summary: ImportSummary; ids: string[]; written: string[] }> {
  const summary: ImportSummary = { imported: 0, updated: 0, unchanged: 0, failed: 0, failures: [], replaced: [] };
  // The line each product came from so far in this import: one entry a product, so a file that names a product twice
  // says so rather than keeping the last silently (the line numbers are what the operator fixes).
  const lineOf = new Map<string, { source: string; line: number }>();
  const fail = (source: string, line: number, reason: string) => {
    summary.failed++;
    summary.failures.push({ source, line, reason });
  };

  const written: string[] = [];
  const pipeline = createPipeline(deps, summary, fail, onProgress, bulk ? written : null);
  let batch: BatchItem[] = [];
  for await (const parsed of lines) {
    if ("error" in parsed) {
      fail(parsed.source, parsed.line, parsed.error);
      continue;
    }
    let record: PreparedRecord;
    try {
      record = prepareRecord(parsed.record);
    } catch (error) {
      fail(parsed.source, parsed.line, `cannot prepare the record: ${(error as Error).message}`);
      continue;
    }
    const supplied = parsed.record.embedding ? suppliedVector(parsed.record.embedding, deps.embedder) : null;
    if (supplied && "error" in supplied) {
      fail(parsed.source, parsed.line, supplied.error);
      continue;
    }
    const earlier = lineOf.get(record.id);
    if (earlier) summary.replaced.push({ ...earlier, id: record.id, replacedBy: { source: parsed.source, line: parsed.line } });
    lineOf.set(record.id, { source: parsed.source, line: parsed.line });
    batch.push({
      source: parsed.source,
      line: parsed.line,
      record,
      ...(parsed.validators ? { validators: parsed.validators } : {}),
      ...(supplied ? { vector: supplied.vector } : {}),
    });
    if (batch.length >= batchSize) {
      await pipeline.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await pipeline.push(batch);
  await pipeline.finish();
  return { summary, ids: [...lineOf.keys()], written };
}

async function afterImport(deps: ImportDeps, summary: ImportSummary): Promise<void> {
  if (summary.imported + summary.updated === 0) return;
  // The catalog's language may have moved with what was written, and with it how its unknown-language records read.
  await settleCatalogLanguage(deps.db);
  // What was written stays written: statistics that could not be gathered now are gathered by the next import or
  // the server's next start (catalog/analyze.ts).
  await analyzeIfDue(deps.db).catch(() => false);
}

/** `vector`: supplied with the record (ingest/vectors.ts), so it is not embedded. */
type BatchItem = { source: string; line: number; record: PreparedRecord; validators?: PageValidators; vector?: number[] };

/** A batch read against what is stored: what to write, and its vectors on their way from the encoder. */
interface Planned {
  items: BatchItem[];
  toWrite: BatchItem[];
  hashById: Map<string, string>;
  vectors: Promise<number[][]>;
  catalogLang: string;
}

/**
 * The import as a pipeline of three stages, each on its own resource: records are prepared (the caller's loop, this
 * thread) while the previous batch is embedded (the encoder's threads) and the ones before it written (the database,
 * up to `writers` transactions at once: a bulk load's two keep both of the database's cores busy while this thread
 * prepares). Two in flight may commit in either order (the change feed numbers them as they commit,
 * catalog/repository.ts); what the import reports of them is taken in order. A batch is read against the database
 * before the batches ahead of it are written, unless it shares a product or a URL with one: then those writes come
 * first, so each batch sees the ones before. With the encoder on this thread, a batch is embedded while the next is
 * prepared, and written before the next is embedded.
 */
function createPipeline(
  deps: ImportDeps,
  summary: ImportSummary,
  fail: (source: string, line: number, reason: string) => void,
  onProgress: ((summary: ImportSummary) => void) | undefined,
  /** A bulk load's list of the records written, in order; null for an ordinary import. */
  bulk: string[] | null,
) {
  const writers = bulk ? BULK_WRITERS : 1;
  let embedding: Planned | null = null;
  const writing: { planned: Planned; done: Promise<string[]> }[] = [];
  const write = (planned: Planned) =>
    handled(
      writePlanned(deps, planned, summary, fail, bulk !== null).then((ids) => {
        onProgress?.(summary);
        return ids;
      }),
    );
  // The records written, kept in the import's order however the writes in flight end.
  const wrote = (ids: string[]) => bulk?.push(...ids);
  const overlaps = (ahead: Planned, batch: BatchItem[]) => {
    const keys = new Set(ahead.items.flatMap((item) => [item.record.id, `url ${item.record.urlKey}`]));
    return batch.some((item) => keys.has(item.record.id) || keys.has(`url ${item.record.urlKey}`));
  };
  const drain = async (keep: number) => {
    while (writing.length > keep) wrote(await writing.shift()!.done);
  };
  return {
    async push(batch: BatchItem[]): Promise<void> {
      await drain(writers - 1);
      if (writing.some((inFlight) => overlaps(inFlight.planned, batch))) await drain(0);
      let ahead = embedding;
      embedding = null;
      // An encoder on this thread would hold the event loop while the write ahead waits on the database.
      if (ahead && (deps.embedder.onCallerThread || overlaps(ahead, batch))) {
        await drain(0);
        wrote(await write(ahead));
        ahead = null;
      }
      const planned = await planBatch(deps, batch, summary, fail);
      if (ahead) writing.push({ planned: ahead, done: write(ahead) });
      if (planned.toWrite.length > 0) embedding = planned;
      else onProgress?.(summary);
    },
    async finish(): Promise<void> {
      await drain(0);
      if (embedding) wrote(await write(embedding));
      embedding = null;
    },
  };
}

/** `promise`, marked handled now: it is awaited later, and a rejection before then must not end the process. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Reads a batch against what is stored, confirms what is unchanged, and starts embedding what is to be written. */
async function planBatch(
  deps: ImportDeps,
  batch: BatchItem[],
  summary: ImportSummary,
  fail: (source: string, line: number, reason: string) => void,
): Promise<Planned> {
  // Within a batch the last line for an id wins, as it would in sequence.
  const lastById = new Map(batch.map((item) => [item.record.id, item]));
  const items = batch.filter((item) => lastById.get(item.record.id) === item);
  const existing = await findExisting(
    deps.db,
    items.map((item) => item.record.id),
    items.map((item) => item.record.urlKey),
  );
  const storedById = new Map(existing.map((row) => [row.id, row]));
  const hashById = new Map(existing.map((row) => [row.id, row.contentHash]));
  const idByUrlKey = new Map(existing.map((row) => [row.urlKey, row.id]));

  const toWrite: typeof items = [];
  const unchanged: typeof items = [];
  for (const item of items) {
    const { id, urlKey, contentHash } = item.record;
    const owner = idByUrlKey.get(urlKey);
    if (owner !== undefined && owner !== id) {
      fail(item.source, item.line, `url ${item.record.url} already belongs to product ${owner}`);
      continue;
    }
    idByUrlKey.set(urlKey, id);
    if (hashById.get(id) === contentHash) unchanged.push(item);
    else toWrite.push(item);
  }
  await confirmUnchanged(deps, unchanged, storedById, summary);
  // A record whose language is unknown is indexed in the catalog's (search/languages/catalog.ts).
  const catalogLang = toWrite.length > 0 ? await catalogLanguage(deps.db) : "";
  const vectors = handled(vectorsFor(deps.embedder, toWrite));
  return { items, toWrite, hashById, vectors, catalogLang };
}

/** Each item's vector, in order: its supplied one, or the encoder's (only the items without one are embedded). */
async function vectorsFor(embedder: Embedder, items: readonly BatchItem[]): Promise<number[][]> {
  const missing = items.filter((item) => item.vector === undefined);
  const made = missing.length > 0 ? await embedder.embed(missing.map((item) => item.record.embeddingText)) : [];
  let next = 0;
  return items.map((item) => item.vector ?? made[next++]!);
}

/**
 * Writes a planned batch in one transaction, or record by record when the database refuses it; answers the ids of the
 * records written. `bulk`: by the bulk upsert, and not matched here.
 */
async function writePlanned(
  deps: ImportDeps,
  planned: Planned,
  summary: ImportSummary,
  fail: (source: string, line: number, reason: string) => void,
  bulk: boolean,
): Promise<string[]> {
  const { toWrite, hashById, catalogLang } = planned;
  const upsert = bulk ? upsertProductsInBulk : upsertProducts;
  const vectors = await planned.vectors;
  const settings = matchSettings(deps);
  // Once a batch: the fingerprint hashes the whole settings file.
  const matchedWith = settings ? settingsFingerprint(settings) : null;
  const rows = toWrite.map(({ record, validators }, index) => {
    const { embeddingText: _text, ...row } = record;
    const searchLang = row.lang ?? catalogLang;
    const keys = settings ? storedMatchKeys(matchInput(row), settings) : [];
    return {
      ...row,
      searchLang,
      matchKeys: keys,
      matchedWith,
      embedding: vectors[index] ?? null,
      embeddingModel: deps.embedder.model,
      ...(validators ? { validators } : {}),
    };
  });
  const write = (part: typeof rows) =>
    deps.db.transaction(async (tx) => {
      await upsert(tx, part);
      await recordPriceStates(
        tx,
        part.map((row) => ({
          id: row.id,
          priceMinor: row.priceMinor ?? null,
          currency: row.currency ?? null,
          availability: row.availability ?? null,
        })),
      );
      await commitChanges(
        tx,
        part.map((row) => row.id),
      );
    });
  let written = toWrite;
  try {
    await write(rows);
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    // One record the database refuses must not cost the others theirs: write them one by one.
    written = [];
    for (const [index, item] of toWrite.entries()) {
      try {
        await write([rows[index]!]);
        written.push(item);
      } catch (single) {
        if (isDatabaseUnavailable(single)) throw single;
        fail(item.source, item.line, `the database refused the record: ${describeDatabaseError(single)}`);
      }
    }
  }
  await countStored(deps, written, hashById, summary, fail);
  const ids = written.map((item) => item.record.id);
  // After the write, not in it: a record stored is kept even when matching it fails (`catalog rematch` retries). A bulk
  // load matches once it is loaded and indexed.
  if (settings && !bulk) await matchProducts(deps.db, ids, settings);
  return ids;
}

/**
 * Records whose content is stored already: their page was read and found the same, so `fetched_at` and `checked_at`
 * move (no catalog version bump: lookups may show the earlier times until their cache turns over, at most a minute).
 * A gone one among them is back, which is a change: it enters the feed, in a transaction of its own.
 */
async function confirmUnchanged(
  deps: ImportDeps,
  items: BatchItem[],
  stored: Map<string, { goneAt: Date | null }>,
  summary: ImportSummary,
): Promise<void> {
  if (items.length === 0) return;
  const confirmation = (item: BatchItem) => ({ id: item.record.id, read: true, ...(item.validators ? { validators: item.validators } : {}) });
  const back = items.filter((item) => stored.get(item.record.id)?.goneAt);
  const there = items.filter((item) => !stored.get(item.record.id)?.goneAt);
  await confirmProducts(deps.db, there.map(confirmation));
  summary.unchanged += there.length;
  if (back.length === 0) return;
  await deps.db.transaction(async (tx) => {
    await confirmProducts(tx, back.map(confirmation));
    await commitChanges(
      tx,
      await restoreProducts(
        tx,
        back.map((item) => item.record.id),
      ),
    );
  });
  summary.updated += back.length;
}

/** Counts as imported or updated only what is found stored with the hash just written. */
async function countStored(
  deps: ImportDeps,
  written: BatchItem[],
  hashBefore: Map<string, string>,
  summary: ImportSummary,
  fail: (source: string, line: number, reason: string) => void,
): Promise<void> {
  if (written.length === 0) return;
  const stored = await findExisting(
    deps.db,
    written.map((item) => item.record.id),
    [],
  );
  const hashNow = new Map(stored.map((row) => [row.id, row.contentHash]));
  for (const item of written) {
    if (hashNow.get(item.record.id) !== item.record.contentHash) fail(item.source, item.line, "not stored: the write did not take effect");
    else if (hashBefore.has(item.record.id)) summary.updated++;
    else summary.imported++;
  }
}

function matchSettings(deps: ImportDeps): MatchSettings | null {
  return deps.matching === undefined ? shippedMatchSettings() : deps.matching;
}

/** What matching reads of a record about to be stored (its vector is not needed for its keys). */
function matchInput(row: Omit<PreparedRecord, "embeddingText">) {
  return {
    id: row.id,
    merchant: row.brandHost,
    name: row.name,
    brand: row.brand ?? null,
    gtin14: row.gtin14 ?? null,
    mpn: row.identifiers?.mpn ?? null,
    vector: null,
  };
}
