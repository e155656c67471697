/** The operator CLI in-process against an embedded data dir: import and keys. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, toNdjson } from "../helpers/catalog.js";
import { runCli } from "../helpers/cli.js";
import { ImportRecordSchema } from "../../server/ingest/record.js";
import { createRoot } from "../../server/compose.js";
import { loadConfig } from "../../server/config.js";
import { loadRules, RulesError, useRules } from "../../server/search/rules/index.js";
import { QueryReportSchema } from "../../server/search/rules/report.js";

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

describe("catalog export", () => {
  it("writes one brand's records to --out as a feed the import reads, and says what it did on stderr", async () => {
    const path = join(dir, "copperleaf.ndjson");
    const result = await cli("export", "--format", "ndjson", "--brand-url", "https://copperleafkitchen.example/", "--out", path);
    expect(result).toMatchObject({ code: 0, out: [], err: [expect.stringMatching(/^exported 2 as ndjson, skipped 0; next cursor \d+ /)] });
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines.map((line) => ImportRecordSchema.parse(JSON.parse(line)).name).sort()).toEqual([
      "Cast Iron Skillet 26 cm",
      "Stainless Steel Saucepan 2 L",
    ]);
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

describe("catalog rules", () => {
  // `rules test` installs the rules it reads, as a start does: the built-in ones again for the tests after.
  afterAll(() => useRules(loadRules()));

  it("test prints what the analyser makes of a query: words and forms, constraints, kind, whom it is for, words not wanted", async () => {
    const { code, out } = await cli("rules", "test", "grey couch for my wife under $300, not wireless");
    expect(code).toBe(0);
    expect(out[0]).toBe("query: grey couch for my wife under $300, not wireless");
    expect(out).toContain("words:");
    expect(out).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}grey +typed grey; synonym gray$/),
        expect.stringMatching(/^ {2}couch +typed couch; synonym sofa; synonym settee$/),
        expect.stringMatching(/^constraint: price_max = 300 USD from "under \$300"/),
        "kind asked: couch",
        "sex: female",
        "not wanted: wireless",
      ]),
    );
  });

  it("test --json prints the same as JSON, and an operator's RULES_DIR changes it", async () => {
    const rulesDir = join(dir, "rules-ok");
    mkdirSync(join(rulesDir, "en"), { recursive: true });
    writeFileSync(join(rulesDir, "en", "species.json"), JSON.stringify({ version: 1, words: { bird: ["parrot"] } }));
    writeFileSync(join(rulesDir, "en", "synonyms.txt"), "# version: 1\nperch => bird perch\n");
    const { code, out } = await runCli(["rules", "test", "--json", "perch for my parrot"], { ...env, RULES_DIR: rulesDir });
    expect(code).toBe(0);
    const report = QueryReportSchema.parse(JSON.parse(out.join("\n")));
    expect(report.species).toEqual(["bird"]);
    // A mapping replaces the word: only its synonym is searched.
    expect(report.words[0]).toEqual({ text: "perch", forms: [{ kind: "synonym", words: "bird perch", notes: [] }] });
    expect((await cli("rules", "check", rulesDir)).code).toBe(0);
  });

  it("check exits 1 naming each file and line that is wrong; test and a start refuse such a folder", async () => {
    const rulesDir = join(dir, "rules-broken");
    mkdirSync(join(rulesDir, "en"), { recursive: true });
    writeFileSync(join(rulesDir, "en", "sexes.json"), '{\n  "version": 1,\n  "beforePerson": ["For"]\n}\n');
    writeFileSync(join(rulesDir, "en", "synonyms.txt"), "# version: 1\nsofa,\n");
    const { code, err } = await cli("rules", "check", rulesDir);
    expect(code).toBe(1);
    expect(err.join("\n").split("\n")).toEqual([
      "RULES_DIR en/sexes.json line 3: beforePerson.0: must be lower case (words are compared lower-cased)",
      'RULES_DIR en/synonyms.txt line 2: an empty term (two commas, or a comma at an end) (in "sofa,")',
    ]);
    await expect(runCli(["rules", "test", "sofa"], { ...env, RULES_DIR: rulesDir })).rejects.toThrow(/en\/sexes\.json line 3/);
    await expect(createRoot(loadConfig({ ...env, RULES_DIR: rulesDir }), { role: "cli" }).synonyms()).rejects.toBeInstanceOf(RulesError);
    expect(await cli("rules", "check")).toEqual({ code: 0, out: ["the built-in rules are valid"], err: [] });
    await expect(cli("rules", "frob")).rejects.toThrow(/rules needs test "QUERY" or check \[DIR\]/);
  });
});
