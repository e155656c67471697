import { type Config, loadConfig } from "../../server/config.js";

/**
 * The server's configuration as the tests run it: the defaults, quiet, without the sample catalog, with `overrides`.
 * A search waits up to a minute for its turn, not 2 s: on a loaded 2-core CI machine the tests' own concurrent
 * searches would otherwise be refused as overloaded (admission.test.ts sets its own limits).
 */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ LOG_LEVEL: "silent", SAMPLE_CATALOG: "false", SEARCH_QUEUE_TIMEOUT_MS: "60000" }), ...overrides };
}
