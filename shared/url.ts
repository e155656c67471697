/**
 * URL normalisation for product lookups and brand scoping. Shared so that a
 * consumer can compute the same key the service stores.
 */

/** Query parameters that only track a visit; they never select a product. */
const TRACKING_PARAMS = new Set([
  "gclid",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "yclid",
  "twclid",
  "ttclid",
  "igshid",
  "mc_eid",
  "mc_cid",
  "_ga",
  "_gl",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
  "srsltid",
  "oly_enc_id",
  "oly_anon_id",
  "vero_id",
  "wickedid",
  "rb_clickid",
  "s_cid",
  "ef_id",
  "irclickid",
  "spm",
]);

function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith("utm_") || TRACKING_PARAMS.has(lower);
}

/** Host without a leading `www.`, lower-cased (URL already lower-cases and punycodes it). */
function bareHost(hostname: string): string {
  return hostname.replace(/^www\./, "").replace(/\.$/, "");
}

/** Parses an absolute http(s) URL, or returns null. */
export function parseHttpUrl(input: string): URL | null {
  if (!URL.canParse(input)) return null;
  const url = new URL(input);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (!url.hostname) return null;
  return url;
}

/**
 * The key a product URL is stored and looked up by: host without `www.`, path
 * without trailing slash, and the query without tracking parameters, sorted.
 * Scheme, default port and fragment are dropped; a non-default port is kept
 * because it names a different server. Other parameters are kept: they can
 * select a variant.
 */
export function productUrlKey(input: string): string | null {
  const url = parseHttpUrl(input);
  if (!url) return null;
  const params = [...url.searchParams]
    .filter(([name]) => !isTrackingParam(name))
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : av > bv ? 1 : 0) : a < b ? -1 : 1));
  const query = new URLSearchParams(params).toString();
  const path = url.pathname.replace(/\/+$/, "");
  const port = url.port ? `:${url.port}` : "";
  return `${bareHost(url.hostname)}${port}${path}${query ? `?${query}` : ""}`;
}

/**
 * The brand scope of a `brand_url` parameter or of a product URL: the host
 * alone, ignoring scheme, case, a leading `www.`, port and path. Accepts a
 * bare domain (`brand.com`) as well as any URL on it.
 */
export function brandHost(input: string): string | null {
  const trimmed = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  const url = parseHttpUrl(withScheme);
  if (!url || url.username || url.password) return null;
  const host = bareHost(url.hostname);
  // A domain needs a dot or must be an IP/localhost-like label; reject junk like "%%%".
  if (!/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/.test(host) || host.length === 0) return null;
  return host;
}
