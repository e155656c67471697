import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type * as schema from "./schema.js";

type Schema = typeof schema;
/** The drizzle database, whichever driver is underneath (PGlite or postgres.js). */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Queries take either, so they compose inside transactions. */
export type DbOrTx = Database | Transaction;
