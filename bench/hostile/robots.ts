/**
 * robots.txt, checked per URL (issue 47): a hostile 512 KiB file of wildcard rules (as many as the crawler holds,
 * each `*` after every letter, none matching) against a benign file with the rules a shop writes, the same URLs
 * checked against both in the same run. With robots-parser this was 6.2 s a check; the goal is ≤ 50 ms, on the
 * longest path a lookup takes (2048 characters). Parsing, once per origin an hour, is given beside it, and the
 * longest the event loop goes without a turn meanwhile (both give it back a slice at a time).
 */
import { URL_MAX } from "../../shared/schemas/params.js";
import { ROBOTS_MAX_BYTES, ROBOTS_MAX_RULES, rulesFrom } from "../../server/fetch/robots.js";
import type { HostileFigure, HostilePart } from "./part.js";

const ORIGIN = "https://shop.example";
const TOKEN = "ProductCatalogBot";
const GOAL_MS = 50;
/** Parsing is once per origin an hour, and gives the loop turns as it goes: its own bound, looser than a check's. */
const PARSE_GOAL_MS = 100;
/** What the event loop may be held at a stretch: about a slice of parsing or checking, with room for a busy machine. */
const HELD_GOAL_MS = 5;

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
    const stars = "a*".repeat(Math.floor((lineBytes - prefix.length - tail.length) / 2));
    lines.push(`${prefix}${stars.padEnd(lineBytes - prefix.length - tail.length, "a")}${tail}`);
  }
  const text = `${lines.join("\n")}\n`;
  return text.slice(0, ROBOTS_MAX_BYTES);
}

/** A path of the longest URL a lookup takes, all `a`s: the most each rule can read before failing. */
const LONG_URL = `${ORIGIN}/${"a".repeat(URL_MAX - ORIGIN.length - 1)}`;
const URLS = [LONG_URL, `${ORIGIN}/p/kettle.html`, `${ORIGIN}/p/kettle?sort=price&sessionid=1`];

/** CPU time this process has used, in milliseconds: unlike the clock, it does not count time other processes ran. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Mean milliseconds of `work` over `rounds`, and the most CPU time spent between two turns of the event loop
 * meanwhile (on a machine shared with other work, the clock between turns counts their time too).
 */
async function timed(work: () => Promise<unknown>, rounds: number): Promise<{ ms: number; held: number[] }> {
  const held: number[] = [];
  let last = cpuMs();
  let running = true;
  const tick = () => {
    const now = cpuMs();
    held.push(now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await work();
  const ms = (performance.now() - started) / rounds;
  // One more turn, so work that never gave the loop one is counted as the one stretch it was.
  await new Promise((resolve) => setImmediate(resolve));
  running = false;
  return { ms, held };
}

/** Per check, the slowest of the URLs, over enough rounds to read. */
async function perCheck(text: string): Promise<{ ms: number; held: number[] }> {
  const rules = await rulesFrom(ORIGIN, { text }, TOKEN);
  if (rules.tooManyRules) throw new Error("the bench's file must stay within ROBOTS_MAX_RULES, or it measures nothing");
  const each = [];
  for (const url of URLS) each.push(await timed(() => rules.allowed(url), 20));
  return { ms: Math.max(...each.map((one) => one.ms)), held: each.flatMap((one) => one.held) };
}

/** The `p`th percentile (0–1) of `values`; 0 when there are none (the work never gave the loop a turn). */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

export const part: HostilePart = {
  title: "robots.txt checks (hostile 512 KiB wildcard file)",
  async run(): Promise<HostileFigure[]> {
    const hostile = hostileFile();
    // Compiled before it is measured: the first calls are the JIT's, not the matcher's.
    await perCheck(BENIGN);
    const benignCheck = await perCheck(BENIGN);
    const hostileCheck = await perCheck(hostile);
    const benignParse = await timed(() => rulesFrom(ORIGIN, { text: BENIGN }, TOKEN), 20);
    const hostileParse = await timed(() => rulesFrom(ORIGIN, { text: hostile }, TOKEN), 5);
    const kib = (hostile.length / 1024).toFixed(0);
    // Between turns the process's CPU time also counts the garbage collector's helper threads, which do not hold
    // the loop: the 90th percentile is the slice's own cost, the longest is given beside it.
    const held = [...hostileCheck.held, ...hostileParse.held];
    const benignHeld = [...benignCheck.held, ...benignParse.held];
    return [
      {
        name: `one URL check, ${kib} KiB of wildcard rules (${ROBOTS_MAX_RULES}), 2048-character path`,
        value: hostileCheck.ms,
        unit: "ms",
        baseline: { name: "benign robots.txt", value: benignCheck.ms },
        goal: `≤ ${GOAL_MS} ms`,
        met: hostileCheck.ms <= GOAL_MS,
      },
      {
        name: `parsing the ${kib} KiB file (once per origin an hour)`,
        value: hostileParse.ms,
        unit: "ms",
        baseline: { name: "benign robots.txt", value: benignParse.ms },
        goal: `≤ ${PARSE_GOAL_MS} ms`,
        met: hostileParse.ms <= PARSE_GOAL_MS,
      },
      {
        name: "event loop held between turns (CPU ms, 90th percentile), parsing or checking the hostile file",
        value: percentile(held, 0.9),
        unit: "ms",
        baseline: { name: "benign robots.txt", value: percentile(benignHeld, 0.9) },
        goal: `≤ ${HELD_GOAL_MS} ms`,
        met: percentile(held, 0.9) <= HELD_GOAL_MS,
      },
      {
        name: "event loop held between turns (CPU ms, longest: a slice and any garbage collection in it)",
        value: Math.max(0, ...held),
        unit: "ms",
        baseline: { name: "benign robots.txt", value: Math.max(0, ...benignHeld) },
        goal: `≤ ${GOAL_MS} ms`,
        met: Math.max(0, ...held) <= GOAL_MS,
      },
    ];
  },
};
