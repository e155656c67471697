/**
 * Issue 47 (operations): findings of a hostile review and a new integrator, each against the real app on a real
 * PGlite (app.inject), the real importer and the real logger.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { UcpBusinessProfile } from "../../shared/schemas/index.js";
import { createTestApp, rootOn, type TestApp } from "../helpers/app.js";
import { RIDGE_TEE } from "../helpers/ucp.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ records: [RIDGE_TEE] });
});
afterAll(() => t.close());

const endpoints = (profile: UcpBusinessProfile) => profile.ucp.services["dev.ucp.shopping"]?.map((service) => service.endpoint);

describe("issue 47, finding 1: /.well-known/ucp and the Host header", () => {
  it("names the Host it was asked at only privately, varying by Host: no shared cache keeps one client's Host for another", async () => {
    const answer = await t.app.inject({ url: "/.well-known/ucp", headers: { host: "evil.example:8443" } });
    expect(answer.statusCode).toBe(200);
    expect(endpoints(answer.json<UcpBusinessProfile>())).toEqual(["http://evil.example:8443/ucp", "http://evil.example:8443/mcp"]);
    expect(answer.headers["cache-control"]).toMatch(/\bprivate\b/);
    expect(answer.headers["cache-control"]).not.toMatch(/\bpublic\b/);
    expect(
      String(answer.headers.vary)
        .toLowerCase()
        .split(/\s*,\s*/),
    ).toContain("host");
  });

  it("refuses a Host that is not a host name with an optional port (400, never a 500, no endpoint named from it)", async () => {
    for (const host of ["evil.example/phish?x=", "evil.example@good.example", "a b", "evil.example:99999", "[::1", "evil.example#x"]) {
      const answer = await t.app.inject({ url: "/.well-known/ucp", headers: { host } });
      expect(answer.statusCode, host).toBe(400);
      expect(answer.body).not.toContain("evil");
      expect(answer.headers["cache-control"], host).not.toMatch(/\bpublic\b/);
    }
  });

  it("with PUBLIC_URL names it whatever the Host, and may be cached by anyone", async () => {
    const root = await rootOn(t.database, { config: { PUBLIC_URL: "https://catalog.example.com" } });
    try {
      const app = await root.app();
      for (const host of ["evil.example", "evil.example/phish?x="]) {
        const answer = await app.inject({ url: "/.well-known/ucp", headers: { host } });
        expect(answer.statusCode).toBe(200);
        expect(endpoints(answer.json<UcpBusinessProfile>())).toEqual(["https://catalog.example.com/ucp", "https://catalog.example.com/mcp"]);
        expect(answer.headers["cache-control"]).toBe("public, max-age=300");
        expect(String(answer.headers.vary ?? "").toLowerCase()).not.toContain("host");
      }
    } finally {
      await root.close();
    }
  });
});

describe("issue 47, finding 2: no key in any logged field, in any encoding", () => {
  it("redacts keys in the URL (prefix encoded, `_` double-encoded) and in the Host field of the access log", async () => {
    const root = await rootOn(t.database, { config: { LOG_LEVEL: "info" } });
    const lines: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const app = await root.app();
      const body = t.key.slice("pcl_test_".length);
      for (const url of [`/health?key=%70cl_test_${body}`, `/health?key=pcl%255Ftest%255F${body}`, `/health?key=%70CL%5Ftest_${body}`]) {
        expect((await app.inject({ url })).statusCode).toBe(401);
      }
      expect((await app.inject({ url: "/health", headers: { host: t.key } })).statusCode).toBe(401);
    } finally {
      spy.mockRestore();
      await root.close();
    }
    const completed = lines.filter((line) => line.includes('"msg":"request completed"'));
    expect(completed).toHaveLength(4);
    for (const line of lines) expect(line).not.toContain(t.key.slice("pcl_test_".length, "pcl_test_".length + 12));
    expect(completed.map((line) => (JSON.parse(line) as { req: { url: string; host: string } }).req)).toEqual([
      expect.objectContaining({ url: "/health?key=[redacted]" }),
      expect.objectContaining({ url: "/health?key=[redacted]" }),
      expect.objectContaining({ url: "/health?key=[redacted]" }),
      expect.objectContaining({ url: "/health", host: "[redacted]" }),
    ]);
  });
});
