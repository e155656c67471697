/**
 * /docs: Scalar's API reference page over /openapi.json. The page is ours (a
 * few lines) and so is the serving: the Scalar bundle (3.5 MB) is compressed
 * once and served at a URL named after its digest, cached for a year; the
 * page itself is revalidated by ETag. The page runs under a strict CSP: its
 * one inline script is allowed by its hash, nothing loads from elsewhere, and
 * no other site may frame it.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyPluginAsync } from "fastify";
import { hash } from "node:crypto";
import { IMMUTABLE, REVALIDATE, type StaticAsset, staticAsset } from "./static.js";

/**
 * Scalar's standalone bundle, as @scalar/fastify-api-reference ships it (pinned in package.json:
 * later versions need Node 22). The package's plugin is not used: it serves the bundle uncompressed,
 * with no validator, on every request.
 */
function scalarBundle(): string {
  const entry = createRequire(import.meta.url).resolve("@scalar/fastify-api-reference");
  return readFileSync(join(dirname(entry), "js", "standalone.js"), "utf8");
}

/** Made on first use and shared by every app in the process (tests build many). */
let bundle: StaticAsset | undefined;

function page(title: string, scriptUrl: string, configuration: object, publicUrl: string | undefined): { html: string; csp: string } {
  // `<` escaped so nothing in the configuration can close the script element.
  const init = `Scalar.createApiReference("#app", ${JSON.stringify(configuration).replaceAll("<", "\\u003c")});`;
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="icon" href="data:,">
  </head>
  <body>
    <div id="app"></div>
    <script src="${scriptUrl}"></script>
    <script>${init}</script>
  </body>
</html>
`;
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash("sha256", init, "base64")}'`,
    // Scalar injects its styles at run time and sets style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    // The request console calls the API where the document's servers are: this origin, or PUBLIC_URL when it is set.
    `connect-src 'self'${publicUrl ? ` ${publicUrl}` : ""}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  return { html, csp };
}

/**
 * Scalar's own placeholder in the key's box ("QUxMIFlPVVIg…", base64 for a joke) reads as a key someone left there; the
 * scheme's description above the box says what goes in it. Scalar has no option for it, so its colour is taken away.
 */
const CUSTOM_CSS = 'input[placeholder^="QUxMIFlPVVIg"]::placeholder { color: transparent; }';

/** Scalar's configuration: the reference and its console, without what belongs to Scalar's own product. */
function configuration(documentUrl: string): object {
  return {
    url: documentUrl,
    // Nothing from Scalar's servers (fonts, its agent's registry): the page must work offline and under the CSP.
    withDefaultFonts: false,
    agent: { disabled: true },
    // The Developer Tools / Configure / Share / Deploy bar (shown on localhost by default) edits Scalar's page, not the API.
    showDeveloperTools: "never",
    customCss: CUSTOM_CSS,
  };
}

export const docsPlugin: FastifyPluginAsync<{ title: string; documentUrl: string; publicUrl: string | undefined }> = async (app, opts) => {
  bundle ??= staticAsset(scalarBundle(), { type: "text/javascript; charset=utf-8", cacheControl: IMMUTABLE });
  const script = bundle;
  const scriptUrl = `/docs/js/scalar.${script.digest.slice(0, 16)}.js`;
  const { html, csp } = page(opts.title, scriptUrl, configuration(opts.documentUrl), opts.publicUrl);
  const document = staticAsset(html, { type: "text/html; charset=utf-8", cacheControl: REVALIDATE });
  const headers = {
    "content-security-policy": csp,
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  };

  app.get("/docs", { config: { precompressed: true } }, (request, reply) => document.send(request, reply.headers(headers)));
  app.get(scriptUrl, { config: { precompressed: true } }, (request, reply) => script.send(request, reply));
};
