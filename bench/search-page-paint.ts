/**
 * bench:search-page --paint: the time from a search's answer to the frame that shows its results, in Debian's
 * chromium, against a server on loopback holding the sample catalog. The page marks the answer and measures to the
 * next animation frame (web/search/main.ts); each round is a fresh search from the page's URL.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { SAMPLE_CATALOG_PATH } from "../server/sample/index.js";
import { createTestApp } from "../tests/helpers/app.js";
import type { TestRecord } from "../tests/helpers/catalog.js";
import { launchChromium } from "../tests/helpers/chromium.js";

const QUERIES = ["jacket", "tent", "merino socks", "kettle", "espresso beans", "headphones", "wool blanket", "running shoes"];

export async function measurePaint(rounds: number): Promise<void> {
  const records = readFileSync(SAMPLE_CATALOG_PATH, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TestRecord);
  const t = await createTestApp({ records });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${base}/search`);
    await page.getByLabel("API key").fill(t.key);
    await page.getByRole("button", { name: "Use this key" }).click();
    const times: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const q = QUERIES[round % QUERIES.length]!;
      await page.goto(`${base}/search?q=${encodeURIComponent(q)}`);
      // Functions, not strings: the page's CSP refuses eval. (Node's types have `performance` too.)
      await page.waitForFunction(() => performance.getEntriesByName("answer-to-paint").length > 0);
      times.push(await page.evaluate(() => performance.getEntriesByName("answer-to-paint")[0]?.duration ?? Number.NaN));
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(`answer to painted results, ${rounds} searches: median ${median.toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms (goal: 300 ms)`);
  } finally {
    await browser.close();
    await t.close();
  }
}
