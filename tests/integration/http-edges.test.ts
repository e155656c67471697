/**
 * Issue 12, items 9 and 12: what Node's HTTP parser and Fastify's router refuse
 * before any route runs is a problem+json answer with an X-Request-Id like every
 * other error, and a request that trickles in is cut off with a 408. These need
 * a real listener (app.inject skips the parser), so raw sockets on loopback.
 */
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";

/** Short, so the trickle tests finish quickly; the default is 30 s. */
const REQUEST_TIMEOUT_MS = 1_000;

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp({ config: { REQUEST_TIMEOUT_MS, BODY_LIMIT_BYTES: 4096 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting to the connection's end. */
  elapsed: number;
}

/** Sends `chunks` on a fresh connection (each after `gapMs`) and reads until the server closes it. */
function raw(chunks: readonly (string | Buffer)[], gapMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on("data", (chunk) => received.push(chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString("latin1");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: rest.join("\r\n\r\n"), elapsed: performance.now() - started });
    });
    let index = 0;
    const next = () => {
      if (index >= chunks.length || socket.destroyed) return;
      socket.write(chunks[index++]!);
      timer = setTimeout(next, gapMs);
    };
    socket.on("connect", next);
    setTimeout(() => reject(new Error("the server never closed the connection")), 20_000).unref();
  });
}

function expectProblem(answer: RawAnswer, status: number, code: string) {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(answer.headers["x-request-id"]).toMatch(/^req_\w+$/);
  const body = JSON.parse(answer.body) as { code: string; status: number; request_id: string; detail: string };
  expect(body).toMatchObject({ code, status, request_id: answer.headers["x-request-id"] });
  return body;
}

describe("issue 12, item 12: every error is problem+json with X-Request-Id", () => {
  it("answers headers over 16 KB with a 431 problem", async () => {
    const answer = await raw([
      `GET /api/v1/products/search?q=tent HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.key}\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    ]);
    expectProblem(answer, 431, "headers_too_large");
  });

  it("answers what is not HTTP with a 400 problem", async () => {
    const answer = await raw([`GET /health HTTP/1.1\r\nHost: x\r\nBad Header: ${t.key}\r\n\r\n`]);
    const body = expectProblem(answer, 400, "malformed_request");
    expect(body.detail).toMatch(/not valid HTTP/);
  });

  it("answers a 5,000-character id with a 414 problem that does not echo the path", async () => {
    const response = await t.app.inject({ url: `/api/v1/products/${"x".repeat(5_000)}`, headers: { authorization: t.key } });
    expect(response.statusCode).toBe(414);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.headers["x-request-id"]).toMatch(/^req_/);
    expect(response.json()).toMatchObject({ code: "uri_too_long", status: 414 });
    expect(response.body.length).toBeLessThan(400);
  });

  it("answers a body over BODY_LIMIT_BYTES with a 413 problem, on /mcp and /trpc", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(8_000) } });
    for (const url of ["/mcp", "/trpc/products.search"]) {
      const response = await t.app.inject({
        method: "POST",
        url,
        headers: { authorization: t.key, "content-type": "application/json", accept: "application/json, text/event-stream" },
        payload: body,
      });
      expect(response.statusCode, url).toBe(413);
      expect(response.headers["content-type"], url).toMatch(/^application\/problem\+json/);
      expect(response.json(), url).toMatchObject({ code: "payload_too_large", status: 413 });
    }
  });

  it("answers OPTIONS with 204 and Allow where other wrong methods get 405", async () => {
    for (const [url, allow] of [
      ["/api/v1/products/search", "GET, HEAD, OPTIONS"],
      ["/v1/products/p1", "GET, HEAD, OPTIONS"],
      ["/trpc/products.search", "GET, HEAD, POST, OPTIONS"],
      ["/mcp", "POST, OPTIONS"],
      ["/health", "GET, HEAD, OPTIONS"],
    ] as const) {
      const options = await t.app.inject({ method: "OPTIONS", url });
      expect(options.statusCode, url).toBe(204);
      expect(options.headers.allow, url).toBe(allow);
      // No CORS_ORIGINS: nothing for a browser on another origin.
      expect(options.headers["access-control-allow-origin"], url).toBeUndefined();
    }
    const wrong = await t.app.inject({ method: "DELETE", url: "/api/v1/products/search", headers: { authorization: t.key } });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe("GET, HEAD, OPTIONS");
    expect((await t.app.inject({ method: "OPTIONS", url: "/nowhere" })).statusCode).toBe(404);
  });

  it("words a repeated parameter alike, whichever it is", async () => {
    for (const query of [
      "q=a&q=b",
      "q=x&limit=1&limit=2",
      "q=x&include_raw_data=1&include_raw_data=0",
      "q=x&brand_url=a.example&brand_url=b.example",
    ]) {
      const response = await t.app.inject({ url: `/api/v1/products/search?${query}`, headers: { authorization: t.key } });
      expect(response.statusCode, query).toBe(400);
      const repeated = query.split("&").at(-1)!.split("=")[0];
      expect(response.json().errors, query).toContainEqual({ param: repeated, message: "must be given once" });
    }
  });
});

describe("issue 12, item 9: a request that trickles in is cut off", () => {
  it("answers a body trickled a byte at a time with a 408 problem within REQUEST_TIMEOUT_MS (plus the check interval)", async () => {
    const head = `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const answer = await raw([head, ...Array.from({ length: 200 }, () => " ")], 100);
    expectProblem(answer, 408, "request_timeout");
    expect(answer.elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);
  });

  it("answers headers trickled a line at a time with a 408 problem", async () => {
    const answer = await raw(["GET /health HTTP/1.1\r\n", ...Array.from({ length: 100 }, (_, i) => `X-Slow-${i}: 1\r\n`)], 100);
    expectProblem(answer, 408, "request_timeout");
    expect(answer.elapsed).toBeLessThan(REQUEST_TIMEOUT_MS + 3_000);
  });
});
