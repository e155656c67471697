/**
 * /docs in a real browser: Debian's chromium, driven by playwright-core (which
 * downloads no browser), against a real server on loopback. The page must list
 * the search endpoint and its request console must get real products back.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { CHROMIUM, chromiumAvailable as available, chromiumMustRun as mustRun, servedToChromium } from "../helpers/chromium.js";

let t: TestApp;
let browser: Browser;
let baseUrl: string;

describe("/docs in chromium", () => {
  beforeAll(async () => {
    if (!available) return;
    t = await createTestApp();
    ({ baseUrl, browser } = await servedToChromium(t));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("lists the search endpoint and runs a search from the page's request console", async (context) => {
    if (!available) {
      if (mustRun) throw new Error(`${CHROMIUM} is missing; CI must install it (apt-get install chromium, see .ci/run)`);
      context.skip(`${CHROMIUM} is not installed (apt-get install chromium); CI=1 makes this a failure`);
    }
    const page = await browser.newPage();
    // The page runs under a strict CSP (issue 12, item 8): nothing it needs may be blocked.
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(`${baseUrl}/docs`);
    const testRequest = page.getByRole("button", { name: /Test Request.*get \/products\/search/i });
    await expect.poll(() => testRequest.count(), { timeout: 30_000 }).toBe(1);
    await expect.poll(() => page.getByText("Search products").first().isVisible()).toBe(true);

    await testRequest.click();
    const client = page.getByRole("dialog");
    await client.getByRole("textbox", { name: "Value", exact: true }).fill(t.key); // the ApiKey scheme's value
    // The first query parameter's row is q's: its value is the row's second text box.
    const q = client.getByRole("region", { name: "Query Parameters" }).getByRole("row").nth(1);
    // It starts from q's example (issue 47): replace it.
    await q.getByRole("textbox").nth(1).click();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("tent");
    // The console takes the value into its request a moment later: wait until its code snippet shows it.
    await client.getByRole("button", { name: /Code Snippet/ }).click();
    await expect.poll(() => client.getByText(/q=tent/).count()).toBeGreaterThan(0);
    const answer = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/v1/products/search");
    await client.getByRole("button", { name: /^Send get request/ }).click();

    const response = await answer;
    expect(response.status(), `${response.url()} ${await response.text()}`).toBe(200);
    expect(response.request().headers().authorization).toBe(t.key);
    const body = (await response.json()) as { products: { pdp: { name: string } }[] };
    expect(body.products[0]?.pdp.name).toBe("Alpine 2 Backpacking Tent");
    // The console shows the answer too.
    await expect.poll(() => client.getByText("200 OK").isVisible()).toBe(true);
    expect(blocked).toEqual([]);
  });

  it("issue 47, item 5: no Scalar toolbar or placeholder key, a real example answer, and a first send that searches", async (context) => {
    if (!available) {
      if (mustRun) throw new Error(`${CHROMIUM} is missing; CI must install it (apt-get install chromium, see .ci/run)`);
      context.skip(`${CHROMIUM} is not installed (apt-get install chromium); CI=1 makes this a failure`);
    }
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/docs`);
    const testRequest = page.getByRole("button", { name: /Test Request.*get \/products\/search/i });
    await expect.poll(() => testRequest.count(), { timeout: 30_000 }).toBe(1);
    // Scalar's Developer Tools / Configure / Share / Deploy bar edits Scalar's page, not the API.
    for (const name of ["Developer Tools", "Configure", "Share", "Deploy"]) {
      expect(await page.getByRole("button", { name, exact: true }).count(), name).toBe(0);
    }
    // The key's box shows no made-up key (Scalar's base64 placeholder): its placeholder is not painted.
    // (Expressions as strings: the tests are compiled without the DOM's types.)
    const placeholder = `getComputedStyle(document.querySelector('input[placeholder^="QUxMIFlPVVIg"]'), "::placeholder").color`;
    expect(await page.evaluate(placeholder)).toBe("rgba(0, 0, 0, 0)");
    // The search's example answer holds a record, not `"pdp": null`.
    const text = String(await page.evaluate("document.body.innerText"));
    expect(text).not.toContain('"pdp": null');
    expect(text).toContain('"name": "Ridgeline 2P Backpacking Tent"');

    // The console starts from q's example: with only the key given, the first send is a search that answers 200.
    await testRequest.click();
    const client = page.getByRole("dialog");
    await client.getByRole("textbox", { name: "Value", exact: true }).fill(t.key);
    const answer = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/v1/products/search");
    await client.getByRole("button", { name: /^Send get request/ }).click();
    const response = await answer;
    expect(new URL(response.url()).searchParams.get("q")).toBe("waterproof hiking jacket");
    expect(response.status(), `${response.url()} ${await response.text()}`).toBe(200);
  });
});
