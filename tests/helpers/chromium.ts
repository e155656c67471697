/** Debian's chromium, driven by playwright-core (which downloads no browser), for the e2e tests. */
import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import type { TestApp } from "./app.js";

export const CHROMIUM = "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM);
/** CI installs chromium (.ci/run), so there a missing browser is a failure; elsewhere it only skips. */
export const chromiumMustRun = Boolean(process.env.CI);

/** A headless browser that tries no network of its own: the machine has none. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A test app listening on loopback, its address, and a browser to open it in. */
export async function servedToChromium(t: TestApp): Promise<{ baseUrl: string; browser: Browser }> {
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  return { baseUrl, browser: await launchChromium() };
}
