/** The operator CLI in-process against an embedded data dir: import and keys. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, toNdjson } from "../helpers/catalog.js";
import { runCli } from "../helpers/cli.js";

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-cli-"));
  env = { DATA_DIR: join(dir, "data") };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(...argv: string[]) {
  return runCli(argv, env);
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe("catalog import", () => {
  it("imports, then changes nothing on a second run", async () => {
    const path = file("fixture.ndjson", toNdjson(FIXTURE));
    const first = await cli("import", path);
    expect(first.code).toBe(0);
    expect(first.out.at(-1)).toBe(`imported ${FIXTURE.length}, updated 0, unchanged 0, failed 0`);
    const again = await cli("import", path);
    expect(again.out.at(-1)).toBe(`imported 0, updated 0, unchanged ${FIXTURE.length}, failed 0`);
    const stats = await cli("stats");
    expect(stats.out).toContain(`products\t${FIXTURE.length}`);
    expect(stats.out).toContain("embedding model\tuse-lite");
  });

  it("updates a changed record, keeps a given id, and reports bad lines with their numbers", async () => {
    const changed = { ...FIXTURE[0]!, price_label: "$299.00" };
    const lines = [
      JSON.stringify(changed),
      "{not json",
      JSON.stringify({ name: "No URL" }),
      JSON.stringify({ url: "https://ok.example/p/1", name: "" }),
      JSON.stringify({ url: "ftp://ok.example/p/2", name: "FTP" }),
      JSON.stringify({ id: "given-id-1", url: "https://ok.example/p/3", name: "Kept id", media: [{ url: "https://ok.example/i.jpg", type: "gif" }] }),
      JSON.stringify({ id: "given-id-2", url: "https://ok.example/p/4", name: "Kept id" }),
      "[1,2]",
      JSON.stringify({ id: "other-id", url: "https://www.ok.example/p/4/", name: "Same URL, other id" }),
    ];
    const result = await cli("import", file("mixed.ndjson", `${lines.join("\n")}\n`));
    expect(result.code).toBe(1);
    expect(result.out.at(-1)).toBe("imported 1, updated 1, unchanged 0, failed 7");
    const path = join(dir, "mixed.ndjson");
    expect(result.err).toEqual([
      expect.stringMatching(new RegExp(`^${path}:2: not valid JSON`)),
      `${path}:3: url: is required`,
      `${path}:4: name: must not be empty`,
      `${path}:5: url: must be an absolute http(s) URL`,
      expect.stringMatching(new RegExp(`^${path}:6: media\\.0\\.type: `)),
      `${path}:8: not a JSON object`,
      `${path}:9: url https://www.ok.example/p/4/ already belongs to product given-id-2`,
    ]);
  });

  it("reports a missing file as a failure without stopping the batch", async () => {
    const result = await cli("import", join(dir, "nope.ndjson"), file("one.ndjson", toNdjson([{ url: "https://one.example/p", name: "One" }])));
    expect(result.code).toBe(1);
    expect(result.err).toEqual([expect.stringMatching(/nope\.ndjson: cannot read: ENOENT/)]);
    expect(result.out.at(-1)).toBe("imported 1, updated 0, unchanged 0, failed 1");
  });
});

describe("catalog keys", () => {
  it("issues (key alone on the last stdout line), lists without keys, rotates and revokes", async () => {
    const issued = await cli("keys", "issue", "--name", "partner", "--env", "prod", "--expires-in", "30");
    expect(issued.code).toBe(0);
    const key = issued.out.at(-1)!;
    expect(key).toMatch(/^pcl_live_[1-9A-HJ-NP-Za-km-z]{40,}$/);

    const list = await cli("keys", "list");
    expect(list.out.join("\n")).not.toContain(key);
    const row = list.out.find((line) => line.includes("partner"))!;
    const id = row.split("\t")[0]!;
    expect(row).toContain("active");

    const rotated = await cli("keys", "rotate", id, "--grace-days", "2");
    expect(rotated.out.at(-1)).toMatch(/^pcl_live_/);
    expect(rotated.out.at(-1)).not.toBe(key);

    expect((await cli("keys", "revoke", key)).code).toBe(0);
    expect((await cli("keys", "list")).out.find((line) => line.startsWith(id))).toContain("revoked");
    expect((await cli("keys", "revoke", "key_unknown")).code).toBe(1);
  });

  it("answers usage errors with exit code 2 semantics", async () => {
    await expect(cli("keys", "issue")).rejects.toThrow(/--name/);
    await expect(cli("keys", "issue", "--name", "x", "--env", "staging")).rejects.toThrow(/--env/);
    await expect(cli("keys", "issue", "--bogus")).rejects.toThrow(/bogus/);
    await expect(cli("frobnicate")).rejects.toThrow(/unknown command/);
  });
});

describe("catalog synonyms test", () => {
  it("prints what the built-in set and SYNONYMS_FILE add to a query, and how it is searched", async () => {
    const shop = file("synonyms.txt", "gamp => umbrella\n");
    const { code, out } = await runCli(["synonyms", "test", "grey couch", "and", "gamp"], { ...env, SYNONYMS_FILE: shop });
    expect(code).toBe(0);
    expect(out).toEqual([
      expect.stringMatching(new RegExp(`^\\d+ rules \\(built-in set \\+ ${shop.replaceAll("/", "\\/")}\\)$`)),
      "grey + gray",
      "couch + sofa, settee",
      "gamp => umbrella",
      "searched as: grey | couch | and | gray | sofa | settee | umbrella",
    ]);
  });

  it("refuses a file with a mistake, naming its line, and a missing query", async () => {
    const broken = file("broken-synonyms.txt", "sofa, couch\nsofa =>\n");
    await expect(runCli(["synonyms", "test", "sofa"], { ...env, SYNONYMS_FILE: broken })).rejects.toThrow(
      `SYNONYMS_FILE ${broken} line 2: nothing on the right of "=>"`,
    );
    await expect(cli("synonyms", "test")).rejects.toThrow(/synonyms needs test/);
  });
});
