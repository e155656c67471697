import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("/llms.txt", () => {
  it("is public plain text in the llms.txt shape: title, summary, linked sections", async () => {
    const response = await t.app.inject({ url: "/llms.txt" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
    const lines = response.body.split("\n");
    expect(lines[0]).toBe("# Product Catalog Lookup API");
    expect(lines.find((line) => line.startsWith("> "))).toBeDefined();
    for (const section of ["## Docs", "## Endpoints", "## MCP"]) expect(lines).toContain(section);
    for (const link of ["](/openapi.json)", "](/docs)", "](/mcp)"]) expect(response.body).toContain(link);
    expect(response.body).toContain("`Authorization`");
    expect(response.body).toContain("application/problem+json");
    expect(response.body).toContain("600 cost units a minute");
  });

  it("lists every operation of the OpenAPI document, under the first prefix, with its parameters", async () => {
    const body = (await t.app.inject({ url: "/llms.txt" })).body;
    const doc = (await t.app.inject({ url: "/openapi.json" })).json() as {
      paths: Record<string, Record<string, { summary: string; parameters?: { name: string }[]; "x-rate-limit-cost": number }>>;
    };
    const endpoints = body.split("\n").filter((line) => /^- \[(GET|POST) /.test(line) && line.includes("](/openapi.json#"));
    // The Universal Commerce Protocol's operations are listed apart, from the table, linking the business profile.
    expect(body.split("\n").filter((line) => line.startsWith("- [POST /ucp/catalog/"))).toHaveLength(3);
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => ["get", "post"].includes(method))
        .map(([method, operation]) => ({ path, method, operation })),
    );
    expect(endpoints).toHaveLength(operations.length);
    for (const { path, method, operation } of operations) {
      const url = `/api/v1${path}`;
      const line = endpoints.find((candidate) => candidate.startsWith(`- [${method.toUpperCase()} ${url}](`));
      expect(line, url).toBeDefined();
      expect(line).toContain(operation.summary);
      expect(line).toContain(`Costs ${operation["x-rate-limit-cost"]} unit`);
      for (const parameter of operation.parameters ?? []) expect(line).toContain(`\`${parameter.name}\``);
    }
    // Each link points into the OpenAPI document, escaped for a URL.
    expect(body).toContain("(/openapi.json#/paths/~1products~1%7Bid%7D/get)");
    expect(body).not.toMatch(/\.\.|\.;/);
  });
});
