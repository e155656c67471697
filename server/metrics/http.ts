/**
 * Metrics over HTTP: a hook that times every answer, and GET /metrics either
 * on the API (behind a key, see app.ts) or on a listener of its own for a
 * scraper inside the network (METRICS_PORT), where no key is asked.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync, type FastifyReply } from "fastify";
import fp from "fastify-plugin";
import { AggregatorRegistry } from "prom-client";
import { UNIT_COST } from "../api/operations/index.js";
import { redactingStream } from "../api/http/logging.js";
import type { Metrics } from "./metrics.js";

const requestMetrics: FastifyPluginAsync<{ metrics: Metrics }> = async (app, opts) => {
  // Callback-style, not async: it runs on every answer, and an async hook costs a promise and a microtask turn.
  app.addHook("onResponse", (request, reply, done) => {
    opts.metrics.observeRequest(
      // The route's pattern (`/api/v1/products/:id`), one series per route; a 404 without a route is one more.
      { method: request.method, route: request.routeOptions.url ?? "unmatched", status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });
};

/** Times every answer of the app it is registered on (at the root, so unknown routes count too). */
export const requestMetricsPlugin = fp(requestMetrics, { name: "catalog-request-metrics", fastify: "5.x" });

/** What a scrape is answered with: one process's registry, or the sum over a cluster's workers. */
export interface Scrape {
  contentType: string;
  text(): Promise<string>;
}

export function scrapeOf(metrics: Metrics): Scrape {
  return { contentType: metrics.registry.contentType, text: () => metrics.registry.metrics() };
}

/**
 * Under WEB_CONCURRENCY (server/cluster.ts), the primary's scrape: each worker's registry asked over the cluster's IPC and
 * added up (counters and histograms summed, gauges too, save prom-client's own choices for its process metrics).
 * A worker answers once it has called `answerClusterScrapes`.
 */
export function clusterScrape(): Scrape {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, text: () => aggregator.clusterMetrics() };
}

/** In a cluster worker: answer the primary's scrapes with this process's registry. */
export function answerClusterScrapes(metrics: Metrics): void {
  // The constructor is what starts listening for the primary's requests.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
}

async function sendMetrics(scrape: Scrape, reply: FastifyReply): Promise<FastifyReply> {
  return reply.type(scrape.contentType).send(await scrape.text());
}

/** GET /metrics on the API, behind a key like every other answer (the gate checks it). */
export const metricsRoute: FastifyPluginAsync<{ metrics: Metrics }> = async (app, opts) => {
  const scrape = scrapeOf(opts.metrics);
  app.get("/metrics", { config: { gate: { cost: UNIT_COST } } }, (_request, reply) => sendMetrics(scrape, reply));
};

/** A listener that serves only GET /metrics, without a key: bind it where only the scraper can reach it. */
export async function listenForScrapes(options: { scrape: Scrape; host: string; port: number; logLevel?: string }): Promise<FastifyInstance> {
  // A line per scrape (every few seconds) would drown the log; errors are still logged.
  const app = Fastify({
    logger: { level: options.logLevel ?? "info", stream: redactingStream() },
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get("/metrics", (_request, reply) => sendMetrics(options.scrape, reply));
  await app.listen({ host: options.host, port: options.port });
  return app;
}
