/**
 * One process owns an embedded data dir. A real server process holds it; the
 * CLI reaches the server's database through its socket (keys, import) and a
 * second server is refused with the holder named. SIGTERM exits 0 and frees it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, DataDirBusyError } from "../../server/db/open.js";
import { lockPath } from "../../server/db/lock.js";
import { FIXTURE, toNdjson } from "../helpers/catalog.js";
import { freePort } from "../helpers/ports.js";
import { firstKey, READY } from "../helpers/server.js";
import { runCli } from "../helpers/cli.js";

let dir: string;
let dataDir: string;
let server: ChildProcess;
let baseUrl: string;
let bootstrapKey: string;
let stdout = "";

function cli(...argv: string[]) {
  return runCli(argv, { DATA_DIR: dataDir });
}

function get(path: string, key: string) {
  return fetch(`${baseUrl}${path}`, { headers: { authorization: key } });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalog-datadir-"));
  dataDir = join(dir, "data");
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    // The default KEY_CACHE_TTL_SECONDS (30): a revocation must reach the server through its keys_version sync.
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), SAMPLE_CATALOG: "false", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stdout}`)), 90_000);
    const check = () => {
      if (stdout.includes(READY)) {
        clearTimeout(timer);
        resolve();
      } else if (server.exitCode !== null) {
        clearTimeout(timer);
        reject(new Error(`server exited:\n${stdout}`));
      } else setTimeout(check, 100);
    };
    check();
  });
  bootstrapKey = firstKey(stdout);
}, 120_000);

afterAll(() => {
  if (server.exitCode === null) server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a running server owns its data dir", () => {
  it("gave a first key, in its file (stdout is no terminal here: issue 47) and nowhere in its output, and it works", async () => {
    expect(bootstrapKey).toMatch(/^pcl_test_/);
    expect(stdout.split(bootstrapKey).length - 1).toBe(0);
    expect((await get("/health", bootstrapKey)).status).toBe(200);
  });

  it("refuses a second owner, naming the holder", async () => {
    const attempt = openDatabase({ databaseUrl: undefined, dataDir, poolSize: 1, role: "server" });
    await expect(attempt).rejects.toBeInstanceOf(DataDirBusyError);
    await expect(attempt).rejects.toThrow(new RegExp(`catalog server \\(pid ${server.pid}`));
  });

  it("lets the CLI issue and revoke keys through the server; a revoked key is refused within seconds, not the 30 s TTL", async () => {
    const issued = await cli("keys", "issue", "--name", "live-ops");
    const key = issued.out.at(-1)!;
    expect((await get("/api/v1/products/search?q=tent", key)).status).toBe(200);
    expect((await cli("keys", "revoke", key)).code).toBe(0);
    // The server checks keys_version every second; a slow machine gets a few.
    let status = 0;
    for (let waited = 0; waited < 5_000 && status !== 401; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await get("/api/v1/products/search?q=tent", key)).status;
    }
    expect(status).toBe(401);
  });

  it("lets the CLI import through the server while it serves traffic, losing nothing", async () => {
    const path = join(dir, "fixture.ndjson");
    const many = [...FIXTURE, ...Array.from({ length: 300 }, (_, i) => ({ url: `https://bulk.example/p/${i}`, name: `Bulk item ${i}` }))];
    writeFileSync(path, toNdjson(many));
    // Reads keep arriving while the import's transactions run through the server's socket: two searches a second,
    // within the key's 600 units a minute however long the import takes (searches, embedded off the main thread,
    // are fast enough to spend it in seconds).
    let stop = false;
    const statuses: number[] = [];
    const traffic = (async () => {
      while (!stop) {
        statuses.push((await get("/api/v1/products/search?q=item&limit=5", bootstrapKey)).status);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    const imported = await cli("import", path);
    stop = true;
    await traffic;
    expect(imported.out.at(-1)).toBe(`imported ${many.length}, updated 0, unchanged 0, failed 0`);
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set([200]));
    const health = (await (await get("/health", bootstrapKey)).json()) as { products: number };
    expect(health.products).toBe(many.length);
    const response = await get(`/api/v1/products?url=${encodeURIComponent(FIXTURE[2]!.url)}`, bootstrapKey);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { pdp: { name: string } }).pdp.name).toBe(FIXTURE[2]!.name);
  });

  it("exits 0 on SIGTERM and frees the data dir for the next owner", async () => {
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(existsSync(lockPath(dataDir))).toBe(false);
    const stats = await cli("stats");
    expect(stats.out).toContain(`products\t${FIXTURE.length + 300}`);
  });
});
