/**
 * How many products hold each stemmed word of the catalog (the local
 * reranker's document frequencies), read from `search_lexemes` (kept in step
 * with the products by triggers, db/schema.ts) in one query and kept in memory:
 * a search then counts nothing. Counting on demand cost up to 200 ms for a
 * common word at 100,000 products, and counting every product's document at
 * start (ts_stat) over 5 s at a million.
 *
 * The table is read again only when an import changed the catalog, at most
 * once per `minAgeMs`, in the background: meanwhile the previous table serves,
 * since a few products more or less barely move a word's weight.
 */
import { sql } from "drizzle-orm";
import { catalogVersion } from "../catalog/repository.js";
import type { Database } from "../db/client.js";
import { searchLexemes } from "../db/schema.js";
import { warnOnStderr } from "../warnings.js";

export interface WordFrequencies {
  /** Products holding the lexeme; undefined when the table is partial and does not list it (count it instead). */
  frequency(lexeme: string): number | undefined;
  readonly lexemes: number;
}

/** The most words kept; a catalog with more keeps its commonest, and the rest are counted on demand. */
export const MAX_LEXEMES = 1_000_000;

export async function readWordFrequencies(db: Database, max = MAX_LEXEMES): Promise<WordFrequencies> {
  const rows = await db
    .select({ lexeme: searchLexemes.lexeme, ndoc: searchLexemes.ndoc })
    .from(searchLexemes)
    .where(sql`${searchLexemes.ndoc} > 0`)
    .orderBy(sql`${searchLexemes.ndoc} desc`)
    .limit(max);
  const counts = new Map(rows.map((row) => [row.lexeme, row.ndoc]));
  const complete = rows.length < max;
  return { frequency: (lexeme) => counts.get(lexeme) ?? (complete ? 0 : undefined), lexemes: counts.size };
}

export interface FrequenciesOptions {
  /** How often the catalog's version is checked (one small query). */
  checkMs: number;
  /** The shortest time between two reads of the table. */
  minAgeMs: number;
  now?: () => number;
  /** Reads the table (tests count the reads). */
  read?: (db: Database) => Promise<WordFrequencies>;
  /** Told when a read behind a search fails (it is retried by a later call); default a line on stderr. */
  warn?: (message: string) => void;
}

/** The table for the catalog as it is (call it), and when the reads behind searches are done. */
export interface FrequencyTable {
  (): Promise<WordFrequencies>;
  /** Resolves once no read is in flight: what closes the database waits for it, rather than fail it. */
  settled(): Promise<void>;
}

/**
 * The table for the catalog as it is: the first call waits for the first read (concurrent callers share it); later
 * calls answer at once from memory while a changed catalog's table is read behind them. A failed read is retried by
 * a later call.
 */
export function wordFrequenciesOf(db: Database, options: FrequenciesOptions): FrequencyTable {
  const now = options.now ?? (() => performance.now());
  const read = options.read ?? readWordFrequencies;
  const warn = options.warn ?? warnOnStderr;
  let current: { table: WordFrequencies; version: string | null; at: number } | undefined;
  let first: Promise<WordFrequencies> | undefined;
  let checked = Number.NEGATIVE_INFINITY;
  let refreshing: Promise<void> | undefined;

  async function load(): Promise<WordFrequencies> {
    const version = await catalogVersion(db);
    const at = now();
    const table = await read(db);
    current = { table, version, at };
    return table;
  }

  async function refresh(): Promise<void> {
    const version = await catalogVersion(db);
    if (!current || version === current.version || now() - current.at < options.minAgeMs) return;
    await load();
  }

  const table = () => {
    if (!current) {
      first ??= load().finally(() => {
        first = undefined;
      });
      return first;
    }
    if (!refreshing && now() - checked >= options.checkMs) {
      checked = now();
      refreshing = refresh()
        .catch((error: unknown) => {
          checked = Number.NEGATIVE_INFINITY;
          warn(
            `the catalog's word frequencies could not be read again (searches keep the previous table): ${error instanceof Error ? error.message : String(error)}`,
          );
        })
        .finally(() => {
          refreshing = undefined;
        });
    }
    return Promise.resolve(current.table);
  };
  return Object.assign(table, {
    async settled() {
      await Promise.all([refreshing, first?.catch(() => undefined)]);
    },
  });
}
