/**
 * What opening a database gives its callers, whichever driver is underneath.
 * Nothing here imports a driver, so code that only queries needs none loaded.
 */
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import type { Database } from "./client.js";

/** The generated migrations, applied by either driver's migrator. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

export interface MigrateOptions {
  /** Products gone through of the table's, while a catalog stored before is converted to half-precision vectors. */
  onProgress?: (done: number, total: number) => void;
  /** That conversion's filling is done and its HNSW index, of `rows` vectors, is being built (minutes at a million). */
  onIndexing?: (rows: number) => void;
  /** Products per transaction of that conversion (1,000). */
  batchSize?: number;
}

export type DatabaseKind = "pglite" | "postgres";

export interface DatabaseHandle {
  readonly db: Database;
  readonly kind: DatabaseKind;
  /**
   * Whether VECTOR_SESSION_SETTINGS hold for every query: true for PGlite (one
   * session, set at open); false for a pool of Postgres connections (poolers
   * may drop startup options), where each vector search sets them locally.
   */
  readonly vectorSettingsInSession: boolean;
  /**
   * For what only reads the catalog (lookups, search): selects go to the read
   * replicas in turn (drizzle's withReplicas), anything else to the primary.
   * `db` itself always means the primary: imports, keys, rate limits.
   */
  readonly read: Database;
  /**
   * A database for a read that needs a transaction of its own (vector search
   * on Postgres), which withReplicas would send to the primary: the next
   * replica in turn, or `db` when there are none.
   */
  reader(): Database;
  /**
   * Applies pending migrations from `drizzle/`, then what is left of converting the vectors to half precision
   * (halfvec.ts), saying how far that has got.
   */
  migrate(options?: MigrateOptions): Promise<void>;
  /**
   * Runs `work` on a connection of its own without the query deadline (Postgres), for what holds a session or takes
   * minutes: a bulk load's lock and its index builds (catalog/bulk.ts). PGlite: its one session.
   */
  longStatements<T>(work: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Cheap round trip used by /health. */
export async function ping(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
