/**
 * npm run bench:search-page — what the search page (/search) costs a browser: its script and stylesheet as served
 * (minified; brotli and gzip at the server's quality), against the page's budget of 100 KB compressed for the script.
 * With --paint, also the time from a search's answer to its painted results in Debian's chromium, against a server on
 * loopback with the sample catalog (the page marks both: web/search/main.ts), median and worst of --rounds searches.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { searchPageSources } from "../server/api/http/search-page.js";

const BUDGET = 100 * 1024;

const { values } = parseArgs({ options: { paint: { type: "boolean", default: false }, rounds: { type: "string", default: "10" } } });

const started = performance.now();
const { script, styles } = await searchPageSources();
const bundleMs = performance.now() - started;
const sizes = (text: string) => ({
  raw: Buffer.byteLength(text),
  brotli: brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }).length,
  gzip: gzipSync(text, { level: 9 }).length,
});
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(`bundled in ${bundleMs.toFixed(0)} ms (esbuild, cold)`);
console.log("asset       raw        brotli     gzip");
for (const [name, text] of [
  ["script", script],
  ["stylesheet", styles],
] as const) {
  const size = sizes(text);
  console.log(`${name.padEnd(11)} ${kb(size.raw).padEnd(10)} ${kb(size.brotli).padEnd(10)} ${kb(size.gzip)}`);
}
const gzip = sizes(script).gzip;
console.log(`script budget: ${kb(BUDGET)} compressed; gzip is ${((gzip / BUDGET) * 100).toFixed(0)}% of it${gzip > BUDGET ? " (OVER)" : ""}`);

if (values.paint) {
  const { measurePaint } = await import("./search-page-paint.js");
  await measurePaint(Number(values.rounds));
}
