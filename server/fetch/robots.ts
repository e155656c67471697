/**
 * robots.txt per origin, read as RFC 9309 says: rules for our product token
 * (the user agent's first word, e.g. `ProductCatalogBot`) or `*`; a robots.txt
 * that answers 4xx allows everything; one that cannot be read (5xx, 429,
 * network failure, a redirect loop) disallows everything until it can be.
 * `Crawl-delay` is honoured as the least delay between requests. Parsed with
 * robots-parser (wildcards, `$`, longest match, Allow over Disallow on ties).
 * Kept for an hour per origin (RFC 9309 asks for no more than a day).
 */
import { createRequire } from "node:module";

// robots-parser is CommonJS (`module.exports = fn`) but its types declare an ES default export, which NodeNext
// resolution then types as the module namespace; required, it is the function its types describe.
const robotsParser = createRequire(import.meta.url)("robots-parser") as typeof import("robots-parser")["default"];

/** What robots.txt says about one origin. */
export interface RobotsRules {
  allowed(url: string): boolean;
  /** Crawl-delay in milliseconds, if the file sets one for us. */
  crawlDelayMs: number | undefined;
  /** Why everything is disallowed, when the file could not be read. */
  unreadable?: string;
}

/** What reading `/robots.txt` gave: its text (2xx), a 4xx status, or why it could not be read. */
export type RobotsFile = { text: string } | { status: number } | { unreadable: string };

const TTL_MS = 60 * 60 * 1000;
/** RFC 9309 asks parsers to read at least 500 KiB; the rest is ignored. */
export const ROBOTS_MAX_BYTES = 512 * 1024;

/** The product token robots.txt groups name: the user agent up to its first `/` or space. */
export function productToken(userAgent: string): string {
  return userAgent.split(/[\s/]/)[0] ?? userAgent;
}

export function rulesFrom(origin: string, file: RobotsFile, token: string): RobotsRules {
  if ("unreadable" in file) return { allowed: () => false, crawlDelayMs: undefined, unreadable: file.unreadable };
  if ("status" in file) return { allowed: () => true, crawlDelayMs: undefined };
  const robot = robotsParser(`${origin}/robots.txt`, file.text);
  const delay = robot.getCrawlDelay(token);
  return {
    // undefined: the URL is not on this origin, which the caller never asks.
    allowed: (url) => robot.isAllowed(url, token) !== false,
    crawlDelayMs: typeof delay === "number" && Number.isFinite(delay) && delay > 0 ? delay * 1000 : undefined,
  };
}

export interface RobotsCache {
  /** The rules for `origin`, reading its robots.txt with `read` when they are not held (one read at a time per origin). */
  rules(origin: string, read: () => Promise<RobotsFile>): Promise<RobotsRules>;
}

export function createRobotsCache(userAgent: string, now: () => number = Date.now): RobotsCache {
  const token = productToken(userAgent);
  const held = new Map<string, { rules: Promise<RobotsRules>; expires: number }>();
  return {
    rules(origin, read) {
      const found = held.get(origin);
      if (found && found.expires > now()) return found.rules;
      const rules = read().then((file) => rulesFrom(origin, file, token));
      // An unreadable file is tried again sooner: the next run, or in a minute.
      held.set(origin, { rules, expires: now() + TTL_MS });
      void rules.then(
        (got) => {
          if (got.unreadable) held.set(origin, { rules, expires: now() + 60_000 });
        },
        // Not read at all (our own policy refused the address, or the run stopped): nothing to keep.
        () => held.delete(origin),
      );
      return rules;
    },
  };
}
