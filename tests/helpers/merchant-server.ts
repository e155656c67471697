/**
 * A merchant's shop on loopback, for the fetch tests and bench:fetch: product pages (written here, or real saved
 * pages from ../shared/data/pdp, for bench:fetch) with ETag and Last-Modified (answering 304), a robots.txt that disallows /private/,
 * a sitemap index with gzipped children, a 429 with Retry-After, redirects (a chain and a loop), 404, 410, a slow
 * body, an oversized body and a non-HTML answer. Every request it receives is logged with when it started and
 * ended, so a test can check what was (never) asked and that no two requests to it overlapped.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface RequestLog {
  path: string;
  start: number;
  end: number;
  status: number;
  headers: IncomingMessage["headers"];
}

export interface MerchantServer {
  origin: string;
  /** Host as URLs name it (`127.0.0.1:PORT`). */
  host: string;
  log: RequestLog[];
  /** Sets (or replaces) the page at `path`; its ETag and Last-Modified follow its content. */
  setPage(path: string, html: string, options?: { contentType?: string }): void;
  /** Makes `path` answer `status` (404, 410, 500…) instead of its page. */
  setStatus(path: string, status: number): void;
  /** The next `count` requests to `path` answer 429 with `Retry-After: seconds`. */
  throttle(path: string, count: number, seconds: number): void;
  /** Makes `path` answer `status` (a redirect) with `location`, which may name any other server. */
  setRedirect(path: string, location: string, status?: number): void;
  setRobots(text: string): void;
  /** A sitemap index at /sitemap.xml whose children (gzipped) list these paths with their lastmod. */
  setSitemap(children: { path: string; lastmod?: string }[][]): void;
  close(): Promise<void>;
}

/** A small product page in JSON-LD, as merchants write them; its canonical URL is on the test server. */
export function productPage(origin: string, path: string, product: { name: string; price: string; currency?: string; brand?: string }): string {
  const ld = {
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.name,
    brand: { "@type": "Brand", name: product.brand ?? "Loopback Outfitters" },
    description: `${product.name}, sold by a shop that lives on loopback.`,
    offers: { "@type": "Offer", price: product.price, priceCurrency: product.currency ?? "USD", availability: "https://schema.org/InStock" },
  };
  return `<!doctype html><html><head><meta charset="utf-8"><title>${product.name}</title>
<link rel="canonical" href="${origin}${path}">
<script type="application/ld+json">${JSON.stringify(ld)}</script></head>
<body><main><h1>${product.name}</h1><p class="price">$${product.price}</p></main></body></html>`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startMerchantServer(options: { slowBodyMs?: number; hugeBytes?: number } = {}): Promise<MerchantServer> {
  const pages = new Map<string, { body: Buffer; etag: string; lastModified: string; contentType: string }>();
  const statuses = new Map<string, number>();
  const throttles = new Map<string, { count: number; seconds: number }>();
  const files = new Map<string, { body: Buffer; contentType: string }>();
  const redirects = new Map<string, { location: string; status: number }>();
  let robots = "User-agent: *\nDisallow: /private/\n";
  const log: RequestLog[] = [];
  let clock = Date.parse("2026-11-01T00:00:00Z");

  function answer(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> | void {
    const redirect = redirects.get(path);
    if (redirect) return void res.writeHead(redirect.status, { location: redirect.location }).end();
    if (path === "/robots.txt") return void res.writeHead(200, { "content-type": "text/plain" }).end(robots);
    const throttle = throttles.get(path);
    if (throttle && throttle.count > 0) {
      throttle.count--;
      return void res.writeHead(429, { "retry-after": String(throttle.seconds) }).end("slow down");
    }
    const status = statuses.get(path);
    if (status) return void res.writeHead(status, { "content-type": "text/html" }).end(`<h1>${status}</h1>`);
    const file = files.get(path);
    if (file) return void res.writeHead(200, { "content-type": file.contentType }).end(file.body);
    const page = pages.get(path);
    if (page) {
      if (req.headers["if-none-match"] === page.etag || (!req.headers["if-none-match"] && req.headers["if-modified-since"] === page.lastModified)) {
        return void res.writeHead(304, { etag: page.etag, "last-modified": page.lastModified }).end();
      }
      return void res.writeHead(200, { "content-type": page.contentType, etag: page.etag, "last-modified": page.lastModified }).end(page.body);
    }
    switch (path) {
      case "/redirect/1":
        return void res.writeHead(301, { location: "/redirect/2" }).end();
      case "/redirect/2":
        return void res.writeHead(302, { location: "/p/redirected" }).end();
      case "/loop/a":
        return void res.writeHead(302, { location: "/loop/b" }).end();
      case "/loop/b":
        return void res.writeHead(302, { location: "/loop/a" }).end();
      case "/image.png":
        return void res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(64));
      case "/huge":
        return void res.writeHead(200, { "content-type": "text/html" }).end(Buffer.alloc(options.hugeBytes ?? 4 * 1024 * 1024, 0x61));
      case "/slow":
        res.writeHead(200, { "content-type": "text/html" });
        res.write("<html><body>");
        return sleep(options.slowBodyMs ?? 3000).then(() => void res.end("</body></html>"));
    }
    res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>");
  }

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const entry: RequestLog = { path, start: performance.now(), end: Number.NaN, status: 0, headers: req.headers };
    log.push(entry);
    // `finish`: the last byte is handed to the socket, before the client can have it; `close` for a cut-off answer.
    const ended = () => {
      if (Number.isNaN(entry.end)) entry.end = performance.now();
      entry.status = res.statusCode;
    };
    res.on("finish", ended);
    res.on("close", ended);
    void answer(req, res, path);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo; // listening on a TCP port, so the address is an object
  const host = `127.0.0.1:${port}`;
  const origin = `http://${host}`;

  return {
    origin,
    host,
    log,
    setPage(path, html, pageOptions = {}) {
      const body = Buffer.from(html);
      clock += 60_000;
      pages.set(path, {
        body,
        etag: `"${createHash("sha256").update(body).digest("hex").slice(0, 16)}"`,
        lastModified: new Date(clock).toUTCString(),
        contentType: pageOptions.contentType ?? "text/html; charset=utf-8",
      });
      statuses.delete(path);
    },
    setStatus(path, status) {
      statuses.set(path, status);
    },
    throttle(path, count, seconds) {
      throttles.set(path, { count, seconds });
    },
    setRedirect(path, location, status = 302) {
      redirects.set(path, { location, status });
    },
    setRobots(text) {
      robots = text;
    },
    setSitemap(children) {
      const index = children.map((_, i) => `<sitemap><loc>${origin}/sitemaps/${i}.xml.gz</loc></sitemap>`).join("");
      files.set("/sitemap.xml", {
        body: Buffer.from(`<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${index}</sitemapindex>`),
        contentType: "application/xml",
      });
      children.forEach((entries, i) => {
        const urls = entries
          .map((entry) => `<url><loc>${origin}${entry.path}</loc>${entry.lastmod ? `<lastmod>${entry.lastmod}</lastmod>` : ""}</url>`)
          .join("");
        const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`;
        files.set(`/sitemaps/${i}.xml.gz`, { body: gzipSync(xml), contentType: "application/gzip" });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether any two logged requests were in flight at the same time. */
export function overlapping(log: readonly RequestLog[]): [RequestLog, RequestLog] | undefined {
  const sorted = [...log].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) if (sorted[i]!.start < sorted[i - 1]!.end) return [sorted[i - 1]!, sorted[i]!];
  return undefined;
}
