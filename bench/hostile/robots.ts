/**
 * robots.txt, checked per URL (issue 47): a hostile 512 KiB file of wildcard rules (as many as the crawler holds,
 * each `*` after every letter, none matching) against a benign file with the rules a shop writes, the same URLs
 * checked against both in the same run. With robots-parser this was 6.2 s a check; the goal is ≤ 50 ms, on the
 * longest path a lookup takes (2048 characters). Parsing, once per origin an hour, is given beside it.
 */
import { URL_MAX } from "../../shared/schemas/params.js";
import { ROBOTS_MAX_BYTES, ROBOTS_MAX_RULES, rulesFrom } from "../../server/fetch/robots.js";
import type { HostileFigure, HostilePart } from "./part.js";

const ORIGIN = "https://shop.example";
const TOKEN = "ProductCatalogBot";
const GOAL_MS = 50;

const BENIGN = `User-agent: *
Disallow: /cart
Disallow: /checkout/
Disallow: /account/
Disallow: /*?sort=
Disallow: /*?*sessionid=
Allow: /p/*.html$
Disallow: /search
Crawl-delay: 1
Sitemap: ${ORIGIN}/sitemap.xml
`;

/** `Disallow: /*a*a*…*a*b`: each rule walks the whole path of `a`s and fails on the `b` it never finds. */
function hostileFile(): string {
  const lines = ["User-agent: *"];
  const lineBytes = Math.floor(ROBOTS_MAX_BYTES / ROBOTS_MAX_RULES) - 1;
  for (let i = 0; lines.length <= ROBOTS_MAX_RULES; i++) {
    const prefix = `Disallow: /*`;
    const tail = `*${String.fromCharCode(98 + (i % 24))}`;
    lines.push(`${prefix}${"a*".repeat(Math.floor((lineBytes - prefix.length - tail.length) / 2))}${tail}`);
  }
  const text = `${lines.join("\n")}\n`;
  return text.slice(0, ROBOTS_MAX_BYTES);
}

/** A path of the longest URL a lookup takes, all `a`s: the most each rule can read before failing. */
const LONG_URL = `${ORIGIN}/${"a".repeat(URL_MAX - ORIGIN.length - 1)}`;
const URLS = [LONG_URL, `${ORIGIN}/p/kettle.html`, `${ORIGIN}/p/kettle?sort=price&sessionid=1`];

function timed(work: () => void, rounds: number): number {
  const started = performance.now();
  for (let i = 0; i < rounds; i++) work();
  return (performance.now() - started) / rounds;
}

/** Milliseconds per check, the slowest of the URLs, over enough rounds to read. */
function perCheck(text: string): number {
  const rules = rulesFrom(ORIGIN, { text }, TOKEN);
  if (rules.tooManyRules) throw new Error("the bench's file must stay within ROBOTS_MAX_RULES, or it measures nothing");
  return Math.max(...URLS.map((url) => timed(() => rules.allowed(url), 20)));
}

export const part: HostilePart = {
  title: "robots.txt checks (hostile 512 KiB wildcard file)",
  async run(): Promise<HostileFigure[]> {
    const hostile = hostileFile();
    const benignCheck = perCheck(BENIGN);
    const hostileCheck = perCheck(hostile);
    const benignParse = timed(() => rulesFrom(ORIGIN, { text: BENIGN }, TOKEN), 20);
    const hostileParse = timed(() => rulesFrom(ORIGIN, { text: hostile }, TOKEN), 5);
    const kib = (hostile.length / 1024).toFixed(0);
    return [
      {
        name: `one URL check, ${kib} KiB of wildcard rules (${ROBOTS_MAX_RULES}), 2048-character path`,
        value: hostileCheck,
        unit: "ms",
        baseline: { name: "benign robots.txt", value: benignCheck },
        goal: `≤ ${GOAL_MS} ms`,
        met: hostileCheck <= GOAL_MS,
      },
      {
        name: `parsing the ${kib} KiB file (once per origin an hour)`,
        value: hostileParse,
        unit: "ms",
        baseline: { name: "benign robots.txt", value: benignParse },
        goal: `≤ ${GOAL_MS} ms`,
        met: hostileParse <= GOAL_MS,
      },
    ];
  },
};
