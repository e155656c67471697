/**
 * The service's Prometheus metrics. Each app gets a registry of its own, not
 * prom-client's global one: tests build several apps in one process, and the
 * global registry would mix their counts and refuse the second registration.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { AdmissionObserver, AdmissionState } from "../api/admission.js";
import type { ImportSummary } from "../ingest/import.js";
import type { SearchReport } from "../search/service.js";

export interface Metrics {
  readonly registry: Registry;
  /** One answered HTTP request; `route` is the route's pattern, never the raw URL (ids would make a series each). */
  observeRequest(labels: { method: string; route: string; status: number }, seconds: number): void;
  /** The search service's `observe` dependency. */
  observeSearch(report: SearchReport): void;
  /** Searches' waits and refusals at admission (api/admission.ts), as they happen. */
  readonly admission: AdmissionObserver;
  /** Where the gauges of searches in progress and waiting read from at each scrape. */
  watchAdmission(state: () => AdmissionState): void;
  /** What an import in this process did, product by product. */
  countImport(summary: Pick<ImportSummary, "imported" | "updated" | "unchanged" | "failed">): void;
}

/** From sub-millisecond (a cached query vector) to the LLM reranker's deadline of a few seconds. */
const STAGE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** From no wait at all (the usual case) to SEARCH_QUEUE_TIMEOUT_MS's few seconds. */
const WAIT_BUCKETS = [0, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

/**
 * A fallback's reason is free text for the log (rerankers/llm.ts: "timeout after 2000ms",
 * "HTTP 503 (after 2 attempts)", "malformed answer: …"); a label needs a small fixed set.
 */
const FALLBACK_REASONS: readonly (readonly [RegExp, string])[] = [
  [/^timeout/, "timeout"],
  [/^connection/, "connection"],
  [/^HTTP 429\b/, "rate_limited"],
  [/^HTTP \d/, "http_error"],
  [/^malformed/, "malformed"],
];

export function fallbackReason(reason: string | undefined): string {
  return FALLBACK_REASONS.find(([pattern]) => pattern.test(reason ?? ""))?.[1] ?? "other";
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Process CPU, memory, file descriptors, event-loop lag and GC, under their usual names.
  collectDefaultMetrics({ register: registry });

  const requestLabels = ["method", "route", "status_code"] as const;
  const requests = new Counter({
    name: "catalog_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status code.",
    labelNames: requestLabels,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: "catalog_http_request_duration_seconds",
    help: "Time from receiving a request to finishing its answer, by method, route pattern and status code.",
    labelNames: requestLabels,
    buckets: HTTP_BUCKETS,
    registers: [registry],
  });
  const requestSeries = new Map<string, { count: Counter.Internal; seconds: Histogram.Internal<(typeof requestLabels)[number]> }>();
  const stageSeconds = new Histogram({
    name: "catalog_search_stage_duration_seconds",
    help: "Time each search spends per stage: embed (the query's vector), retrieve (full text, vectors, fusion, records), rerank.",
    labelNames: ["stage"] as const,
    buckets: STAGE_BUCKETS,
    registers: [registry],
  });
  const fallbacks = new Counter({
    name: "catalog_rerank_fallbacks_total",
    help: "Searches answered in retrieval order because the reranker failed or ran out of time, by reranker and reason.",
    labelNames: ["reranker", "reason"] as const,
    registers: [registry],
  });
  const imports = new Counter({
    name: "catalog_import_products_total",
    help: "Products handled by imports in this server process (the sample catalog at start), by outcome; CLI imports run in their own process and are not counted.",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });

  let admissionState: (() => AdmissionState) | undefined;
  new Gauge({
    name: "catalog_search_in_progress",
    help: "Searches holding an admission slot now (at most SEARCH_CONCURRENCY).",
    registers: [registry],
    collect() {
      this.set(admissionState?.().running ?? 0);
    },
  });
  new Gauge({
    name: "catalog_search_queue_depth",
    help: "Searches waiting for an admission slot now (at most SEARCH_QUEUE_LENGTH).",
    registers: [registry],
    collect() {
      this.set(admissionState?.().queued ?? 0);
    },
  });
  const admissionWaits = new Histogram({
    name: "catalog_search_queue_wait_seconds",
    help: "How long each admitted search waited for its slot (0 when one was free).",
    buckets: WAIT_BUCKETS,
    registers: [registry],
  });
  const admissionRejections = new Counter({
    name: "catalog_search_rejected_total",
    help: "Searches refused with 503 overloaded, by reason: queue_full (SEARCH_QUEUE_LENGTH were waiting) or queue_timeout (waited SEARCH_QUEUE_TIMEOUT_MS).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });

  return {
    registry,
    admission: {
      admitted: (seconds) => admissionWaits.observe(seconds),
      rejected: (reason) => admissionRejections.inc({ reason }),
    },
    watchAdmission(state) {
      admissionState = state;
    },
    observeRequest({ method, route, status }, seconds) {
      // prom-client hashes a labels object on every call; the children of a (method, route, status) are kept instead.
      const key = `${method} ${status} ${route}`;
      let series = requestSeries.get(key);
      if (!series) {
        const labels = { method, route, status_code: String(status) };
        series = { count: requests.labels(labels), seconds: requestSeconds.labels(labels) };
        requestSeries.set(key, series);
      }
      series.count.inc();
      series.seconds.observe(seconds);
    },
    observeSearch({ stages, rerank }) {
      for (const [stage, seconds] of Object.entries(stages)) stageSeconds.observe({ stage }, seconds);
      if (rerank.outcome === "fallback") fallbacks.inc({ reranker: rerank.name, reason: fallbackReason(rerank.reason) });
    },
    countImport(summary) {
      for (const outcome of ["imported", "updated", "unchanged", "failed"] as const) imports.inc({ outcome }, summary[outcome]);
    },
  };
}
