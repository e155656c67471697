import { type Config, loadConfig } from "../../server/config.js";

/** The server's configuration as the tests run it: the defaults, quiet, without the sample catalog, with `overrides`. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ LOG_LEVEL: "silent", SAMPLE_CATALOG: "false" }), ...overrides };
}
