/**
 * Issue 47: a hostile page costs about what a benign page of its size costs. Each hostile shape is timed (CPU, the
 * median of three runs) beside a benign input of the same size built and timed in the same test, and must stay
 * within 10× of it: before the fixes these shapes cost 30–500× (a script repeating `__INITIAL_STATE__=["`: 7.5 s at
 * 100 KB). Ratios, not milliseconds, so a busy machine slows both sides alike.
 */
import { describe, expect, it } from "vitest";
import { parseSitemap } from "../../../server/fetch/sitemap.js";
import { textOf } from "../../../server/ingest/extract/dom.js";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { parseLenientJson, valueAfter } from "../../../server/ingest/extract/lenient-json.js";
import { parsePage } from "../../../server/ingest/extract/dom.js";
import { HTML_MAX_DEPTH } from "../../../server/ingest/limits.js";
import { benignPage, HOSTILE_PAGES, repeatTo } from "../../helpers/hostile-pages.js";

const KB = 1024;
const BOUND = 10;

/** CPU ms of `work`, the median of three runs. */
function cpuMs(work: () => unknown): number {
  const runs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    runs.push((used.user + used.system) / 1000);
  }
  return runs.sort((a, b) => a - b)[1]!;
}

/** Hostile work within BOUND× benign work (plus a millisecond, so that two tiny figures never fail on noise). */
function expectWithinBound(hostile: () => unknown, benign: () => unknown): void {
  const base = cpuMs(benign);
  const cost = cpuMs(hostile);
  expect(cost, `hostile ${cost.toFixed(1)} ms against benign ${base.toFixed(1)} ms`).toBeLessThanOrEqual(BOUND * base + 1);
}

/** A script of `bytes` that assigns one large state object, as a real page does. */
function benignScript(bytes: number): string {
  const items = repeatTo('{"name":"Road Shoe","price":59.95,"sku":"RS-1","images":["/i/1.jpg"]},', bytes);
  return `window.__INITIAL_STATE__ = {"products":[${items}{}]};`;
}

describe("issue 47: page state and lenient JSON are linear in the page", () => {
  it("a page repeating a page-state marker extracts within 10× a benign page of its size", () => {
    const hostile = HOSTILE_PAGES["page-state markers"]!(100 * KB);
    const benign = benignPage(100 * KB);
    expect(extractProduct(hostile).ok).toBe(true);
    expectWithinBound(
      () => extractProduct(hostile),
      () => extractProduct(benign),
    );
  });

  it("searching a script for its state reads it a bounded number of times, however often the marker repeats", () => {
    const markers = repeatTo('__INITIAL_STATE__=["', 200 * KB);
    const benign = benignScript(200 * KB);
    expect(valueAfter(benign, "__INITIAL_STATE__")).toMatchObject({ products: expect.any(Array) });
    expectWithinBound(
      () => valueAfter(markers, "__INITIAL_STATE__"),
      () => valueAfter(benign, "__INITIAL_STATE__"),
    );
  });

  it("Nuxt's function form repeated without a `return` searches the script once", () => {
    const functions = repeatTo("__NUXT__=(function(", 3 * 1024 * KB);
    const benign = benignScript(3 * 1024 * KB).replace("__INITIAL_STATE__", "__NUXT__");
    expectWithinBound(
      () => valueAfter(functions, "__NUXT__"),
      () => valueAfter(benign, "__NUXT__"),
    );
  });

  it("a JSON block followed by a long run of semicolons is unwrapped in one pass", () => {
    const semicolons = `{"@type":"Product","name":"Widget"}${repeatTo(";", 100 * KB)} x`;
    const benign = `[${repeatTo('{"@type":"Product","name":"Widget","sku":"W-1"},', 100 * KB)}{}]`;
    expectWithinBound(
      () => parseLenientJson(semicolons),
      () => parseLenientJson(benign),
    );
    // What the block says is still read.
    expect(parseLenientJson('{"name":"Widget"};;;')).toEqual({ name: "Widget" });
  });
});

describe("issue 47: the layers' regexes and ancestor tests are linear in the page", () => {
  // Each at a size where the old code was far past the bound (a long category: 5 s at 50 KB, 100× benign).
  const sizes: Record<string, number> = {
    "long category": 50 * KB,
    "long gtin": 100 * KB,
    "prices under long classes": 400 * KB,
    "price zeros": 100 * KB,
  };
  for (const [shape, size] of Object.entries(sizes)) {
    it(`a page of ${shape} extracts within 10× a benign page of its size`, () => {
      const hostile = HOSTILE_PAGES[shape]!(size);
      const benign = benignPage(size);
      expect(extractProduct(hostile).ok).toBe(true);
      expectWithinBound(
        () => extractProduct(hostile),
        () => extractProduct(benign),
      );
    });
  }

  it("a category or GTIN written plainly still reads", () => {
    const page = `<html><head><link rel="canonical" href="https://shop.example/p/w"><script type="application/ld+json">
      {"@type":"Product","name":"Widget","category":"Shoes  >   Trail","gtin13":" 4006381333931 -"}</script></head><body></body></html>`;
    const result = extractProduct(page);
    expect(result.ok && result.record).toMatchObject({ category: "Shoes > Trail", identifiers: { gtin: "4006381333931" } });
  });
});

describe("issue 47: the HTML parser's depth is bounded before it pays for it", () => {
  for (const shape of ["deep nesting", "deep svg", "unmatched closes"]) {
    it(`a page of ${shape} parses within 10× a benign page of its size`, () => {
      const hostile = HOSTILE_PAGES[shape]!(400 * KB);
      const benign = benignPage(400 * KB);
      expectWithinBound(
        () => parsePage(hostile),
        () => parsePage(benign),
      );
    });
  }

  it("keeps at most HTML_MAX_DEPTH open elements, and the text below them", () => {
    // The dropped <p>'s `</p>` opens and closes an empty one, as htmlparser2 does for any unmatched `</p>`: one more.
    const page = parsePage(`<html><body>${"<div>".repeat(HTML_MAX_DEPTH * 4)}<p>Deep <b>text</b></p></body></html>`);
    let deepest = 0;
    for (const element of page.elements) {
      let depth = 0;
      for (let node = element.parent; node; node = node.parent) depth++;
      deepest = Math.max(deepest, depth);
    }
    expect(deepest).toBeLessThanOrEqual(HTML_MAX_DEPTH + 1);
    expect(textOf(page.document)).toContain("Deep text");
  });

  it("a sitemap of unclosed tags parses within 10× a benign sitemap of its size, and a real one still reads", () => {
    const head = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">';
    const hostile = Buffer.from(`${head}${repeatTo("<url>", 400 * KB)}`);
    const benign = Buffer.from(
      `${head}${repeatTo("<url><loc>https://shop.example/p/1</loc><lastmod>2026-11-01</lastmod></url>", 400 * KB)}</urlset>`,
    );
    expectWithinBound(
      () => parseSitemap(hostile, 64 * 1024 * KB),
      () => parseSitemap(benign, 64 * 1024 * KB),
    );
    const nested = Buffer.from(`${head}<url><loc>https://shop.example/p/2</loc>${"<x>".repeat(HTML_MAX_DEPTH * 2)}</url></urlset>`);
    expect(parseSitemap(nested, 64 * 1024 * KB)).toMatchObject({ kind: "urlset", urls: [{ loc: "https://shop.example/p/2" }] });
  });
});

describe("issue 47: extraction has a CPU budget per page", () => {
  it("a page over its budget is reported with the budget, not extracted", () => {
    expect(extractProduct(benignPage(1024 * KB), { budgetMs: 1 })).toEqual({
      ok: false,
      error: "extraction stopped: the page took more than EXTRACT_BUDGET_MS (1 ms of CPU)",
    });
  });

  it("on the wall clock (live lookup), names what it bounds", () => {
    expect(extractProduct(benignPage(1024 * KB), { budgetMs: 1, budgetClock: "wall" })).toEqual({
      ok: false,
      error: "extraction stopped: the page took more than EXTRACT_BUDGET_MS (1 ms holding the server)",
    });
  });

  it("stops soon after the budget is spent, in any layer, rather than finishing the page", () => {
    const page = benignPage(2 * 1024 * KB);
    const whole = cpuMs(() => extractProduct(page));
    for (const share of [0.1, 0.5]) {
      const budgetMs = Math.max(1, Math.round(whole * share));
      const stopped = cpuMs(() => expect(extractProduct(page, { budgetMs }).ok).toBe(false));
      // The budget plus one chunk of parsing or a few hundred turns of a loop; generous, relative to the whole page.
      expect(stopped, `${stopped.toFixed(0)} ms with a budget of ${budgetMs} ms (whole page: ${whole.toFixed(0)} ms)`).toBeLessThan(
        budgetMs + whole * 0.25,
      );
    }
  });
});
