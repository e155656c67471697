/** Debian's chromium, driven by playwright-core (which downloads no browser), for the e2e tests. */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

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
