/** examples/search.ts, run as a user would run it, against a real server on loopback. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";

const run = promisify(execFile);
let t: TestApp;
let url: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

function example(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ["--import", "tsx", "examples/search.ts", ...args], { env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe("examples/search.ts", () => {
  it("searches through the typed client and prints the products, URL and key from the environment", async () => {
    const result = await example(["backpacking", "tent", "--limit", "2"], { CATALOG_URL: url, CATALOG_API_KEY: t.key });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    // Only what matches (issue 13): one tent in the fixture.
    expect(lines[0]).toBe('1 product for "backpacking tent":');
    expect(lines[1]).toBe("  1. Alpine 2 Backpacking Tent ($349.00 · NorthPeak)");
    expect(lines[2]).toMatch(/^ {5}https:\/\/www\.northpeak\.example\/products\/alpine-2-tent {2}\[pdp_\w+\]$/);
    expect(lines).toHaveLength(3);
  });

  it("takes --url, --key and --brand, and reports the service's error code", async () => {
    const scoped = await example(["skillet", "--brand", "copperleafkitchen.example", "--url", url, "--key", t.key]);
    expect(scoped.code).toBe(0);
    expect(scoped.stdout).toContain("Cast Iron Skillet");
    expect(scoped.stdout).not.toContain("northpeak");

    const refused = await example(["tent", "--url", url, "--key", "pcl_test_nope"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^search failed: unauthorized: /);
  });

  it("names both settings in its usage line, CATALOG_URL as well as CATALOG_API_KEY (issue 12, item 16)", async () => {
    const usage = await example([], { CATALOG_API_KEY: "" });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^usage: .*\[--url URL \| CATALOG_URL=…\] \[--key KEY \| CATALOG_API_KEY=…\]/);
  });
});
