/** A catalog migrated only so far, as an operator upgrading an older version finds it. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "../../server/db/handle.js";

export interface Journal {
  entries: { idx: number; tag: string }[];
}

/** A copy of the migrations folder whose journal ends at `lastTag`, which drizzle's migrator then stops at. */
export function migrationsUpTo(lastTag: string): { folder: string; remove(): void } {
  const folder = mkdtempSync(join(tmpdir(), "catalog-migrations-"));
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as Journal; // drizzle-kit's journal, read back as written
  const last = journal.entries.findIndex((entry) => entry.tag === lastTag);
  if (last < 0) throw new Error(`no migration ${lastTag} in the journal`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}
