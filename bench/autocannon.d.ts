/** The little of autocannon's API that the HTTP benchmarks use (autocannon ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec;
  }

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    /** Requests per second over all connections: each connection gets its share as a quota per second. */
    overallRate?: number;
    timeout?: number;
    headers?: Record<string, string>;
    requests?: RequestSpec[];
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    "2xx": number;
    requests: { average: number; total: number; sent: number };
    latency: { p50: number; p99: number; average: number };
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
