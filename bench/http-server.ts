/**
 * Processes for the HTTP benchmarks (npm run bench:http, bench:soak,
 * bench:adapters): the real server (server/main.ts) on a benchmark catalog, the
 * database stand-in, the floor and the adapters' app, each a child process with its output in a log file under bench/.cache.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchCatalog } from "./http-catalog.js";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CACHE = join(ROOT, "bench", ".cache");

/**
 * `shared`: postgres.js to PGlite behind the server's own socket bridge (server/db/socket.ts) instead of pglite-socket,
 * which several server processes (WEB_CONCURRENCY) can share: it runs each connection's statements whole.
 */
export type DbKind = "pglite" | "postgres" | "shared";
export const DB_LABEL: Record<DbKind, string> = { pglite: "PGlite (embedded)", postgres: "pg.js→socket", shared: "pg.js→bridge" };

export const log = (message: string) => process.stderr.write(`${message}\n`);

interface Child {
  process: ChildProcess;
  exited: Promise<number | null>;
}

/** node --import tsx SCRIPT, with its output in a log file (the server logs each request at info). */
function startNode(script: string, args: string[], env: NodeJS.ProcessEnv, logFile: string, nodeFlags: string[] = []): Child {
  const fd = openSync(logFile, "w");
  const child = spawn(process.execPath, [...nodeFlags, "--import", "tsx", script, ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { process: child, exited };
}

async function waitForLine(child: Child, logFile: string, pattern: RegExp, what: string, timeoutMs = 120_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  for (;;) {
    const match = readFileSync(logFile, "utf8").match(pattern);
    if (match) return match;
    if (exited || Date.now() > deadline) {
      throw new Error(`${what} did not start; its output (${logFile}):\n${readFileSync(logFile, "utf8").slice(-3000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: Child): Promise<void> {
  if (child.process.exitCode !== null) return;
  child.process.kill("SIGTERM");
  const timer = setTimeout(() => child.process.kill("SIGKILL"), 20_000);
  await child.exited;
  clearTimeout(timer);
}

export interface Running {
  base: string;
  /** The process answering HTTP (not the database stand-in's), for its memory. */
  pid: number;
  stop(): Promise<void>;
}

/** The real server (server/main.ts) on a catalog, through the given database path. */
export async function startServer(
  catalog: BenchCatalog,
  db: DbKind,
  tag: string,
  nodeFlags: string[] = [],
  settings: Record<string, string> = {},
): Promise<Running> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // One server process unless a variant says otherwise: pglite-socket (`postgres`) cannot serve two at once.
    WEB_CONCURRENCY: "1",
    ...settings,
    HOST: "127.0.0.1",
    PORT: "0",
    SAMPLE_CATALOG: "false",
    // The bench's one key would otherwise be limited to 600 units a minute; the limiter still runs.
    RATE_LIMIT_PER_MINUTE: "1000000",
  };
  delete env.DATABASE_URL;
  let database: Child | null = null;
  if (db === "pglite") {
    env.DATA_DIR = catalog.dataDir;
  } else {
    const pgLog = join(CACHE, `http-pg-${tag}.log`);
    const bridge = db === "shared" ? ["--bridge"] : [];
    database = startNode(join(ROOT, "bench", "http-pg.ts"), [catalog.dataDir, ...bridge], { ...process.env }, pgLog);
    const [, port] = await waitForLine(database, pgLog, /^(\d+)$/m, "the PGlite socket server");
    env.DATABASE_URL = `postgres://postgres@127.0.0.1:${port}/postgres`;
    env.DATABASE_POOL_SIZE = "1";
    env.DATA_DIR = join(CACHE, "http-unused-data-dir");
  }
  const serverLog = join(CACHE, `http-server-${tag}.log`);
  const server = startNode(join(ROOT, "server", "main.ts"), [], env, serverLog, nodeFlags);
  try {
    const [, base] = await waitForLine(server, serverLog, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/, "the server");
    // Under WEB_CONCURRENCY the first worker listens before the others: "ready" comes once all do.
    await waitForLine(server, serverLog, /"msg":"ready"/, "the server");
    return {
      base: base!,
      pid: server.process.pid!,
      stop: async () => {
        await stop(server);
        if (database) await stop(database);
      },
    };
  } catch (error) {
    await stop(server);
    if (database) await stop(database);
    throw error;
  }
}

/** The real server (server/main.ts) on a real Postgres (DATABASE_URL), with `settings` (WEB_CONCURRENCY, …). */
export async function startServerOnPostgres(databaseUrl: string, tag: string, settings: Record<string, string> = {}): Promise<Running> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...settings,
    DATABASE_URL: databaseUrl,
    DATA_DIR: join(CACHE, "http-unused-data-dir"),
    HOST: "127.0.0.1",
    PORT: "0",
    SAMPLE_CATALOG: "false",
    RATE_LIMIT_PER_MINUTE: "1000000",
  };
  const serverLog = join(CACHE, `http-server-${tag}.log`);
  const server = startNode(join(ROOT, "server", "main.ts"), [], env, serverLog);
  try {
    const [, base] = await waitForLine(server, serverLog, /Server listening at (http:\/\/127\.0\.0\.1:\d+)/, "the server");
    await waitForLine(server, serverLog, /"msg":"ready"/, "the server");
    return { base: base!, pid: server.process.pid!, stop: () => stop(server) };
  } catch (error) {
    await stop(server);
    throw error;
  }
}

/** A bench script (bench/NAME.ts) that prints its port on a line of its own once it listens on 127.0.0.1. */
export async function startScript(name: string, args: string[], tag: string): Promise<Running> {
  const logFile = join(CACHE, `${name}-${tag}.log`);
  const child = startNode(join(ROOT, "bench", `${name}.ts`), args, { ...process.env }, logFile);
  try {
    const [, port] = await waitForLine(child, logFile, /^(\d+)$/m, `bench/${name}.ts`);
    return { base: `http://127.0.0.1:${port}`, pid: child.process.pid!, stop: () => stop(child) };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/** The floor (bench/http-floor.ts): a bare Fastify route answering `body` from memory. */
export async function startFloor(body: unknown, tag: string): Promise<Running> {
  const bodyFile = join(CACHE, `http-floor-${tag}.json`);
  writeFileSync(bodyFile, JSON.stringify(body));
  return startScript("http-floor", [bodyFile], tag);
}
