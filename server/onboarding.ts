/**
 * First run: an empty catalog gets the sample catalog, and a catalog without a
 * usable key gets one, shown once. The server calls these at start.
 */
import { getMeta, setMeta } from "./catalog/repository.js";
import type { Root } from "./compose.js";
import { importRecords, type ImportSummary } from "./ingest/import.js";
import { readNdjson } from "./ingest/ndjson.js";
import { SAMPLE_CATALOG_PATH } from "./sample/index.js";

const SAMPLE_MARKER = "sample_catalog";

/**
 * Loads the sample catalog when SAMPLE_CATALOG is on and the catalog is empty, or finishes a load
 * that was cut short (the process stopped mid-import: the marker says so). Null when nothing was loaded.
 */
export async function loadSampleCatalog(root: Root): Promise<ImportSummary | null> {
  if (!root.config.SAMPLE_CATALOG) return null;
  const [database, services] = await Promise.all([root.database(), root.services()]);
  const state = await getMeta(database.db, SAMPLE_MARKER);
  if (state !== "loading" && (state !== null || (await services.catalog.stats()).products > 0)) return null;
  await setMeta(database.db, SAMPLE_MARKER, "loading");
  const summary = await importRecords({ db: database.db, embedder: await root.embedder() }, readNdjson(SAMPLE_CATALOG_PATH));
  await setMeta(database.db, SAMPLE_MARKER, "loaded");
  root.metrics.countImport(summary);
  return summary;
}

/** Issues a key when none can be used (none yet, or all revoked or expired); null when one can. */
export async function issueFirstKey(root: Root): Promise<{ key: string; id: string } | null> {
  const { keys } = await root.services();
  if ((await keys.countUsable()) > 0) return null;
  const { key, record } = await keys.issue({ name: "first key", environment: "dev" });
  return { key, id: record.id };
}
