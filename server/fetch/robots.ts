/**
 * robots.txt per origin, read as RFC 9309 says: rules for our product token
 * (the user agent's first word, e.g. `ProductCatalogBot`) or `*`; a robots.txt
 * that answers 4xx allows everything; one that cannot be read (5xx, 429,
 * network failure, a redirect loop) disallows everything until it can be.
 * `Crawl-delay` is honoured as the least delay between requests. Patterns take
 * `*` and a final `$`; the longest matching rule wins, Allow over Disallow on a
 * tie. Kept for an hour per origin (RFC 9309 asks for no more than a day).
 *
 * Parsed and matched here rather than with robots-parser, whose matcher costs
 * pattern length × path length for every rule: a hostile 512 KiB file of
 * wildcard rules took 6.2 s per URL checked, on the event loop (issue 47). Here
 * each pattern is compiled once into its literal pieces, matched by a greedy
 * left-to-right search (each piece at its leftmost place after the one before,
 * which is exact for `*`-only patterns), so one rule costs at most about the
 * path's length; and at most ROBOTS_MAX_RULES rules are held for us, so a
 * check is bounded (`npm run bench:hostile -- robots`). Parsing and checking
 * give the event loop back every ROBOTS_SLICE lines or rules, so even a
 * hostile file holds it for about a millisecond at a time, never the few
 * milliseconds the whole takes; a worker thread would cost a round trip and a
 * copy of the rules on every check, more than the benign checks it would move.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

/** What robots.txt says about one origin. */
export interface RobotsRules {
  allowed(url: string): Promise<boolean>;
  /** Crawl-delay in milliseconds, if the file sets one for us. */
  crawlDelayMs: number | undefined;
  /** Why everything is disallowed, when the file could not be read (tried again in a minute). */
  unreadable?: string;
  /** Why everything is disallowed, when the file was read but has more rules than we obey (kept the hour). */
  tooManyRules?: string;
}

/** What reading `/robots.txt` gave: its text (2xx), a 4xx status, or why it could not be read. */
export type RobotsFile = { text: string } | { status: number } | { unreadable: string };

const TTL_MS = 60 * 60 * 1000;
/** RFC 9309 asks parsers to read at least 500 KiB; the rest is ignored. */
export const ROBOTS_MAX_BYTES = 512 * 1024;
/**
 * The most Allow and Disallow rules held for us. Real files have tens to a few hundred; past this a check would cost
 * milliseconds. A file with more is not obeyed in part (a rule left out could be the Disallow that keeps us off a
 * page): everything on the origin is disallowed, which only costs us the site.
 */
export const ROBOTS_MAX_RULES = 4096;
/** Lines parsed, or rules checked, between turns of the event loop: about a millisecond's work on a hostile file. */
const ROBOTS_SLICE = 256;

/** The product token robots.txt groups name: the user agent up to its first `/` or space. */
export function productToken(userAgent: string): string {
  return userAgent.split(/[\s/]/)[0] ?? userAgent;
}

/** One rule, compiled: its literal pieces between `*`s, whether it ends in `$`, and its length for precedence. */
interface Rule {
  allow: boolean;
  pieces: string[];
  anchored: boolean;
  length: number;
}

/** `%xx` upper-cased, so `%2f` and `%2F` match alike. */
function upperEscapes(text: string): string {
  return text.replace(/%[0-9a-fA-F]{2}/g, (code) => code.toUpperCase());
}

/** A pattern as a path is written in a URL: non-ASCII and spaces percent-encoded, escapes kept and upper-cased. */
function normalisePattern(pattern: string): string {
  try {
    return upperEscapes(encodeURI(pattern).replace(/%25/g, "%"));
  } catch {
    // A lone surrogate: kept as written, it matches no URL path, as it would match no request.
    return pattern;
  }
}

export function compileRule(pattern: string, allow: boolean): Rule {
  const normal = normalisePattern(pattern);
  const anchored = normal.endsWith("$");
  const body = anchored ? normal.slice(0, -1) : normal;
  return { allow, pieces: body.split("*"), anchored, length: normal.length };
}

/**
 * Whether `path` matches the rule. The first piece is a prefix; each later one is found at its leftmost place after
 * the one before (a later place never helps the pieces after it); an anchored rule's last piece ends the path.
 */
export function matchesRule(rule: Rule, path: string): boolean {
  const { pieces, anchored } = rule;
  const first = pieces[0]!;
  if (!path.startsWith(first)) return false;
  if (pieces.length === 1) return !anchored || path.length === first.length;
  let at = first.length;
  const middle = anchored ? pieces.length - 1 : pieces.length;
  for (let i = 1; i < middle; i++) {
    const piece = pieces[i]!;
    const found = path.indexOf(piece, at);
    if (found < 0) return false;
    at = found + piece.length;
  }
  if (!anchored) return true;
  const last = pieces.at(-1)!;
  return path.length - last.length >= at && path.endsWith(last);
}

/** The rule that decides for `path`: the longest matching one, an Allow winning a tie; undefined when none matches. */
async function decidingRule(rules: readonly Rule[], path: string): Promise<Rule | undefined> {
  let best: Rule | undefined;
  for (let i = 0; i < rules.length; i++) {
    if (i > 0 && i % ROBOTS_SLICE === 0) await nextTurn();
    const rule = rules[i]!;
    // Cheap refusals first: a rule no longer than the best cannot win unless it is an Allow of the same length.
    if (best && (rule.length < best.length || (rule.length === best.length && (!rule.allow || best.allow)))) continue;
    if (matchesRule(rule, path)) best = rule;
  }
  return best;
}

/** A group's lines: the user agents it names (lower case, product token only), its rules and Crawl-delay. */
interface Group {
  rules: Rule[];
  crawlDelay?: number;
  /** Rules past ROBOTS_MAX_RULES that were not kept. */
  dropped: boolean;
}

/** The groups of a robots.txt for `token` and for `*` (the only ones we could obey), as RFC 9309 §2.2.1 reads them. */
async function parseGroups(text: string, token: string): Promise<{ ours: Group | undefined; everyone: Group | undefined }> {
  const found = new Map<string, Group>();
  const wanted = new Set([token, "*"]);
  let agents: string[] = [];
  let lastWasAgent = false;
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    if (i > 0 && i % ROBOTS_SLICE === 0) await nextTurn();
    const line = lines[i]!.replace(/#.*/, "");
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "user-agent") {
      if (!lastWasAgent) agents = [];
      const agent = value.toLowerCase().split("/")[0]!.trim();
      if (agent) agents.push(agent);
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (key !== "allow" && key !== "disallow" && key !== "crawl-delay") continue;
    for (const agent of agents) {
      if (!wanted.has(agent)) continue;
      const group = found.get(agent) ?? { rules: [], dropped: false };
      found.set(agent, group);
      if (key === "crawl-delay") {
        const delay = Number(value);
        if (value !== "" && !Number.isNaN(delay)) group.crawlDelay = delay;
      } else if (value !== "") {
        if (group.rules.length < ROBOTS_MAX_RULES) group.rules.push(compileRule(value, key === "allow"));
        else group.dropped = true;
      }
    }
  }
  return { ours: found.get(token), everyone: found.get("*") };
}

export async function rulesFrom(origin: string, file: RobotsFile, token: string): Promise<RobotsRules> {
  if ("unreadable" in file) return { allowed: async () => false, crawlDelayMs: undefined, unreadable: file.unreadable };
  if ("status" in file) return { allowed: async () => true, crawlDelayMs: undefined };
  const { ours, everyone } = await parseGroups(file.text, token.toLowerCase());
  const group = ours ?? everyone;
  const delay = group?.crawlDelay;
  const crawlDelayMs = typeof delay === "number" && Number.isFinite(delay) && delay > 0 ? delay * 1000 : undefined;
  if (group?.dropped) {
    const tooManyRules = `robots.txt of ${origin} has more than ${ROBOTS_MAX_RULES} rules for us, more than this crawler obeys: everything is disallowed`;
    return { allowed: async () => false, crawlDelayMs, tooManyRules };
  }
  const rules = group?.rules ?? [];
  return {
    async allowed(url) {
      const parsed = new URL(url);
      const rule = await decidingRule(rules, upperEscapes(parsed.pathname + parsed.search));
      return rule === undefined || rule.allow;
    },
    crawlDelayMs,
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
