/**
 * /search: the search page for people (web/search). Its TypeScript is bundled by esbuild on the first request (the
 * bundle is some 36 KB, built in a fraction of a second, so a start or a test that never opens the page pays nothing)
 * and served, with its stylesheet, at URLs named after their digests, cached for a year; the page itself is
 * revalidated by ETag. Public like /docs: every data call it makes still needs the key the person enters. It runs
 * under a strict CSP: scripts and styles from this server only, calls to this server only, no framing.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { FastifyPluginAsync } from "fastify";
import { IMMUTABLE, REVALIDATE, type StaticAsset, staticAsset } from "./static.js";

const ENTRY = fileURLToPath(new URL("../../../web/search/main.ts", import.meta.url));
const STYLES = fileURLToPath(new URL("../../../web/search/search.css", import.meta.url));

/** The page's script, minified, and its stylesheet: what the browser downloads (bench/search-page.ts measures them). */
export async function searchPageSources(): Promise<{ script: string; styles: string }> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    legalComments: "none",
    write: false,
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error("esbuild wrote no bundle for the search page");
  return { script: output.text, styles: readFileSync(STYLES, "utf8") };
}

interface Page {
  document: StaticAsset;
  /** By file name under /search/assets/. */
  assets: Map<string, StaticAsset>;
}

function shell(title: string, scriptUrl: string, stylesUrl: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="${stylesUrl}">
    <script type="module" src="${scriptUrl}"></script>
  </head>
  <body>
    <header class="top">
      <a class="home" href="/search">${title}</a>
      <form id="search-form" role="search">
        <label for="q" class="visually-hidden">Search products</label>
        <input id="q" name="q" type="search" placeholder="Search products" autocomplete="off" maxlength="512">
        <button type="submit">Search</button>
      </form>
      <button id="key-button" type="button" hidden>Change API key</button>
    </header>
    <form id="key-form" hidden>
      <label for="key">API key</label>
      <input id="key" type="password" autocomplete="off" spellcheck="false" placeholder="pcl_…">
      <button type="submit">Use this key</button>
      <p>Every search needs an API key (<code>npm start</code> prints one). It is kept in this browser's storage and sent only to this server.</p>
    </form>
    <p id="notice" role="alert" hidden></p>
    <div id="main">
      <aside id="facets" aria-label="Filters"></aside>
      <main id="results"></main>
    </div>
    <noscript><p>This page needs JavaScript.</p></noscript>
  </body>
</html>
`;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Product images are on the merchants' hosts, whichever they are; the placeholder stands in when one does not load.
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Built on first use and shared by every app in the process (tests build many); built again after a failure. */
let built: Promise<Page> | undefined;

async function buildPage(title: string): Promise<Page> {
  const { script, styles } = await searchPageSources();
  const js = staticAsset(script, { type: "text/javascript; charset=utf-8", cacheControl: IMMUTABLE });
  const css = staticAsset(styles, { type: "text/css; charset=utf-8", cacheControl: IMMUTABLE });
  const scriptName = `search.${js.digest.slice(0, 16)}.js`;
  const stylesName = `search.${css.digest.slice(0, 16)}.css`;
  const html = shell(title, `/search/assets/${scriptName}`, `/search/assets/${stylesName}`);
  return {
    document: staticAsset(html, { type: "text/html; charset=utf-8", cacheControl: REVALIDATE }),
    assets: new Map([
      [scriptName, js],
      [stylesName, css],
    ]),
  };
}

function page(title: string): Promise<Page> {
  built ??= buildPage(title).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

export const searchPagePlugin: FastifyPluginAsync<{ title: string }> = async (app, opts) => {
  const headers = {
    "content-security-policy": CSP,
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  };
  const precompressed = { config: { precompressed: true } };
  app.get("/search", precompressed, async (request, reply) => (await page(opts.title)).document.send(request, reply.headers(headers)));
  app.get<{ Params: { file: string } }>("/search/assets/:file", precompressed, async (request, reply) => {
    const asset = (await page(opts.title)).assets.get(request.params.file);
    return asset ? asset.send(request, reply) : reply.callNotFound();
  });
};
