/** What the format modules share: a record as an import reads it, and an export's line or why a record has none. */
import type { z } from "zod";
import type { ImportRecordSchema } from "../ingest/record.js";

/** A record before the import's own validation (server/ingest/record.ts), which every format's record goes through. */
export type RecordInput = z.input<typeof ImportRecordSchema>;

/** A record as one line of a feed, or the reason it is left out (said on stderr, never a silent gap). */
export type Mapped<T> = { line: T } | { skipped: string };
