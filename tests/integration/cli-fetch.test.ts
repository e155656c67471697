/** `catalog fetch` and `catalog refresh` in-process against an embedded data dir and a shop on loopback (issue 18). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDuration, UsageError } from "../../server/cli/run.js";
import { runCli } from "../helpers/cli.js";
import { type MerchantServer, productPage, startMerchantServer } from "../helpers/merchant-server.js";

let dir: string;
let shop: MerchantServer;
const env = (extra: Record<string, string> = {}) => ({ DATA_DIR: join(dir, "data"), FETCH_HOST_DELAY_MS: "0", ...extra });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalog-cli-fetch-"));
  shop = await startMerchantServer();
  for (const name of ["kettle", "teapot"])
    shop.setPage(`/p/${name}`, productPage(shop.origin, `/p/${name}`, { name: `Copper ${name}`, price: "30.00" }));
});
afterAll(async () => {
  await shop.close();
  rmSync(dir, { recursive: true, force: true });
});

const cli = runCli;

describe("catalog fetch and refresh", () => {
  it("refuses loopback targets unless FETCH_ALLOW_PRIVATE=true, naming the setting", async () => {
    const refused = await cli(["fetch", `${shop.origin}/p/kettle`], env());
    expect(refused.code).toBe(1);
    expect(refused.err).toEqual([`${shop.origin}/p/kettle: 127.0.0.1 is a loopback address; fetching it is refused unless FETCH_ALLOW_PRIVATE=true`]);
    expect(shop.log).toEqual([]);
  });

  it("fetches a URL list with a report, then refreshes: nothing changed is a 304", async () => {
    const list = join(dir, "urls.txt");
    writeFileSync(list, `# the shop\n${shop.origin}/p/kettle\n\n${shop.origin}/p/teapot\n${shop.origin}/p/none\n`);
    const report = join(dir, "report.ndjson");
    const fetched = await cli(["fetch", "--urls", list, "--report", report], env({ FETCH_ALLOW_PRIVATE: "true" }));
    expect(fetched.out.at(-1)).toBe("imported 2, updated 0, unchanged 0, not modified 0, gone 0, skipped 0, failed 1");
    expect(fetched.code).toBe(1);
    expect(readFileSync(report, "utf8")).toBe(
      `${JSON.stringify({ source: `${shop.origin}/p/none`, line: 0, reason: "answered 404: no such page" })}\n`,
    );

    shop.setStatus("/p/teapot", 410);
    const refreshed = await cli(["refresh", "--older-than", "0s"], env({ FETCH_ALLOW_PRIVATE: "true" }));
    expect(refreshed.out.at(-1)).toBe("imported 0, updated 0, unchanged 0, not modified 1, gone 1, skipped 0, failed 0");
    expect(refreshed.code).toBe(0);
    const stats = await cli(["stats"], env());
    expect(stats.out).toContain("products\t1");
    expect(stats.out).toContain("gone\t1");
  });

  it("says what is wrong with how it was called", async () => {
    await expect(cli(["fetch"], env())).rejects.toThrow("fetch needs exactly one of: URLs, --urls FILE, --sitemap URL");
    await expect(cli(["fetch", "--urls", join(dir, "missing.txt")], env())).rejects.toThrow(UsageError);
    await expect(cli(["refresh", "--older-than", "soon"], env())).rejects.toThrow("--older-than must be a whole number with a unit");
    await expect(cli(["refresh", "--limit", "0"], env())).rejects.toThrow("--limit must be a whole number from 1");
    expect(parseDuration("7d", "--older-than")).toBe(7 * 86_400_000);
    expect(parseDuration("90s", "--older-than")).toBe(90_000);
  });
});
