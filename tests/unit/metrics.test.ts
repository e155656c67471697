import { describe, expect, it } from "vitest";
import { createMetrics } from "../../server/metrics/index.js";
import { fallbackReason } from "../../server/metrics/metrics.js";

describe("metrics", () => {
  it("folds the LLM reranker's free-text fallback reasons into a few label values", () => {
    expect(fallbackReason("timeout after 2000ms")).toBe("timeout");
    expect(fallbackReason("connection failed (after 2 attempts)")).toBe("connection");
    expect(fallbackReason("HTTP 429 rate_limit_exceeded; no retry: 120ms left, retry after 800ms")).toBe("rate_limited");
    expect(fallbackReason("HTTP 503 (after 2 attempts)")).toBe("http_error");
    expect(fallbackReason("malformed answer: body is not JSON")).toBe("malformed");
    expect(fallbackReason("unexpected error (TypeError)")).toBe("other");
    expect(fallbackReason(undefined)).toBe("other");
  });

  it("keeps each instance's counts in its own registry", async () => {
    const one = createMetrics();
    const two = createMetrics();
    one.countImport({ imported: 3, updated: 1, unchanged: 2, failed: 0 });
    const text = await one.registry.metrics();
    expect(text).toContain('catalog_import_products_total{outcome="imported"} 3');
    expect(text).toContain('catalog_import_products_total{outcome="unchanged"} 2');
    expect(await two.registry.metrics()).not.toContain('catalog_import_products_total{outcome="imported"} 3');
  });
});
