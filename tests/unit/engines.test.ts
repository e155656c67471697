/**
 * Issue 12, item 17: Node 20 installs clean. npm prints EBADENGINE for every
 * package in the tree whose `engines.node` the running Node does not satisfy,
 * and package-lock.json records each package's engines: so no package in the
 * lock may ask for more than the oldest Node 20 this project supports
 * (package.json's own engines).
 */
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

interface LockEntry {
  version?: string;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, LockEntry> };

describe("issue 12, item 17: every package in the lock supports the Node the README names", () => {
  it("declares Node 20 as the requirement", () => {
    expect(semver.minVersion(pkg.engines.node)?.major).toBe(20);
  });

  it("has no package whose engines exclude the oldest supported Node", () => {
    const oldest = semver.minVersion(pkg.engines.node)!.version;
    const excluding = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      return range && !semver.satisfies(oldest, range) ? [`${path.replace(/^node_modules\//, "")}@${entry.version}: node ${range}`] : [];
    });
    expect(excluding).toEqual([]);
  });
});
