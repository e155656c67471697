/**
 * First run: an empty catalog gets the sample catalog, and a catalog without a
 * usable key gets one, shown once. The server calls these at start.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { getMeta, setMeta } from "./catalog/repository.js";
import type { Root } from "./compose.js";
import { importRecords, type ImportSummary } from "./ingest/import.js";
import { readNdjson } from "./ingest/ndjson.js";
import { SAMPLE_CATALOG_PATH } from "./sample/index.js";

const SAMPLE_MARKER = "sample_catalog";
/** Set once the server has printed a first key; without it, a start that issues none says how to get one. */
const KEY_SHOWN_MARKER = "first_key_shown";

/**
 * Loads the sample catalog when SAMPLE_CATALOG is on and the catalog is empty, or finishes a load
 * that was cut short (the process stopped mid-import: the marker says so). Null when nothing was loaded.
 */
export async function loadSampleCatalog(root: Root, onProgress?: (summary: ImportSummary) => void): Promise<ImportSummary | null> {
  if (!root.config.SAMPLE_CATALOG) return null;
  // The base services, not all: a catalog that is not empty needs no sentence encoder loaded to learn so.
  const [database, base] = await Promise.all([root.database(), root.base()]);
  const state = await getMeta(database.db, SAMPLE_MARKER);
  if (state !== "loading" && (state !== null || (await base.catalog.stats()).products > 0)) return null;
  await setMeta(database.db, SAMPLE_MARKER, "loading");
  const summary = await importRecords(
    { db: database.db, embedder: await root.embedder() },
    readNdjson(SAMPLE_CATALOG_PATH),
    onProgress ? { onProgress } : {},
  );
  await setMeta(database.db, SAMPLE_MARKER, "loaded");
  root.metrics.countImport(summary);
  return summary;
}

/** Records that the server printed a key (see KEY_SHOWN_MARKER). */
export async function markKeyShown(root: Root): Promise<void> {
  await setMeta((await root.database()).db, KEY_SHOWN_MARKER, "yes");
}

/** Whether this catalog's server ever printed a key (false for a data dir whose first start stopped before it could). */
export async function keyWasShown(root: Root): Promise<boolean> {
  return (await getMeta((await root.database()).db, KEY_SHOWN_MARKER)) !== null;
}

/** Issues a key when none can be used (none yet, or all revoked or expired); null when one can. */
export async function issueFirstKey(root: Root): Promise<{ key: string; id: string } | null> {
  const { keys } = await root.base();
  if ((await keys.countUsable()) > 0) return null;
  const { key, record } = await keys.issue({ name: "first key", environment: "dev" });
  return { key, id: record.id };
}

/** Where a first key goes when there is no terminal to show it on (see main.ts onboardKey). */
export const KEY_FILE_NAME = "first-api-key";

/**
 * Writes the key to DATA_DIR/first-api-key, mode 0600 from its creation (a file left by an earlier start is removed
 * first: its mode might be wider, and `wx` refuses to reuse it). Returns the file's absolute path.
 */
export function writeKeyFile(dataDir: string, key: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = resolve(dataDir, KEY_FILE_NAME);
  rmSync(path, { force: true });
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: "wx" });
  return path;
}
