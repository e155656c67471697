/**
 * The embedded database's page cache (issue 16, item 4): sized to the data dir's tables and indexes when
 * PGLITE_SHARED_BUFFERS_MB is unset, within its bounds, and as set when it is.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, PGLITE_SHARED_BUFFERS_AUTO } from "../../server/config.js";
import { openDatabase, sharedBuffersFor } from "../../server/db/open.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-buffers-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A data dir whose `base/` holds files of these sizes in MiB (sparse: nothing is written). */
function dataDirOf(name: string, mib: number[]): string {
  const dataDir = join(dir, name);
  mkdirSync(join(dataDir, "base", "5"), { recursive: true });
  mib.forEach((size, i) => {
    const path = join(dataDir, "base", "5", `${1000 + i}`);
    writeFileSync(path, "");
    truncateSync(path, Math.round(size * 2 ** 20));
  });
  return dataDir;
}

describe("the page cache", () => {
  it("is PGlite's default for a new or small data dir, the data dir's size rounded up to 64 MiB, and at most the bound", async () => {
    expect(sharedBuffersFor(join(dir, "missing"))).toBe(PGLITE_SHARED_BUFFERS_AUTO.minMb);
    expect(sharedBuffersFor(dataDirOf("small", [1, 2]))).toBe(PGLITE_SHARED_BUFFERS_AUTO.minMb);
    expect(sharedBuffersFor(dataDirOf("medium", [200, 100.5]))).toBe(320);
    expect(sharedBuffersFor(dataDirOf("large", [900, 900]))).toBe(PGLITE_SHARED_BUFFERS_AUTO.maxMb);
  });

  it("is what PGLITE_SHARED_BUFFERS_MB says when set, and a bad value is refused by name", async () => {
    const config = loadConfig({ PGLITE_SHARED_BUFFERS_MB: "48", SAMPLE_CATALOG: "false" });
    const database = await openDatabase({
      databaseUrl: undefined,
      dataDir: join(dir, "set"),
      pgliteSharedBuffersMb: config.PGLITE_SHARED_BUFFERS_MB,
      poolSize: 1,
      role: "server",
    });
    try {
      const [row] = await database.db.select({ value: sql<string>`current_setting('shared_buffers')` }).from(sql`(values (1)) as one(x)`);
      expect(row?.value).toBe("48MB");
    } finally {
      await database.close();
    }
    expect(() => loadConfig({ PGLITE_SHARED_BUFFERS_MB: "4" })).toThrow(/PGLITE_SHARED_BUFFERS_MB/);
  });
});
