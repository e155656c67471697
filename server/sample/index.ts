import { fileURLToPath } from "node:url";

/** The project's own sample catalog (fictional brands on `.example` domains), loaded into an empty catalog at start. */
export const SAMPLE_CATALOG_PATH = fileURLToPath(new URL("./products.ndjson", import.meta.url));
