/**
 * Fetching a page as a well-behaved crawler does: robots.txt first (robots.ts),
 * each request in its host's turn (politeness.ts), on a client that checks
 * every address and deadline and caps the body (http.ts); redirects followed
 * up to FETCH_MAX_REDIRECTS, each hop checked like the first, a loop named as
 * one; 429 and 5xx tried again after `Retry-After` (or a doubling backoff), a
 * 4xx never; the page's validators sent back so an unchanged page is a 304.
 *
 * Outcomes are values, never exceptions: the page, not modified, gone (404 or
 * 410), refused (our policy: robots.txt, an address) or failed (with why).
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Config } from "../config.js";
import { type BodyDecision, createHttpClient, FetchError, type FetchFailure, type HttpAnswer, type HttpClient } from "./http.js";
import { createPoliteness, type Politeness } from "./politeness.js";
import { createRobotsCache, ROBOTS_MAX_BYTES, type RobotsFile, type RobotsRules } from "./robots.js";

export interface FetchSettings {
  userAgent: string;
  /** FETCH_ALLOW_PRIVATE: loopback may be connected to. */
  allowPrivate: boolean;
  /** FETCH_ALLOW_NETWORKS: these networks may be connected to. */
  allowNetworks?: readonly string[];
  hostDelayMs: number;
  concurrency: number;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  bodyTimeoutMs: number;
  maxRedirects: number;
  retries: number;
  retryBaseMs: number;
  /** IMPORT_MAX_PAGE_BYTES: a page (or sitemap) larger than this once decompressed is refused. */
  maxBytes: number;
}

export function fetchSettings(config: Config): FetchSettings {
  return {
    userAgent: config.FETCH_USER_AGENT,
    allowPrivate: config.FETCH_ALLOW_PRIVATE,
    allowNetworks: config.FETCH_ALLOW_NETWORKS,
    hostDelayMs: config.FETCH_HOST_DELAY_MS,
    concurrency: config.FETCH_CONCURRENCY,
    connectTimeoutMs: config.FETCH_CONNECT_TIMEOUT_MS,
    firstByteTimeoutMs: config.FETCH_FIRST_BYTE_TIMEOUT_MS,
    bodyTimeoutMs: config.FETCH_BODY_TIMEOUT_MS,
    maxRedirects: config.FETCH_MAX_REDIRECTS,
    retries: config.FETCH_RETRIES,
    retryBaseMs: config.FETCH_RETRY_BASE_MS,
    maxBytes: config.IMPORT_MAX_PAGE_BYTES,
  };
}

/** The validators stored for the URL a page was last fetched from, sent back only to that URL. */
export interface Conditional {
  url: string;
  etag: string | null;
  lastModified: string | null;
}

export type Fetched =
  | { kind: "ok"; url: string; headers: IncomingHttpHeaders; body: Buffer }
  | { kind: "not_modified"; url: string }
  | { kind: "gone"; url: string; status: number }
  | { kind: "refused"; url: string; reason: string }
  | { kind: "failed"; url: string; reason: string; failure: FetchFailure };

/** What a fetch accepts as a body: an HTML page, or a sitemap (XML, possibly gzipped). */
export type Accept = "html" | "sitemap";

export interface Fetcher {
  get(url: string, options: { accept: Accept; conditional?: Conditional; signal?: AbortSignal }): Promise<Fetched>;
  close(): void;
}

/**
 * A Retry-After longer than this is not waited for: the page fails, and the host is left alone that long. A robots.txt
 * Crawl-delay longer than this fails the host's pages at once, so a hostile file cannot hold a crawl for hours a page.
 */
const MAX_RETRY_WAIT_MS = 5 * 60 * 1000;
const ROBOTS_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  410: "Gone",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function statusLine(status: number): string {
  return `${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ""}`;
}

/** The media type without parameters, lower-cased; empty when the answer names none. */
function mediaType(headers: IncomingHttpHeaders): string {
  return String(headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
}

function acceptable(accept: Accept, type: string): boolean {
  if (type === "") return true;
  if (accept === "html") return type === "text/html" || type === "application/xhtml+xml";
  return /^(application|text)\/([\w.+-]+\+)?xml$/.test(type) || /^application\/(x-)?gzip$/.test(type) || type === "application/octet-stream";
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface FetcherDeps {
  now?: () => number;
  http?: HttpClient;
  politeness?: Politeness;
  /**
   * Whether a URL may be requested at all, asked before every request (each redirect hop, robots.txt and its
   * redirects): why not, or undefined when it may. A live lookup holds every hop to LIVE_LOOKUP_HOSTS, so that a
   * listed merchant's redirect cannot make us ask another host (or another port) anything.
   */
  permit?: (url: URL) => string | undefined;
}

export function createFetcher(settings: FetchSettings, deps: FetcherDeps = {}): Fetcher {
  const now = deps.now ?? Date.now;
  const http =
    deps.http ??
    createHttpClient({
      userAgent: settings.userAgent,
      allowPrivate: settings.allowPrivate,
      allowNetworks: settings.allowNetworks ?? [],
      connectTimeoutMs: settings.connectTimeoutMs,
      firstByteTimeoutMs: settings.firstByteTimeoutMs,
      bodyTimeoutMs: settings.bodyTimeoutMs,
    });
  const politeness = deps.politeness ?? createPoliteness({ concurrency: settings.concurrency, now });
  const robots = createRobotsCache(settings.userAgent, now);
  /** Crawl-delay per host, once its robots.txt is read. */
  const crawlDelays = new Map<string, number>();
  const delayFor = (host: string) => Math.max(settings.hostDelayMs, crawlDelays.get(host) ?? 0);

  /** One request in its host's turn; network failures and refusals come back as FetchError. */
  function request(
    url: URL,
    headers: Record<string, string>,
    read: (status: number, headers: IncomingHttpHeaders) => BodyDecision,
    signal?: AbortSignal,
  ) {
    return politeness.run(
      url.host,
      delayFor(url.host),
      () => http.get(url, { headers, maxBytes: settings.maxBytes, maxBytesSetting: "IMPORT_MAX_PAGE_BYTES", read, ...(signal ? { signal } : {}) }),
      signal,
    );
  }

  async function readRobots(origin: string, signal?: AbortSignal): Promise<RobotsFile> {
    let url = new URL("/robots.txt", origin);
    for (let hop = 0; hop <= ROBOTS_REDIRECTS; hop++) {
      // Not asked where it may not be: unreadable, so the origin is disallowed (never a reason to fetch more).
      const refused = deps.permit?.(url);
      if (refused) return { unreadable: `robots.txt redirects to a URL that is ${refused}` };
      let answer: HttpAnswer;
      try {
        answer = await politeness.run(
          url.host,
          settings.hostDelayMs,
          () =>
            http.get(url, {
              maxBytes: ROBOTS_MAX_BYTES,
              maxBytesSetting: "robots.txt's 512 KiB",
              read: (status) => (status >= 200 && status < 300 ? "read" : "skip"),
              ...(signal ? { signal } : {}),
            }),
          signal,
        );
      } catch (error) {
        // A refused address is the page's own refusal, said as such (rulesFor's caller reports it).
        if (signal?.aborted || (error instanceof FetchError && error.kind === "refused")) throw error;
        return { unreadable: `robots.txt could not be read: ${(error as Error).message}` };
      }
      const { status } = answer;
      if (status >= 200 && status < 300) return { text: answer.body?.toString("utf8") ?? "" };
      const location = answer.headers.location;
      if (REDIRECTS.has(status) && location) {
        url = new URL(location, url);
        continue;
      }
      // 429 says "not now", like a server error: everything is disallowed until it can be read.
      if (status >= 400 && status < 500 && status !== 429) return { status };
      return { unreadable: `robots.txt answered ${statusLine(status)}` };
    }
    return { unreadable: `robots.txt redirects more than ${ROBOTS_REDIRECTS} times` };
  }

  async function rulesFor(url: URL, signal?: AbortSignal): Promise<RobotsRules> {
    const rules = await robots.rules(url.origin, () => readRobots(url.origin, signal));
    if (rules.crawlDelayMs !== undefined) crawlDelays.set(url.host, rules.crawlDelayMs);
    return rules;
  }

  /**
   * Whether `url` may be requested: an http(s) URL the fetcher's `permit` allows (asked before robots.txt, so a hop
   * we may not take costs its host no request at all) and robots.txt does not disallow. Null when it may; else the
   * outcome that says why not. `redirected`: it is a redirect's hop, not the URL asked for.
   */
  async function mayRequest(url: URL, redirected: boolean, signal?: AbortSignal): Promise<Fetched | null> {
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return { kind: "failed", url: url.href, reason: `${url.protocol} URLs are not fetched`, failure: "page" };
    const refused = deps.permit?.(url);
    if (refused) return { kind: "refused", url: url.href, reason: redirected ? `redirected to a URL that is ${refused}` : refused };
    let rules: RobotsRules;
    try {
      rules = await rulesFor(url, signal);
    } catch (error) {
      const reason = (error as Error).message;
      if (error instanceof FetchError && error.kind === "refused") return { kind: "refused", url: url.href, reason };
      const failure = signal?.aborted ? "timeout" : error instanceof FetchError ? error.failure : "upstream";
      return { kind: "failed", url: url.href, reason, failure };
    }
    if ((rules.crawlDelayMs ?? 0) > MAX_RETRY_WAIT_MS) {
      const reason = `robots.txt of ${url.origin} asks for ${Math.ceil(rules.crawlDelayMs! / 1000)} s between requests, more than the 300 s waited for`;
      return { kind: "failed", url: url.href, reason, failure: "upstream" };
    }
    if (await rules.allowed(url.href)) return null;
    const why = rules.unreadable ?? rules.tooManyRules ?? `robots.txt of ${url.origin} disallows ${url.pathname}${url.search}`;
    return { kind: "refused", url: url.href, reason: why };
  }

  /** Where a redirect answer leads (added to `seen`), or the failure it is: no Location, a loop, too many hops. */
  function nextHop(answer: HttpAnswer, url: URL, seen: string[], target: string): URL | Fetched {
    const location = answer.headers.location;
    if (!location) return { kind: "failed", url: url.href, reason: `answered ${answer.status} without a Location`, failure: "upstream" };
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      return { kind: "failed", url: url.href, reason: `answered ${answer.status} with a Location that is not a URL`, failure: "upstream" };
    }
    if (seen.includes(next.href)) {
      return { kind: "failed", url: target, reason: `redirect loop: ${[...seen, next.href].join(" → ")}`, failure: "upstream" };
    }
    if (seen.length > settings.maxRedirects) {
      return { kind: "failed", url: target, reason: `more than FETCH_MAX_REDIRECTS (${settings.maxRedirects}) redirects`, failure: "upstream" };
    }
    seen.push(next.href);
    return next;
  }

  async function get(target: string, options: { accept: Accept; conditional?: Conditional; signal?: AbortSignal }): Promise<Fetched> {
    const { accept, conditional, signal } = options;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return { kind: "failed", url: target, reason: "not a URL", failure: "page" };
    }
    const seen = [url.href];
    let retries = 0;
    for (;;) {
      const refused = await mayRequest(url, seen.length > 1, signal);
      if (refused) return refused;
      const headers: Record<string, string> = {
        accept: accept === "html" ? "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" : "application/xml,text/xml;q=0.9,*/*;q=0.5",
      };
      if (conditional && conditional.url === url.href) {
        if (conditional.etag) headers["if-none-match"] = conditional.etag;
        if (conditional.lastModified) headers["if-modified-since"] = conditional.lastModified;
      }
      let answer: HttpAnswer;
      try {
        answer = await request(
          url,
          headers,
          (status, answerHeaders) => {
            if (status !== 200) return "skip";
            const type = mediaType(answerHeaders);
            return acceptable(accept, type) ? "read" : { refuse: `content type ${type} is not ${accept === "html" ? "an HTML page" : "a sitemap"}` };
          },
          signal,
        );
      } catch (error) {
        if (error instanceof FetchError) {
          return error.kind === "refused"
            ? { kind: "refused", url: url.href, reason: error.message }
            : { kind: "failed", url: url.href, reason: error.message, failure: error.failure };
        }
        if (signal?.aborted) return { kind: "failed", url: url.href, reason: "stopped: the deadline passed", failure: "timeout" };
        return { kind: "failed", url: url.href, reason: (error as Error).message, failure: "upstream" };
      }
      const { status } = answer;
      if (status === 200 && answer.body) return { kind: "ok", url: url.href, headers: answer.headers, body: answer.body };
      if (status === 304 && ("if-none-match" in headers || "if-modified-since" in headers)) return { kind: "not_modified", url: url.href };
      if (status === 404 || status === 410) return { kind: "gone", url: url.href, status };
      if (REDIRECTS.has(status)) {
        const next = nextHop(answer, url, seen, target);
        if (!(next instanceof URL)) return next;
        url = next;
        continue;
      }
      if (status === 429 || status >= 500) {
        const wait = retryAfterMs(answer.headers["retry-after"], now()) ?? settings.retryBaseMs * 2 ** retries;
        if (wait > MAX_RETRY_WAIT_MS) {
          politeness.defer(url.host, now() + wait);
          const reason = `answered ${statusLine(status)} and asked to wait ${Math.ceil(wait / 1000)} s`;
          return { kind: "failed", url: url.href, reason, failure: "upstream" };
        }
        if (retries >= settings.retries) {
          const reason = `answered ${statusLine(status)} ${retries + 1} time${retries === 0 ? "" : "s"}`;
          return { kind: "failed", url: url.href, reason, failure: "upstream" };
        }
        retries++;
        politeness.defer(url.host, now() + wait);
        continue;
      }
      // Any other 4xx (401, 403, 451…): the page is not there for us.
      return {
        kind: "failed",
        url: url.href,
        reason: `answered ${statusLine(status)}`,
        failure: status >= 400 && status < 500 ? "page" : "upstream",
      };
    }
  }

  return { get, close: () => http.close() };
}
