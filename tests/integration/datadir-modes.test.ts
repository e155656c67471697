/**
 * Issue 12, item 1: DATA_DIR holds every key's hash and start and the WAL of
 * recent writes, so it is for its owner alone. A new data dir is created 0700
 * with PGlite's files 0600; one left loose by an earlier version is tightened
 * at start, with one warning.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../server/db/open.js";
import { createKeyService } from "../../server/auth/service.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-modes-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every path under `root` (itself included) whose mode is not owner-only, with its mode in octal. */
function looseEntries(root: string): string[] {
  const loose: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    const mode = stat.mode & 0o777;
    const expected = stat.isDirectory() ? 0o700 : 0o600;
    if (mode !== expected) loose.push(`${path.slice(root.length) || "/"} ${mode.toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return loose;
}

function fileCount(root: string): number {
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
}

/** As the server does: open, migrate, write a key and a few rows, close. */
async function useAsServer(dataDir: string, warnings: string[]): Promise<void> {
  const database = await openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, role: "server", warn: (line) => warnings.push(line) });
  try {
    await database.migrate();
    const keys = createKeyService({ db: database.db, clock: () => new Date(), cacheTtlMs: 0 });
    for (let i = 0; i < 20; i++) await keys.issue({ name: `key ${i}`, environment: "dev" });
  } finally {
    await database.close();
  }
}

describe("DATA_DIR is for its owner alone (issue 12, item 1)", () => {
  it("creates a new data dir 0700, and every file PGlite wrote in it is 0600", async () => {
    const dataDir = join(dir, "fresh", "data");
    const warnings: string[] = [];
    await useAsServer(dataDir, warnings);
    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(fileCount(dataDir)).toBeGreaterThan(500); // the WAL, base/*, postgresql.conf and the rest
    expect(looseEntries(dataDir)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("tightens a loose data dir left by an earlier version, saying so once", async () => {
    // What the server wrote before: a folder 0755, and PGlite's files 0666.
    const dataDir = join(dir, "loose");
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const earlier = await PGlite.create({ dataDir });
    await earlier.close();
    expect(looseEntries(dataDir).length).toBeGreaterThan(500);

    const warnings: string[] = [];
    await useAsServer(dataDir, warnings);
    expect(looseEntries(dataDir)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(`^DATA_DIR ${dataDir} was open to other users \\(\\d+ files or folders .*\\); restricted them to the owner$`),
    );

    // Tight now: the next start has nothing to say.
    await useAsServer(dataDir, warnings);
    expect(warnings).toHaveLength(1);
  });
});
