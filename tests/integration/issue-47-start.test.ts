/**
 * Issue 47, findings 3 and 4: the real server process, started as a service manager or a container starts it (stdout
 * a pipe, not a terminal). The first key goes to a file only its owner can read, never to stdout where the logs go;
 * the start says each step and its time; the logs and the progress are all JSON lines on stdout, or, with
 * LOG_FORMAT=human (what a terminal gets), all plain lines: never the two interleaved.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.js";
import { firstKey } from "../helpers/server.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-issue-47-start-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  stdout: string;
  stderr: string;
  api: string;
  stop(): Promise<number | null>;
}

/** Starts the real server with stdout and stderr as pipes, and waits for its `ready` line in either format. */
async function start(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), SAMPLE_CATALOG: "false", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const started: Started = {
    stdout: "",
    stderr: "",
    api: `http://127.0.0.1:${port}`,
    stop: () => {
      server.kill("SIGTERM");
      return exited;
    },
  };
  const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
  server.stdout.on("data", (chunk: Buffer) => (started.stdout += chunk.toString()));
  server.stderr.on("data", (chunk: Buffer) => (started.stderr += chunk.toString()));
  const began = performance.now();
  while (!/"msg":"ready"|\bINFO +ready\b/.test(started.stdout)) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${started.stdout}\n${started.stderr}`);
    if (performance.now() - began > 100_000) throw new Error(`server did not start:\n${started.stdout}\n${started.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return started;
}

const KEY = /pcl_(test|live)_\w+/;
const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

/** One first start with the defaults (JSON logs on a pipe), its key tried while it ran; findings 3 and 4 read it. */
let first: { dataDir: string; stdout: string; stderr: string; health: number; code: number | null };
beforeAll(async () => {
  const dataDir = join(dir, "json");
  const server = await start(dataDir);
  let health = 0;
  try {
    health = (await fetch(`${server.api}/health`, { headers: { authorization: firstKey(server.stdout) } })).status;
  } finally {
    const code = await server.stop();
    first = { dataDir, stdout: server.stdout, stderr: server.stderr, health, code };
  }
}, 120_000);

describe("issue 47, finding 3: the first key when stdout is not a terminal", () => {
  it("goes to a 0600 file in the data dir; the logs say where, and hold no key", () => {
    expect(`${first.stdout}${first.stderr}`).not.toMatch(KEY);
    const entry = lines(first.stdout)
      .map((line) => JSON.parse(line) as { msg: string; key_id?: string; key_file?: string })
      .find((line) => line.key_file !== undefined);
    expect(entry).toMatchObject({ key_id: expect.stringMatching(/^key_/), key_file: join(first.dataDir, "first-api-key") });
    expect(statSync(entry!.key_file!).mode & 0o777).toBe(0o600);
    expect(firstKey(first.stdout)).toMatch(KEY);
    expect(first.health).toBe(200);
    expect(first.code).toBe(0);
  });
});

describe("issue 47, finding 4: the start says each step with its time, in one format", () => {
  it("not at a terminal: every line on stdout is a JSON log line, the steps with their times among them, nothing on stderr", () => {
    const entries = lines(first.stdout).map((line) => JSON.parse(line) as { msg: string; step?: string; ms?: number; startup_ms?: number });
    expect(first.stderr).toBe("");
    const started = entries.filter((entry) => entry.msg === "started");
    expect(started.map((entry) => entry.step).sort()).toEqual(["app", "database", "encoder"]);
    for (const entry of started) expect(entry.ms).toEqual(expect.any(Number));
    expect(entries.find((entry) => entry.msg === "ready")?.startup_ms).toBeGreaterThan(0);
  });

  it("LOG_FORMAT=human (a terminal's default): plain lines only, each step done with its time, and no key", async () => {
    const server = await start(join(dir, "human"), { LOG_FORMAT: "human" });
    await server.stop();
    const all = [...lines(server.stdout), ...lines(server.stderr)];
    expect(all.filter((line) => line.trimStart().startsWith("{"))).toEqual([]);
    expect(server.stderr).toMatch(/^Starting: opening the database and applying its migrations, done in \d+\.\d s$/m);
    expect(server.stderr).toMatch(/^Starting: loading the sentence encoder, done in \d+\.\d s$/m);
    expect(server.stdout).toMatch(/ INFO +No API key existed, so one was issued \(key_\w+\) into key_file/);
    expect(`${server.stdout}${server.stderr}`).not.toMatch(KEY);
  });
});
