/** Prometheus metrics: what is counted (metrics.ts) and how it is served (http.ts). */
export { createMetrics, type Metrics } from "./metrics.js";
export { answerClusterScrapes, clusterScrape, listenForScrapes, metricsRoute, requestMetricsPlugin, scrapeOf } from "./http.js";
