/**
 * The one place that reads the environment. `loadConfig(process.env)` runs once
 * at start-up and the typed result is passed down; nothing else reads env.
 */
import { z } from "zod";

const boolean = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
    .optional()
    .transform((value) => (value === undefined ? fallback : ["true", "1", "yes"].includes(value)));

const prefix = z
  .string()
  .trim()
  .regex(/^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/, "each prefix must start with / and not end with /");

export const ConfigSchema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  API_PREFIXES: z
    .string()
    .default("/api/v1,/v1")
    .transform((value) => value.split(",").map((p) => p.trim()).filter(Boolean))
    .pipe(z.array(prefix).min(1, "must name at least one prefix")),
  SAMPLE_CATALOG: boolean(true),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** How long a verified key is trusted before the database is asked again; bounds how late a revocation bites. */
  KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Empty strings count as unset, so `FOO=` in a shell or .env file falls back to the default. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = ConfigSchema.safeParse(defined);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`).join("\n");
    throw new ConfigError(`Invalid configuration:\n${problems}`);
  }
  return parsed.data;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
