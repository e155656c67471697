/**
 * MCP over stdio: `catalog mcp` as a real child process on an embedded data
 * dir, driven by the SDK's own client, as a desktop agent runs it. Its answers
 * are then compared with REST's on the same data dir.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { run } from "../../server/cli/run.js";
import { openPglite } from "../../server/db/open.js";
import { productIdFromUrlKey } from "../../server/catalog/ids.js";
import { productUrlKey } from "../../shared/url.js";
import { ProblemSchema } from "../../shared/schemas/index.js";
import { createTestApp } from "../helpers/app.js";
import { FIXTURE, MCP_TOOL_NAMES, toNdjson } from "../helpers/catalog.js";

const tentUrl = FIXTURE[0]!.url;
const tentId = productIdFromUrlKey(productUrlKey(tentUrl)!);

/** Each call made over stdio, with the REST path asking the same. */
const CALLS: { name: string; args: Record<string, unknown>; path: string }[] = [
  { name: "search_products", args: { q: "cast iron pan", limit: 3 }, path: "/products/search?q=cast+iron+pan&limit=3" },
  { name: "search_products", args: { q: "tent", brand_url: "northpeak.example" }, path: "/products/search?q=tent&brand_url=northpeak.example" },
  { name: "get_product_by_id", args: { id: tentId, include_raw_data: true }, path: `/products/${tentId}?include_raw_data=true` },
  { name: "get_product_by_url", args: { url: `${tentUrl}?utm_source=x` }, path: `/products?url=${encodeURIComponent(`${tentUrl}?utm_source=x`)}` },
  { name: "search_products", args: { q: "tent", limit: 0 }, path: "/products/search?q=tent&limit=0" },
  { name: "search_products", args: {}, path: "/products/search" },
  { name: "get_product_by_url", args: { url: "not a url" }, path: "/products?url=not+a+url" },
  { name: "get_product_by_id", args: { id: "pdp_missing" }, path: "/products/pdp_missing" },
];

/** The Universal Commerce Protocol's tools over stdio, with the UCP REST operation and body asking the same. */
const UCP_META = { "ucp-agent": { profile: "https://platform.example/.well-known/ucp" } };
const UCP_CALLS: { name: string; catalog: Record<string, unknown>; path: string }[] = [
  { name: "search_catalog", catalog: { query: "cast iron pan", pagination: { limit: 3 } }, path: "search" },
  { name: "lookup_catalog", catalog: { ids: [tentId, `${tentUrl}?utm_source=x`, "nothing-here"] }, path: "lookup" },
  { name: "get_product", catalog: { id: tentId }, path: "product" },
];

let dir: string;
let dataDir: string;
let toolNames: string[];
let results: CallToolResult[];
let ucpResults: CallToolResult[];
let stderr = "";
const clientErrors: Error[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalog-mcp-stdio-"));
  dataDir = join(dir, "data");
  const fixture = join(dir, "fixture.ndjson");
  writeFileSync(fixture, toNdjson(FIXTURE));
  const imported = await run(["import", fixture], { DATA_DIR: dataDir }, { log: () => undefined, err: () => undefined });
  expect(imported).toBe(0);

  // What a desktop agent's configuration does: start the command, talk JSON-RPC over its stdin/stdout.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", "server/cli/catalog.ts", "mcp"],
    cwd: process.cwd(),
    env: { ...getDefaultEnvironment(), DATA_DIR: dataDir, LOG_LEVEL: "info" },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "catalog-tests", version: "1.0.0" });
  // Anything on stdout that is not JSON-RPC (a stray log line) reaches the client as an error.
  client.onerror = (error) => clientErrors.push(error);
  try {
    await client.connect(transport);
    toolNames = (await client.listTools()).tools.map((tool) => tool.name);
    results = [];
    for (const { name, args } of CALLS) results.push(CallToolResultSchema.parse(await client.callTool({ name, arguments: args })));
    ucpResults = [];
    for (const { name, catalog } of UCP_CALLS) {
      ucpResults.push(CallToolResultSchema.parse(await client.callTool({ name, arguments: { meta: UCP_META, catalog } })));
    }
  } finally {
    // Closes the child's stdin: the server shuts down by itself, releasing the data dir.
    await client.close();
  }
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("catalog mcp (stdio)", () => {
  it("serves the tools without a key, keeping stdout for JSON-RPC and logging to stderr", () => {
    expect(toolNames).toEqual(MCP_TOOL_NAMES);
    expect(clientErrors).toEqual([]);
    expect(stderr).toContain("MCP server on stdio");
  });

  it("shut down cleanly when the client closed stdin: the data dir's lock is released", () => {
    expect(existsSync(join(dataDir, "catalog.lock"))).toBe(false);
  });

  it("answers exactly what REST answers on the same data, errors included", async () => {
    const { handle } = await openPglite(dataDir);
    const t = await createTestApp({ database: handle, records: [] });
    try {
      for (const [index, { path, args }] of CALLS.entries()) {
        const result = results[index]!;
        // Tools answer compact records unless raw data is asked for.
        const asked = args.include_raw_data ? path : `${path}${path.includes("?") ? "&" : "?"}view=compact`;
        const answer = await t.app.inject({ method: "GET", url: `/api/v1${asked}`, headers: { authorization: t.key } });
        const [content] = result.content;
        expect(content?.type).toBe("text");
        const body = JSON.parse(content?.type === "text" ? content.text : "null") as unknown;
        if (answer.statusCode === 200) {
          expect(result.isError).toBeFalsy();
          expect(result.structuredContent).toEqual(answer.json());
          expect(body).toEqual(answer.json());
        } else {
          expect(result.isError).toBe(true);
          const { request_id: _, ...problem } = ProblemSchema.parse(body);
          const { request_id: __, ...expected } = ProblemSchema.parse(answer.json());
          expect(problem).toEqual(expected);
        }
      }
      expect(results.filter((result) => result.isError)).toHaveLength(4);
    } finally {
      await t.close();
    }
  });

  it("answers the Universal Commerce Protocol's tools exactly as its REST binding does on the same data", async () => {
    const { handle } = await openPglite(dataDir);
    const t = await createTestApp({ database: handle, records: [] });
    try {
      for (const [index, { name, catalog, path }] of UCP_CALLS.entries()) {
        const result = ucpResults[index]!;
        const answer = await t.app.inject({
          method: "POST",
          url: `/ucp/catalog/${path}`,
          headers: { authorization: t.key, "ucp-agent": `profile="${UCP_META["ucp-agent"].profile}"` },
          payload: catalog,
        });
        expect(answer.statusCode, name).toBe(200);
        expect(result.isError, name).toBeFalsy();
        expect(result.structuredContent, name).toEqual(answer.json());
      }
    } finally {
      await t.close();
    }
  });
});
