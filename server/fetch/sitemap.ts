/**
 * Sitemaps (sitemaps.org 0.9): a `urlset` lists pages with their `lastmod`; a
 * `sitemapindex` lists more sitemaps. Either may be gzipped (`.xml.gz`, or any
 * gzip body). Read with htmlparser2 in XML mode, which the extractor already
 * uses, its depth bounded as the extractor's is (a sitemap is three levels deep; unclosed tags made the parser
 * quadratic); namespace prefixes are ignored.
 */
import { gunzipSync } from "node:zlib";
import { isGzip } from "../ingest/extract/charset.js";
import { parseBounded } from "../ingest/extract/html-parser.js";
import { overCap } from "../ingest/limits.js";

export interface SitemapEntry {
  loc: string;
  /** When the page last changed, as the sitemap says; absent or unreadable: unknown. */
  lastmod?: Date;
}

export type Sitemap = { kind: "urlset"; urls: SitemapEntry[] } | { kind: "index"; sitemaps: SitemapEntry[] };

/** W3C Datetime as sitemaps write it: a date, or a date and time with a zone. */
function parseLastmod(text: string): Date | undefined {
  const value = text.trim();
  if (!/^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The sitemap in `bytes` (gunzipped first when gzipped, within `maxBytes`); an error names what is wrong. */
export function parseSitemap(bytes: Buffer, maxBytes: number): Sitemap | { error: string } {
  let xml: Buffer;
  try {
    xml = isGzip(bytes) ? gunzipSync(bytes, { maxOutputLength: maxBytes }) : bytes;
  } catch (error) {
    const tooLarge = (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE";
    return { error: tooLarge ? overCap("the sitemap", "IMPORT_MAX_PAGE_BYTES", maxBytes) : "not valid gzip" };
  }
  let root: string | undefined;
  const entries: SitemapEntry[] = [];
  let entry: { loc?: string; lastmod?: string } | undefined;
  let field: "loc" | "lastmod" | undefined;
  /** Elements open, which bounds the parser's depth. */
  let open = 0;
  const local = (name: string) => name.slice(name.indexOf(":") + 1).toLowerCase();
  parseBounded(
    xml.toString("utf8"),
    {
      get open() {
        return open;
      },
      onopentag(name) {
        open++;
        const tag = local(name);
        if (root === undefined) root = tag;
        if (tag === "url" || tag === "sitemap") entry = {};
        else if (entry && (tag === "loc" || tag === "lastmod")) {
          field = tag;
          entry[tag] = "";
        }
      },
      ontext(text) {
        if (entry && field) entry[field] += text;
      },
      onclosetag(name) {
        open--;
        const tag = local(name);
        if (tag === field) field = undefined;
        if ((tag === "url" || tag === "sitemap") && entry) {
          const loc = entry.loc?.trim();
          if (loc) {
            const lastmod = entry.lastmod ? parseLastmod(entry.lastmod) : undefined;
            entries.push(lastmod ? { loc, lastmod } : { loc });
          }
          entry = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  if (root === "urlset") return { kind: "urlset", urls: entries };
  if (root === "sitemapindex") return { kind: "index", sitemaps: entries };
  return { error: root ? `<${root}> is neither a <urlset> nor a <sitemapindex>` : "not an XML sitemap" };
}
