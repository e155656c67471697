/**
 * Issue 12, items 11 and 15: third-party tools read the served /openapi.json
 * as they would on a user's machine. Spectral (with the OWASP API ruleset, as
 * .spectral.yaml sets it up) finds no error in it; openapi-typescript generates
 * types from it, the TypeScript compiler accepts a client written against them
 * (include_raw_data: 1 included), and that client, run with openapi-fetch
 * against a real server on loopback, reaches every path, /health included.
 */
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { FIXTURE } from "../helpers/catalog.js";

const run = promisify(execFile);
const ROOT = process.cwd();
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
/** Inside the repo, so the generated client resolves openapi-fetch from node_modules; removed afterwards. */
const WORK = join(ROOT, "node_modules", ".cache", `openapi-clients-${process.pid}`);

let t: TestApp;
let baseUrl: string;
let documentPath: string;
let paths: string[];

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const served = await fetch(`${baseUrl}/openapi.json`);
  const text = await served.text();
  paths = Object.keys((JSON.parse(text) as { paths: object }).paths);
  mkdirSync(WORK, { recursive: true });
  documentPath = join(WORK, "openapi.json");
  writeFileSync(documentPath, text);
});
afterAll(async () => {
  rmSync(WORK, { recursive: true, force: true });
  await t.close();
});

describe("issue 12, item 15: Spectral with spectral:oas and the OWASP API ruleset", () => {
  it("finds no error in the served document", async () => {
    const lint = await run(bin("spectral"), ["lint", documentPath, "--ruleset", join(ROOT, ".spectral.yaml"), "--format", "json", "--quiet"], {
      cwd: ROOT,
      maxBuffer: 32 * 1024 * 1024,
    }).catch((failure: { stdout?: string; stderr?: string }) => failure);
    const findings = JSON.parse(lint.stdout ?? "[]") as { code: string; severity: number; path: string[]; message: string }[];
    // Severity 0 is an error; warnings and hints are reported but allowed.
    const errors = findings
      .filter((finding) => finding.severity === 0)
      .map((finding) => `${finding.code} at ${finding.path.join(".")}: ${finding.message}`);
    expect(errors, lint.stderr).toEqual([]);
    // The OWASP rules did run: they warn about unrestricted strings in this document.
    expect(findings.some((finding) => finding.code.startsWith("owasp:"))).toBe(true);
  });
});

describe("issue 12, item 11: a client generated with openapi-typescript and openapi-fetch", () => {
  it("type-checks and reaches every path, /health included, with 304 on a matching ETag", async () => {
    await run(bin("openapi-typescript"), [documentPath, "--output", join(WORK, "schema.ts")], { cwd: ROOT });
    writeFileSync(
      join(WORK, "client.ts"),
      `import createClient from "openapi-fetch";
import type { paths } from "./schema.js";

const [baseUrl = "", key = "", id = "", url = ""] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl: \`\${baseUrl}/api/v1\`, headers: { authorization: key } });
const seen: { path: string; status: number; found: unknown }[] = [];

const search = await client.GET("/products/search", { params: { query: { q: "tent", limit: 2, include_raw_data: 1 } } });
const first = search.data?.products[0]?.pdp;
seen.push({ path: "/products/search", status: search.response.status, found: first !== undefined && "raw_data" in first && first.raw_data !== undefined });
const byId = await client.GET("/products/{id}", { params: { path: { id }, query: { include_raw_data: false } } });
seen.push({ path: "/products/{id}", status: byId.response.status, found: byId.data?.pdp.id });
const byUrl = await client.GET("/products", { params: { query: { url } } });
seen.push({ path: "/products", status: byUrl.response.status, found: byUrl.data?.pdp.url });
const lookup = await client.POST("/products/lookup", { body: { inputs: [{ id }, { url }], view: "compact" } });
seen.push({ path: "/products/lookup", status: lookup.response.status, found: lookup.data?.results.map((result) => result.match) });
const changes = await client.GET("/products/changes", { params: { query: { limit: 100 } } });
seen.push({ path: "/products/changes", status: changes.response.status, found: changes.data?.changes.some((change) => change.id === id) });
const offers = await client.GET("/products/{id}/offers", { params: { path: { id }, query: { availability: ["in_stock"] } } });
seen.push({ path: "/products/{id}/offers", status: offers.response.status, found: offers.data?.product_group.offers });
const similar = await client.GET("/products/{id}/similar", { params: { path: { id }, query: { limit: 2 } } });
seen.push({ path: "/products/{id}/similar", status: similar.response.status, found: similar.data?.products.length });
const prices = await client.GET("/products/{id}/prices", { params: { path: { id }, query: { since: "2000-01-01" } } });
seen.push({ path: "/products/{id}/prices", status: prices.response.status, found: prices.data?.series.length });
const health = await client.GET("/health");
seen.push({ path: "/health", status: health.response.status, found: health.data?.status });
const etag = byId.response.headers.get("etag") ?? "";
const again = await client.GET("/products/{id}", { params: { path: { id }, query: { include_raw_data: false }, header: { "If-None-Match": etag } } });
seen.push({ path: "/products/{id} (If-None-Match)", status: again.response.status, found: again.error === undefined });
const missing = await client.GET("/products/{id}", { params: { path: { id: "nope" } } });
seen.push({ path: "/products/{id} (unknown)", status: missing.response.status, found: missing.error?.code });
process.stdout.write(JSON.stringify(seen));
`,
    );
    writeFileSync(
      join(WORK, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          skipLibCheck: true,
          types: ["node"],
        },
        files: ["client.ts", "schema.ts"],
      }),
    );
    writeFileSync(join(WORK, "package.json"), JSON.stringify({ type: "module" }));
    const typecheck = await run(bin("tsc"), ["-p", WORK], { cwd: ROOT }).catch((failure: { stdout?: string }) => failure);
    expect(typecheck.stdout ?? "").toBe("");

    const id = productIdFromUrlKey(productUrlKey(FIXTURE[0]!.url)!);
    const { stdout } = await run(process.execPath, ["--import", "tsx", join(WORK, "client.ts"), baseUrl, t.key, id, FIXTURE[0]!.url], { cwd: ROOT });
    const seen = JSON.parse(stdout) as { path: string; status: number; found: unknown }[];
    expect(seen).toEqual([
      { path: "/products/search", status: 200, found: true },
      { path: "/products/{id}", status: 200, found: id },
      { path: "/products", status: 200, found: FIXTURE[0]!.url },
      { path: "/products/lookup", status: 200, found: ["id", "url"] },
      { path: "/products/changes", status: 200, found: true },
      { path: "/products/{id}/offers", status: 200, found: 1 },
      { path: "/products/{id}/similar", status: 200, found: 2 },
      { path: "/products/{id}/prices", status: 200, found: 1 },
      { path: "/health", status: 200, found: "ok" },
      { path: "/products/{id} (If-None-Match)", status: 304, found: true },
      { path: "/products/{id} (unknown)", status: 404, found: "not_found" },
    ]);
    // Every path of the document was called.
    expect(new Set(seen.map((call) => call.path.split(" ")[0]))).toEqual(new Set(paths));
  });
});
