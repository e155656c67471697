/**
 * An embedded data dir survives kill -9: of the importer mid-import, of the
 * server mid-import (the server owns the database; the CLI's transactions run
 * in it) and of the server mid-traffic. After each, the catalog opens, the
 * stale lock is taken over, every batch committed before the kill is still
 * there (and no half batch is), and the import can be run again to the end.
 * Last, SIGTERM with requests in flight: they are answered, new connections
 * are refused, the database is closed and the process exits 0.
 *
 * Real processes throughout: `node --import tsx server/main.ts` and the CLI.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lockPath } from "../../server/db/lock.js";
import { runCli } from "../helpers/cli.js";
import { toNdjson } from "../helpers/catalog.js";
import { begins, expectLateRequestTurnedAway, expectWholeOrTurnedAway, expectWholePage, parseLog } from "../helpers/shutdown.js";
import { freePort } from "../helpers/ports.js";
import { firstKey, READY } from "../helpers/server.js";

/** The importer's batch: a batch is one transaction, so the catalog only ever grows by whole batches. */
const BATCH = 64;
const RECORDS = Array.from({ length: BATCH * 10 }, (_, i) => ({
  url: `https://durable.example/p/${i}`,
  name: `Durable ${["tent", "kettle", "jacket", "lamp"][i % 4]} ${i}`,
  brands: ["Durable"],
}));

let dir: string;
let dataDir: string;
let file: string;
let key = "";
/** Keys used in turn, so the server's per-key rate limit never answers a poll with 429. */
const keys: string[] = [];
let turn = 0;
const nextKey = () => keys[turn++ % keys.length] ?? key;
const children = new Set<ChildProcess>();

interface Running {
  proc: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

function track(proc: ChildProcess): { output: () => string; exited: Promise<number | null> } {
  children.add(proc);
  let output = "";
  proc.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code) => {
      children.delete(proc);
      resolve(code);
    }),
  );
  return { output: () => output, exited };
}

const ENV = { DATA_DIR: "", SAMPLE_CATALOG: "false", KEY_CACHE_TTL_SECONDS: "1", RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "debug" };

async function startServer(): Promise<Running> {
  const port = await freePort();
  const proc = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    env: { ...process.env, ...ENV, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { output, exited } = track(proc);
  const started = performance.now();
  while (!output().includes(READY)) {
    if (proc.exitCode !== null) throw new Error(`server exited:\n${output()}`);
    if (performance.now() - started > 60_000) throw new Error(`server did not start:\n${output()}`);
    await sleep(50);
  }
  return { proc, port, output, exited };
}

function startImport(): { proc: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ["--import", "tsx", "server/cli/catalog.ts", "import", file], {
    env: { ...process.env, ...ENV, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return { proc, ...track(proc) };
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function get(server: Running, path: string) {
  return fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { authorization: nextKey() } });
}

async function productCount(server: Running): Promise<number> {
  const response = await get(server, "/health");
  expect(response.status).toBe(200);
  return ((await response.json()) as { products: number }).products;
}

/** Polls the server until the import has committed at least `n` products; returns the count seen. */
async function waitForCount(server: Running, n: number, importer: { exited: Promise<number | null>; output: () => string }) {
  let done = false;
  void importer.exited.then(() => (done = true));
  for (;;) {
    const count = await productCount(server);
    if (count >= n) return count;
    if (done) throw new Error(`the import ended before ${n} products:\n${importer.output()}`);
    await sleep(100);
  }
}

function lockHolderPid(): number | null {
  return existsSync(lockPath(dataDir)) ? (JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as { pid: number }).pid : null;
}

let server: Running;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalog-durability-"));
  dataDir = join(dir, "data");
  file = join(dir, "records.ndjson");
  writeFileSync(file, toNdjson(RECORDS));
  server = await startServer();
  key = firstKey(server.output());
  expect(key).toMatch(/^pcl_test_/);
  keys.push(key);
  for (let i = 0; i < 7; i++) {
    // In this process, through the running server's socket, as an operator would.
    const { code, out } = await runCli(["keys", "issue", "--name", `durability-${i}`], { DATA_DIR: dataDir });
    expect(code).toBe(0);
    keys.push(out.at(-1)!);
  }
}, 90_000);

afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("kill -9 never loses a committed batch", () => {
  let seen = 0;

  it("importer killed mid-import: the server keeps serving and keeps the whole batches committed", { timeout: 90_000 }, async () => {
    const importer = startImport();
    seen = await waitForCount(server, 2 * BATCH, importer);
    importer.proc.kill("SIGKILL");
    expect(await importer.exited).toBe(null);
    // The dead client's half-done transaction is rolled back; nothing waits on its lock.
    const started = performance.now();
    const count = await productCount(server);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(count).toBeGreaterThanOrEqual(seen);
    expect(count % BATCH).toBe(0);
    seen = count;
    expect((await get(server, "/api/v1/products/search?q=durable%20tent&limit=5")).status).toBe(200);
  });

  it("server killed mid-import and mid-traffic: a restart takes over the stale lock and finds every committed batch", {
    timeout: 90_000,
  }, async () => {
    const importer = startImport();
    // Searches keep coming while the import runs, so the kill also lands in the middle of serving.
    let stop = false;
    const statuses: number[] = [];
    const traffic = (async () => {
      while (!stop) {
        const status = await get(server, "/api/v1/products/search?q=durable%20kettle&limit=10").then(
          (response) => response.status,
          () => 0, // the connection died with the server
        );
        statuses.push(status);
        await sleep(50);
      }
    })();
    const before = await waitForCount(server, seen + 2 * BATCH, importer);
    while (statuses.filter((status) => status === 200).length < 2) await sleep(10);
    const deadPid = server.proc.pid;
    server.proc.kill("SIGKILL");
    expect(await server.exited).toBe(null);
    stop = true;
    await traffic;
    // The importer loses its database with the server; it fails rather than hangs.
    const importerCode = await Promise.race([importer.exited, sleep(20_000).then(() => "hung")]);
    expect(importerCode, importer.output()).not.toBe("hung");
    expect(importerCode).not.toBe(0);
    expect(lockHolderPid()).toBe(deadPid);

    server = await startServer();
    expect(lockHolderPid()).toBe(server.proc.pid);
    const count = await productCount(server);
    expect(count).toBeGreaterThanOrEqual(before);
    expect(count % BATCH).toBe(0);
    seen = count;
    const first = await get(server, `/api/v1/products?url=${encodeURIComponent(RECORDS[0]!.url)}`);
    expect(first.status).toBe(200);
    expect((await get(server, "/api/v1/products/search?q=durable%20kettle&limit=10")).status).toBe(200);
  });

  it("the import run again completes, skipping what is already there", { timeout: 90_000 }, async () => {
    const importer = startImport();
    expect(await importer.exited, importer.output()).toBe(0);
    const summary = /imported (\d+), updated (\d+), unchanged (\d+), failed (\d+)/.exec(importer.output());
    expect(summary?.slice(1).map(Number)).toEqual([RECORDS.length - seen, 0, seen, 0]);
    expect(await productCount(server)).toBe(RECORDS.length);
  });
});

describe("SIGTERM with requests in flight", () => {
  it("answers every request it has begun, refuses new connections, closes the database and exits 0", { timeout: 90_000 }, async () => {
    const concurrent = 6;
    const marker = server.output().length;
    const requests = Array.from({ length: concurrent }, (_, i) =>
      // identity: this test is about shutdown, not compression.
      fetch(`http://127.0.0.1:${server.port}/api/v1/products/search?q=${encodeURIComponent(`durable lamp ${i}`)}&limit=100`, {
        headers: { authorization: nextKey(), "accept-encoding": "identity" },
      }).then(
        async (response) => ({ i, status: response.status, text: await response.text() }),
        (error: unknown) => ({ i, status: 0, text: String((error as Error).cause ?? error) }),
      ),
    );
    // The first request has reached the server: the signal arrives while it (and those behind it) are being served.
    while (!parseLog(server.output().slice(marker)).some(begins("durable%20lamp"))) {
      if (server.proc.exitCode !== null || server.proc.signalCode !== null) throw new Error(`the server is not running:\n${server.output()}`);
      await sleep(2);
    }
    server.proc.kill("SIGTERM");

    // Once it is shutting down, a new connection is refused (or, if it slips in, told 503).
    while (!server.output().slice(marker).includes("shutting down") && server.proc.exitCode === null) await sleep(2);
    await expectLateRequestTurnedAway(`http://127.0.0.1:${server.port}/health`, nextKey());

    const answers = await Promise.all(requests);
    expect(await server.exited, server.output()).toBe(0);
    const log = parseLog(server.output().slice(marker));
    const shutdownAt = log.findIndex((entry) => entry.msg.startsWith("shutting down"));
    expect(shutdownAt).toBeGreaterThan(0);
    const begun = log.slice(0, shutdownAt).filter(begins("durable%20lamp"));
    expect(begun.length).toBeGreaterThan(0);
    // Every request the server had begun when the signal came was answered in full.
    for (const entry of begun) {
      const i = Number(/lamp%20(\d+)/.exec(entry.req!.url)![1]);
      const answer = answers[i]!;
      expectWholePage(answer, 100);
    }
    // Any other was answered in full too, or turned away.
    expectWholeOrTurnedAway(answers, 100);
    expect(log.at(-1)?.msg).toBe("shut down");
    expect(existsSync(lockPath(dataDir))).toBe(false);
    console.log(`SIGTERM: ${begun.length} begun before the signal, answers ${answers.map((a) => a.status).join(",")}`);
  });
});
