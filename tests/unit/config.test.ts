/** server/config.ts: the environment, parsed once; every refusal names the setting. */
import { describe, expect, it } from "vitest";
import { admissionSettings, ConfigError, loadConfig, serverProcesses } from "../../server/config.js";

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
};

describe("loadConfig", () => {
  it("gives the documented defaults, and takes empty values as unset", () => {
    const config = loadConfig({ PORT: "", DATA_DIR: "" });
    expect(config).toMatchObject({
      HOST: "127.0.0.1",
      PORT: 3000,
      DATA_DIR: "./data",
      API_PREFIXES: ["/api/v1", "/v1"],
      SAMPLE_CATALOG: true,
      PRODUCT_CACHE_SIZE: 10_000,
      RATE_LIMIT_PER_MINUTE: 600,
      RATE_LIMIT_STORE: "auto",
      RATE_LIMIT_SYNC_MS: 250,
      DATABASE_REPLICA_URLS: [],
      RERANKER: "local",
      IMPORT_MAX_LINE_BYTES: 16 * 1024 * 1024,
      IMPORT_MAX_PAGE_BYTES: 8 * 1024 * 1024,
      IMPORT_MAX_STRIPPED_HTML_BYTES: 2 * 1024 * 1024,
    });
    expect(config.METRICS_PORT).toBeUndefined();
  });

  it("admits 2 searches at once on the embedded database and 4 on Postgres, unless SEARCH_CONCURRENCY says otherwise", () => {
    expect(admissionSettings(loadConfig({}))).toEqual({ concurrency: 2, queueLength: 32, queueTimeoutMs: 2000 });
    expect(admissionSettings(loadConfig({ DATABASE_URL: "postgres://db/catalog" })).concurrency).toBe(4);
    expect(admissionSettings(loadConfig({ SEARCH_CONCURRENCY: "0" })).concurrency).toBe(0);
    expect(loadConfig({}).ENCODER_THREADS).toBe(1);
    expect(refusal({ SEARCH_QUEUE_TIMEOUT_MS: "0" })).toMatch(/SEARCH_QUEUE_TIMEOUT_MS/);
    expect(refusal({ ENCODER_THREADS: "two" })).toMatch(/ENCODER_THREADS/);
  });

  it("runs WEB_CONCURRENCY processes on Postgres (one per core unless set), and one on the embedded database, saying why", () => {
    const postgres = "postgres://db/catalog";
    expect(serverProcesses(loadConfig({ DATABASE_URL: postgres }), 8)).toEqual({ count: 8 });
    expect(serverProcesses(loadConfig({ DATABASE_URL: postgres, WEB_CONCURRENCY: "3" }), 8)).toEqual({ count: 3 });
    expect(serverProcesses(loadConfig({}), 8)).toEqual({ count: 1 });
    expect(serverProcesses(loadConfig({ WEB_CONCURRENCY: "1" }), 8)).toEqual({ count: 1 });
    const embedded = serverProcesses(loadConfig({ WEB_CONCURRENCY: "4" }), 8);
    expect(embedded.count).toBe(1);
    expect(embedded.note).toMatch(/WEB_CONCURRENCY=4 is ignored: the embedded database .* Set DATABASE_URL/);
    for (const bad of ["0", "-2", "1.5", "all", "257"]) expect(refusal({ WEB_CONCURRENCY: bad })).toMatch(/WEB_CONCURRENCY: must be/);
  });

  it("parses lists, numbers and booleans", () => {
    const config = loadConfig({ API_PREFIXES: " /catalog/v2 ,/v2", PORT: "8080", SAMPLE_CATALOG: "no", PRODUCT_CACHE_SIZE: "0" });
    expect(config).toMatchObject({ API_PREFIXES: ["/catalog/v2", "/v2"], PORT: 8080, SAMPLE_CATALOG: false, PRODUCT_CACHE_SIZE: 0 });
  });

  it("takes LIVE_LOOKUP_HOSTS as host names compared as brand scopes, off unless set", () => {
    expect(loadConfig({})).toMatchObject({ LIVE_LOOKUP_HOSTS: [], LIVE_LOOKUP_TIMEOUT_MS: 8000 });
    expect(loadConfig({ LIVE_LOOKUP_HOSTS: " shop.example, WWW.Other.Example ,127.0.0.1" }).LIVE_LOOKUP_HOSTS).toEqual([
      "shop.example",
      "other.example",
      "127.0.0.1",
    ]);
    // A port, when written, is kept: that port only (issue 47); without one, the schemes' own ports.
    expect(loadConfig({ LIVE_LOOKUP_HOSTS: "Shop.Example:8443,www.other.example:443,127.0.0.1:3000" }).LIVE_LOOKUP_HOSTS).toEqual([
      "shop.example:8443",
      "other.example:443",
      "127.0.0.1:3000",
    ]);
    for (const wrong of ["https://shop.example", "shop.example:0", "shop.example:70000", "shop.example/p", "user@shop.example"]) {
      expect(refusal({ LIVE_LOOKUP_HOSTS: `ok.example,${wrong}` })).toMatch(
        /LIVE_LOOKUP_HOSTS\.1: each host must be a host name such as shop\.example, or one with a port/,
      );
    }
    expect(refusal({ LIVE_LOOKUP_TIMEOUT_MS: "0" })).toMatch(/LIVE_LOOKUP_TIMEOUT_MS/);
  });

  it("names each bad setting", () => {
    expect(refusal({ PORT: "http" })).toMatch(/PORT/);
    expect(refusal({ SAMPLE_CATALOG: "maybe" })).toMatch(/SAMPLE_CATALOG: must be true or false/);
    expect(refusal({ API_PREFIXES: "/api/" })).toMatch(/API_PREFIXES/);
    expect(refusal({ RATE_LIMIT_STORE: "redis" })).toMatch(/RATE_LIMIT_STORE/);
  });

  it("refuses settings that only work together, listing every problem at once", () => {
    const message = refusal({ DATABASE_REPLICA_URLS: "postgres://replica/db", PORT: "9000", METRICS_PORT: "9000", RERANKER: "llm" });
    expect(message).toMatch(/DATABASE_REPLICA_URLS: needs DATABASE_URL/);
    expect(message).toMatch(/METRICS_PORT: must differ from PORT/);
    expect(message).toMatch(/OPENAI_API_KEY or OPENAI_BASE_URL/);
    expect(refusal({ DATABASE_URL: "postgres://p/db", DATABASE_REPLICA_URLS: "postgres://r1/db, nonsense" })).toMatch(/DATABASE_REPLICA_URLS/);
    expect(
      loadConfig({ DATABASE_URL: "postgres://p/db", DATABASE_REPLICA_URLS: "postgres://r1/db, postgres://r2/db" }).DATABASE_REPLICA_URLS,
    ).toEqual(["postgres://r1/db", "postgres://r2/db"]);
    expect(loadConfig({ METRICS_PORT: "9100" }).METRICS_PORT).toBe(9100);
  });
});
