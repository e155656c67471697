/**
 * Issue 52: the search page (/search) in a real browser, Debian's chromium driven by playwright-core, against a real
 * server on loopback holding the sample catalog. Every page runs with the network blocked (only the server answers;
 * the merchants' images fail and their placeholders stand in) and under the page's CSP, and must need nothing else.
 * Screenshots of the main states go to screenshots/search-page/ (git-ignored) for a person to look at.
 */
import { mkdirSync, readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { SAMPLE_CATALOG_PATH } from "../../server/sample/index.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import type { TestRecord } from "../helpers/catalog.js";
import { CHROMIUM, chromiumAvailable as available, chromiumMustRun as mustRun, servedToChromium } from "../helpers/chromium.js";

const SHOTS = new URL("../../screenshots/search-page/", import.meta.url).pathname;
const SAMPLE = readFileSync(SAMPLE_CATALOG_PATH, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line) as TestRecord);

let t: TestApp;
let browser: Browser;
let baseUrl: string;
/** A key whose limit (1 unit a minute) is less than one search costs (5): its first search is refused. */
let spentKey: string;

function skipUnlessChromium(context: TestContext): void {
  if (available) return;
  if (mustRun) throw new Error(`${CHROMIUM} is missing; CI must install it (apt-get install chromium, see .ci/run)`);
  context.skip(`${CHROMIUM} is not installed (apt-get install chromium); CI=1 makes this a failure`);
}

interface Visit {
  page: Page;
  /** Requests to anywhere but the server, refused: by resource type and URL. */
  blocked: string[];
  /** Console lines about the Content Security Policy: nothing the page needs may be refused by it. */
  refused: string[];
}

/** A fresh browser context (its own storage), with every request but the server's refused. */
async function visit(path: string, key: string | null): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const blocked: string[] = [];
  await context.route("**/*", (route) => {
    if (route.request().url().startsWith(baseUrl)) return route.continue();
    blocked.push(`${route.request().resourceType()} ${route.request().url()}`);
    return route.abort("internetdisconnected");
  });
  const page = await context.newPage();
  const refused: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  await page.goto(`${baseUrl}${path}`);
  if (key !== null) {
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Use this key" }).click();
  }
  return { page, blocked, refused };
}

async function finish({ page, blocked, refused }: Visit): Promise<void> {
  expect(refused).toEqual([]);
  // Only the merchants' product images are elsewhere; the page's own script, styles and calls are all the server's.
  expect(blocked.filter((request) => !request.startsWith("image "))).toEqual([]);
  await page.context().close();
}

/**
 * expect.poll with room for a loaded machine: its default second is less than a first search can take while the
 * rest of the suite runs (the encoder's first query, two test files at a time on two cores).
 */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000 });

const cards = (page: Page) => page.locator(".card");
const cardNames = (page: Page) => page.locator(".card h3").allInnerTexts();

async function search(page: Page, q: string): Promise<void> {
  await page.getByRole("searchbox", { name: "Search products" }).fill(q);
  await page.keyboard.press("Enter");
  await poll(() => new URL(page.url()).searchParams.get("q")).toBe(q);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
}

describe("/search in chromium", () => {
  beforeAll(async () => {
    if (!available) return;
    mkdirSync(SHOTS, { recursive: true });
    t = await createTestApp({ records: SAMPLE });
    spentKey = (await t.services.keys.issue({ name: "spent", environment: "dev", rateLimitPerMinute: 1 })).key;
    ({ baseUrl, browser } = await servedToChromium(t));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("keeps the key, searches, filters by a facet, sorts by price, follows the cursor and opens a product", async (context) => {
    skipUnlessChromium(context);
    const visit1 = await visit("/search", null);
    const { page } = visit1;
    await shoot(page, "1-key");
    await page.getByLabel("API key").fill(t.key);
    await page.getByRole("button", { name: "Use this key" }).click();
    await search(page, "jacket");
    await poll(() => cards(page).count()).toBeGreaterThan(8);
    await shoot(page, "2-results");
    // On a phone: one column, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    // An expression as a string: the tests are compiled without the DOM's types (Playwright runs it without eval, so the CSP allows it).
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await shoot(page, "2-results-phone");
    await page.setViewportSize({ width: 1100, height: 900 });
    // The key stays in the browser: a reload searches again without asking for it.
    await page.reload();
    await poll(() => cards(page).count()).toBeGreaterThan(8);
    expect(await page.getByLabel("API key").isVisible()).toBe(false);

    const everyBrand = await page.locator(".card .brand").allInnerTexts();
    await page.getByRole("checkbox", { name: /^NorthPeak/ }).check();
    await poll(() => new URL(page.url()).searchParams.getAll("brand")).toEqual(["NorthPeak"]);
    await poll(async () => new Set(await page.locator(".card .brand").allInnerTexts())).toEqual(new Set(["NorthPeak"]));
    const northPeak = await cards(page).count();
    expect(northPeak).toBeGreaterThan(3);
    expect(northPeak).toBeLessThan(everyBrand.length);

    await page.getByLabel("Sort").selectOption("price_asc");
    await poll(() => new URL(page.url()).searchParams.get("sort")).toBe("price_asc");
    expect(new URL(page.url()).searchParams.get("currency")).toBe("USD");
    const prices = async () => (await page.locator(".card .price").allInnerTexts()).map((text) => Number(text.replace(/[^\d.]/g, "")));
    const ascending = (list: number[]) => list.every((price, index) => index === 0 || list[index - 1]! <= price);
    await poll(async () => (await prices()).length === northPeak && ascending(await prices())).toBe(true);
    await shoot(page, "3-facet-and-sort");

    // Three a page: "More results" follows next_cursor, adding the next three below, until there are no more; none twice.
    const everyName = await cardNames(page);
    await page.goto(`${baseUrl}/search?q=jacket&brand=NorthPeak&sort=price_asc&currency=USD&limit=3`);
    await poll(() => cards(page).count()).toBe(3);
    const more = page.getByRole("button", { name: "More results" });
    for (let shown = 3; shown < northPeak; shown += 3) {
      await more.click();
      await poll(() => cards(page).count()).toBe(Math.min(shown + 3, northPeak));
    }
    expect(await more.count()).toBe(0);
    const names = await cardNames(page);
    expect(names).toEqual(everyName);

    await page.getByRole("link", { name: names[0] }).click();
    await poll(() => page.getByRole("heading", { level: 2, name: names[0] }).isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get("product")).toMatch(/^pdp_/);
    // The record's images (placeholders: the merchants' hosts are unreachable) and its offer.
    expect(await page.locator(".gallery .photo").count()).toBeGreaterThan(0);
    expect(await page.getByRole("table").getByRole("link").innerText()).toBe("northpeak.example");
    await shoot(page, "4-product");
    await page.getByRole("button", { name: "← Back to results" }).click();
    await poll(() => cards(page).count()).toBe(3);
    await finish(visit1);
  });

  it("shows what it understood as chips; removing one searches without its words", async (context) => {
    skipUnlessChromium(context);
    const v = await visit("/search", t.key);
    await search(v.page, "tent under $400 in stock");
    const chip = v.page.getByRole("listitem").filter({ hasText: "Up to: $400.00" });
    await poll(() => chip.count()).toBe(1);
    expect(await v.page.getByText(/only products priced in USD/).count()).toBe(1);
    await shoot(v.page, "5-chips");
    await chip.getByRole("button", { name: /^Remove/ }).click();
    await poll(() => new URL(v.page.url()).searchParams.get("q")).toBe("tent in stock");
    await poll(() => chip.count()).toBe(0);
    expect(await v.page.getByRole("listitem").filter({ hasText: "Availability: In stock" }).count()).toBe(1);
    expect(await v.page.getByRole("searchbox").inputValue()).toBe("tent in stock");

    // A synonym's chip searches without synonyms, a correction's as typed.
    await search(v.page, "jakcet");
    const synonym = v.page.getByRole("listitem").filter({ hasText: /^jacket ≈ shell/ });
    const correction = v.page.getByRole("listitem").filter({ hasText: "jakcet → jacket" });
    await poll(() => synonym.count()).toBe(1);
    await synonym.getByRole("button", { name: /^Remove/ }).click();
    await poll(() => synonym.count()).toBe(0);
    expect(new URL(v.page.url()).searchParams.get("synonyms")).toBe("false");
    expect(await correction.count()).toBe(1);
    await correction.getByRole("button", { name: /^Remove/ }).click();
    await poll(() => new URL(v.page.url()).searchParams.get("typos")).toBe("false");
    await poll(() => correction.count()).toBe(0);
    await finish(v);
  });

  it("says so in words when the key is wrong, and when it is rate limited", async (context) => {
    skipUnlessChromium(context);
    const wrong = await visit("/search?q=tent", "pcl_test_notarealkey");
    await poll(() => wrong.page.getByRole("alert").innerText()).toMatch(/^This API key was not accepted: .+ Enter a valid key\.$/);
    expect(await wrong.page.getByLabel("API key").isVisible()).toBe(true);
    await shoot(wrong.page, "6-wrong-key");
    await finish(wrong);

    const spent = await visit("/search?q=tent", spentKey);
    await poll(() => spent.page.getByRole("alert").innerText()).toMatch(
      /^This key has made too many requests for now\. Try again in \d+ seconds?\.$/,
    );
    expect(await cards(spent.page).count()).toBe(0);
    await shoot(spent.page, "7-rate-limited");
    await finish(spent);
  });
});
