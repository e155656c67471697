/**
 * Product feeds in and out: our own NDJSON records, the Agentic Commerce Protocol's product feed (acp) and UCP
 * products (ucp), each a JSON object a line. `readFeed` gives an import its records (a bad line is an error with its
 * number, never the end of the file); `exportFeed` writes the catalog, a page at a time. The CLI only wires these.
 * Which fields map to what: docs/operations.md#feeds; why: docs/decisions/0015-feeds-formats.md.
 */
export { AcpProductSchema } from "./acp.js";
export { CursorAheadError, type ExportOptions, type ExportSummary, exportFeed, type WriteLine } from "./export.js";
export { detectFormat, FEED_FORMATS, type FeedFormat, isFeedFormat, readFeed } from "./read.js";
export { UcpFeedProductSchema } from "./ucp.js";
