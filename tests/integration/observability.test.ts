/**
 * The real server process with METRICS_PORT: /metrics moves to its own
 * listener without a key (and is gone from the API port), the sample load is
 * counted, and the logs name each request's key by id and never hold a key.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_CATALOG_PATH } from "../../server/sample/index.js";
import { freePort } from "../helpers/ports.js";
import { parseLog, type LogEntry } from "../helpers/shutdown.js";
import { firstKey, READY } from "../helpers/server.js";

let dir: string;
let server: ChildProcess;
let exited: Promise<number | null>;
let output = "";
let api: string;
let scrapes: string;
let key: string;
let keyId: string;
/** Well formed, never issued: refused, and must not be logged either. */
const UNKNOWN_KEY = "pcl_test_2UetAxDLEE6Bq7fpNfXDPfrXE7bV5W7HsioAiQ1tdU3BwD";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalog-observability-"));
  const [port, metricsPort] = [await freePort(), await freePort()];
  api = `http://127.0.0.1:${port}`;
  scrapes = `http://127.0.0.1:${metricsPort}`;
  server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    // trace: the most the logs would ever show of a request (issue 12, item 5).
    env: {
      ...process.env,
      DATA_DIR: join(dir, "data"),
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      SAMPLE_CATALOG: "true",
      LOG_LEVEL: "trace",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  exited = new Promise((resolve) => server.once("exit", resolve));
  const started = performance.now();
  while (!(output.includes(`Server listening at ${api}`) && output.includes(READY))) {
    if (server.exitCode !== null) throw new Error(`server exited:\n${output}`);
    if (performance.now() - started > 100_000) throw new Error(`server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  key = firstKey(output);
  keyId = /one was issued \((key_\w+)\)/.exec(output)?.[1] ?? "";
}, 120_000);

afterAll(() => {
  if (server.exitCode === null) server.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("METRICS_PORT", () => {
  it("serves /metrics on its own port without a key, and not on the API port", async () => {
    const search = (authorization: string) => fetch(`${api}/api/v1/products/search?q=tent`, { headers: { authorization } });
    expect((await search(`Bearer ${key}`)).status).toBe(200);
    expect((await search(UNKNOWN_KEY)).status).toBe(401);
    const input = encodeURIComponent(JSON.stringify({ q: "kettle", limit: 3 }));
    expect((await fetch(`${api}/trpc/products.search?input=${input}`, { headers: { authorization: key } })).status).toBe(200);

    const onApi = await fetch(`${api}/metrics`, { headers: { authorization: key } });
    expect(onApi.status).toBe(404);
    expect(onApi.headers.get("content-type")).toMatch(/^application\/problem\+json/);

    const scraped = await fetch(`${scrapes}/metrics`);
    expect(scraped.status).toBe(200);
    const text = await scraped.text();
    const sampleSize = readFileSync(SAMPLE_CATALOG_PATH, "utf8").trim().split("\n").length;
    expect(text).toContain(`catalog_import_products_total{outcome="imported"} ${sampleSize}`);
    expect(text).toContain('catalog_import_products_total{outcome="failed"} 0');
    expect(text).toContain('catalog_http_requests_total{method="GET",route="/api/v1/products/search",status_code="200"} 1');
    expect(text).toContain('catalog_http_requests_total{method="GET",route="/api/v1/products/search",status_code="401"} 1');
    expect(text).toContain('catalog_search_stage_duration_seconds_count{stage="rerank"} 2');
  });

  it("logs the key's id on each request once the key is verified, and never a key", async () => {
    // A request's last line is written just after its answer is sent: wait for all four (two searches, a refused one, /metrics).
    const completed = () => parseLog(output).filter((entry) => entry.msg === "request completed") as (LogEntry & { key_id?: string })[];
    await expect.poll(() => completed().length).toBe(4);
    expect(keyId).toMatch(/^key_/);
    // The two searches were answered to the key; the unknown key and /metrics (no route on this port: no key check) name none.
    for (const entry of completed()) expect(entry.key_id, JSON.stringify(entry)).toBe(entry.res?.statusCode === 200 ? keyId : undefined);
    // stdout is no terminal here: the key is only in its file (issue 47), never in what the server writes.
    expect(key).toMatch(/^pcl_test_/);
    expect(output.split(key).length - 1).toBe(0);
    const lines = output.split("\n").filter((line) => line.startsWith("{"));
    for (const secret of [key, UNKNOWN_KEY]) expect(lines.filter((line) => line.includes(secret))).toEqual([]);
  });

  it("said what the first start was doing while it loaded the sample catalog, step by step with times, as log lines (issues 12 and 47)", () => {
    const sampleSize = readFileSync(SAMPLE_CATALOG_PATH, "utf8").trim().split("\n").length;
    const entries = parseLog(output) as (LogEntry & { step?: string; ms?: number; done?: number; total?: number })[];
    const started = entries.filter((entry) => entry.msg === "started");
    expect(started.map((entry) => entry.step).sort()).toEqual(["app", "database", "encoder", "sample_catalog"]);
    for (const entry of started) expect(entry.ms).toBeGreaterThanOrEqual(0);
    const counts = entries.filter((entry) => entry.msg === "starting" && entry.step === "sample_catalog");
    expect(counts.at(-1)).toMatchObject({ done: sampleSize, total: sampleSize });
  });

  it("never logs a key in any encoding at trace, parser errors included (issue 12, item 5)", async () => {
    const port = Number(new URL(api).port);
    /** Sends raw bytes and waits for the server to answer and close. */
    const raw = (bytes: string) =>
      new Promise<string>((resolve) => {
        let answer = "";
        const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
        socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
        socket.on("error", () => undefined);
        socket.on("close", () => resolve(answer));
      });
    // Node's parser refuses these before Fastify sees them; its error carries the raw request (rawPacket).
    expect(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: ${key}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/);
    expect(await raw(`GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: ${key}\r\nBad Header: 1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    // A key where it does not belong: in the query string (plain and percent-encoded) and as the request id.
    expect((await fetch(`${api}/api/v1/products/search?q=tent&key=${key}`, { headers: { authorization: key } })).status).toBe(200);
    expect((await fetch(`${api}/health?api_key=${encodeURIComponent(key).replaceAll("_", "%5F")}`)).status).toBe(401);
    // Its prefix percent-encoded, its `_` encoded twice (issue 47).
    expect((await fetch(`${api}/health?api_key=%70cl_test_${key.slice(9)}`)).status).toBe(401);
    expect((await fetch(`${api}/health?api_key=${key.replaceAll("_", "%255F")}`)).status).toBe(401);
    const echoed = await fetch(`${api}/health`, { headers: { authorization: key, "x-request-id": key } });
    expect(echoed.headers.get("x-request-id")).not.toBe(key);
    // UCP's REST binding takes the key in X-API-Key too: never logged either, parser errors included.
    const ucp = await fetch(`${api}/ucp/catalog/search`, {
      method: "POST",
      headers: { "x-api-key": key, "ucp-agent": 'profile="https://platform.example/.well-known/ucp"', "content-type": "application/json" },
      body: JSON.stringify({ query: "tent" }),
    });
    expect(ucp.status).toBe(200);
    expect(await raw(`POST /ucp/catalog/search HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nBad Header: 1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400/);
    await expect.poll(() => output.split("\n").filter((line) => line.includes('"msg":"request completed"')).length).toBeGreaterThanOrEqual(8);

    const logLines = output.split("\n").filter((line) => line.startsWith("{"));
    expect(logLines.some((line) => line.includes('"msg":"client error"'))).toBe(true);
    for (const secret of [key, UNKNOWN_KEY]) {
      const bytes = [...Buffer.from(secret)];
      const encodings = [
        secret,
        secret.slice("pcl_test_".length),
        Buffer.from(secret).toString("base64"),
        Buffer.from(secret).toString("base64url"),
        Buffer.from(secret).toString("hex"),
        bytes.join(","),
        bytes.join(", "),
        encodeURIComponent(secret).replaceAll("_", "%5F"),
        `%70cl_test_${secret.slice(9)}`,
        secret.replaceAll("_", "%255F"),
      ];
      for (const encoded of encodings)
        expect(
          logLines.filter((line) => line.includes(encoded)),
          encoded,
        ).toEqual([]);
    }
  });

  it("closes both listeners on SIGTERM and exits 0", async () => {
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
    await expect(fetch(`${scrapes}/metrics`)).rejects.toThrow();
  });
});
