/**
 * The one place that reads the environment. `loadConfig(process.env)` runs once
 * at start-up and the typed result is passed down; nothing else reads env.
 */
import { availableParallelism } from "node:os";
import { z } from "zod";
import { brandHost } from "../shared/url.js";
import { parseNetwork } from "./fetch/address.js";

const boolean = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
    .optional()
    .transform((value) => (value === undefined ? fallback : ["true", "1", "yes"].includes(value)));

const MiB = 1024 * 1024;
/** A size in bytes, from 1 KiB to 1 GiB. */
const bytes = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1024, "must be at least 1024 bytes")
    .max(1024 * MiB, "must be at most 1 GiB")
    .default(fallback);
/** `*`, or an origin as a browser sends it in `Origin`: scheme, host and port, nothing more. */
function isOrigin(value: string): boolean {
  if (value === "*") return true;
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

/** A host name as an operator writes it (`shop.example`, `127.0.0.1`), as URL parsing spells it; null for anything more (scheme, port, path). */
function hostName(value: string): string | null {
  try {
    const url = new URL(`http://${value}/`);
    return url.host === url.hostname && url.pathname === "/" && !url.username && !url.search && !url.hash ? url.hostname : null;
  } catch {
    return null;
  }
}

/**
 * A live lookup host as an operator writes it, `shop.example` or `shop.example:8443`, as brand scopes compare it
 * (lower case, without `www.`), the port kept when one is written; null for anything more (scheme, path, user).
 */
function hostAndPort(value: string): string | null {
  const port = /^(?:\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(value)?.[1];
  const host = hostName(port === undefined ? value : value.slice(0, -port.length - 1));
  const scope = host === null ? null : brandHost(host);
  if (scope === null || scope === undefined) return null;
  if (port === undefined) return scope;
  const number = Number(port);
  return number >= 1 && number <= 65535 ? `${scope}:${number}` : null;
}

/** A comma-separated setting as its trimmed, non-empty items (each checked by the `.pipe` that follows). */
function commaList(fallback: string) {
  return z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    );
}

const prefix = z
  .string()
  .trim()
  .regex(/^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/, "must start with / and not end with /");

/** What an unset PGLITE_SHARED_BUFFERS_MB sizes the page cache within: PGlite's own default, and a bound on memory. */
export const PGLITE_SHARED_BUFFERS_AUTO = { minMb: 128, maxMb: 1024 } as const;

export const ConfigSchema = z.object({
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Serves /metrics on this port of HOST without a key, for a scraper inside the network; unset: on PORT, behind a key. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  /**
   * The embedded database's page cache in MiB, held from the start. Unset: the size of DATA_DIR's tables and indexes
   * when the server starts, between PGLITE_SHARED_BUFFERS_AUTO's bounds (see db/pglite.ts).
   */
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(16).max(2048).optional(),
  DATABASE_URL: z.string().url().optional(),
  /** Read replicas of DATABASE_URL, comma-separated: searches and lookups read from them; imports, keys and rate limits write to the primary. */
  DATABASE_REPLICA_URLS: commaList("").pipe(z.array(z.string().url("each replica must be a postgres:// URL"))),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /**
   * Server processes on PORT with DATABASE_URL (node:cluster; each with its own encoder, caches and pool of
   * DATABASE_POOL_SIZE). Unset: one per core. The embedded database is always one process (see serverProcesses).
   */
  WEB_CONCURRENCY: z.coerce
    .number({ error: "must be a whole number of server processes, 1 or more" })
    .int("must be a whole number of server processes, 1 or more")
    .min(1, "must be a whole number of server processes, 1 or more")
    .max(256, "must be at most 256 server processes")
    .optional(),
  API_PREFIXES: commaList("/api/v1,/v1").pipe(z.array(prefix).min(1, "must name at least one prefix")),
  /** Where the Universal Commerce Protocol's REST binding is served (`{UCP_BASE}/catalog/search`, …); see docs/ucp.md. */
  UCP_BASE: prefix.default("/ucp"),
  /**
   * The server's public origin (`https://catalog.example.com`), for the absolute URLs of `/.well-known/ucp` and the
   * OpenAPI document's servers. Unset: each answer names the origin the request came to (its scheme and Host header),
   * and the document's servers are relative.
   */
  PUBLIC_URL: z
    .string()
    .trim()
    .refine((value) => isOrigin(value) && value !== "*", "must be scheme://host[:port], without a path or a trailing /")
    .optional(),
  SAMPLE_CATALOG: boolean(true),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /**
   * How the server's logs and start-up progress are written: `json` (one JSON object a line on stdout, for a
   * collector), `human` (plain lines, for a person), or `auto`: human when stdout is a terminal, else JSON.
   */
  LOG_FORMAT: z.enum(["auto", "json", "human"]).default("auto"),
  /**
   * How long a key read from the database is trusted without the database confirming it. The server confirms its keys
   * every second (a revocation bites within about a second), so this bounds a revocation's delay only while the
   * database cannot be read. 0: every request reads its key.
   */
  KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
  /** Products (without raw_data) served from memory; the cache is dropped within a second of any import. 0 turns it off. */
  PRODUCT_CACHE_SIZE: z.coerce.number().int().min(0).max(10_000_000).default(10_000),
  /** Cost units a key may spend per minute unless it was issued with its own limit (a lookup costs 1, a search 5). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  /**
   * Where the counters live: `database` (shared by every server on it), `memory` (this process only),
   * or `auto`: `database` with DATABASE_URL, `memory` on the embedded database, which one process owns.
   */
  RATE_LIMIT_STORE: z.enum(["auto", "database", "memory"]).default("auto"),
  /**
   * With the database store, each key's use is added to the shared counter at most this often
   * (a write per key per interval, not per request); behind N servers a key can overrun its
   * limit by what it spends on the others in one interval. 0: a write per request, exact.
   */
  RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(0).max(60_000).default(250),
  /** Most calls in one request: a tRPC batch or a JSON-RPC batch on /mcp; more is a 400. */
  MAX_BATCH_CALLS: z.coerce.number().int().min(1).max(100).default(10),
  /** Largest request body read (tRPC mutations, MCP messages, POST operations); more is refused (413) before it is parsed. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16_777_216).default(262_144),
  /**
   * Largest answer one request may get, in bytes of JSON (a tRPC or MCP batch counts as one answer); more is
   * refused with 400 `answer_too_large` before the answer is serialised. Raw page data is what makes answers large.
   */
  ANSWER_MAX_BYTES: z.coerce.number().int().min(1024).max(1_073_741_824).default(33_554_432),
  /**
   * What an answer's size costs: one rate-limit unit per this many bytes of JSON it holds (whole ones: a smaller
   * answer costs nothing more), charged on top of the operation's cost once the answer is measured, before it is sent.
   * 256 KiB: a 25 MB answer of raw data (seconds of the server's thread to read, measure, write and compress) costs
   * about 20 searches, so a key on the default limit gets about six a minute (bench:hostile answers).
   */
  ANSWER_BYTES_PER_UNIT: z.coerce.number().int().min(1024).max(1_073_741_824).default(262_144),
  /** How long a client has to send a whole request, head and body; a slower one gets 408 and is disconnected. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /**
   * Origins whose pages may call the API from a browser (CORS), comma-separated (`https://shop.example`), or `*`
   * for any. Unset: no cross-origin access.
   */
  CORS_ORIGINS: commaList("")
    .pipe(z.array(z.string().refine(isOrigin, "each origin must be `*` or scheme://host[:port], without a path or a trailing /")))
    .transform((origins): "*" | string[] => (origins.includes("*") ? "*" : origins)),

  /**
   * Caps on what an import reads and stores (`catalog import`, `catalog extract`); each refusal names its setting.
   * A longer NDJSON line is skipped without being held in memory.
   */
  IMPORT_MAX_LINE_BYTES: bytes(16 * MiB),
  /** A saved page larger than this (after gunzip) is refused before it is parsed: extraction time and memory grow with it. */
  IMPORT_MAX_PAGE_BYTES: bytes(8 * MiB),
  /** A record whose `raw_data.strippedHtml` is larger than this is refused. */
  IMPORT_MAX_STRIPPED_HTML_BYTES: bytes(2 * MiB),
  /**
   * CPU time one page's extraction may take (import, extract, fetch, refresh, live lookup): past it the page is
   * reported and left, never waited for. The largest real page (3.9 MB) takes about 0.5 s, a dense 8 MiB page 2.5 s.
   */
  EXTRACT_BUDGET_MS: z.coerce.number().int().min(1).max(600_000).default(4000),

  /**
   * Searches in progress at once (each process); more wait their turn, clients taking turns (docs/operations.md, "Search under
   * load"). Unset: 2 on the embedded database (one statement at a time: a second search keeps it busy while the first
   * computes), 4 with DATABASE_URL (one connection process per search). 0: no admission control.
   */
  SEARCH_CONCURRENCY: z.coerce.number().int().min(0).max(1000).optional(),
  /** Searches that may wait for a turn; one more is answered 503 `overloaded` at once, with Retry-After. */
  SEARCH_QUEUE_LENGTH: z.coerce.number().int().min(0).max(100_000).default(32),
  /** The longest a search waits for its turn; then it is answered 503 `overloaded`. */
  SEARCH_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(2000),
  /**
   * Threads that embed queries (and imports) with the local sentence encoder, beside the event loop, so lookups and
   * database I/O go on while a query is embedded. 0: on the main thread. Each thread holds its own copy of the model.
   */
  ENCODER_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  /**
   * The most encoder threads an import's batches are spread over (with ENCODER_THREADS > 0): the threads beyond
   * ENCODER_THREADS start with the first large batch, so only a process that imports loads them. Unset: one per core.
   */
  IMPORT_ENCODER_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => availableParallelism()),
  /**
   * Fetching product pages (`catalog fetch`, `catalog refresh`): who we say we are (robots.txt rules for
   * its first word apply), how politely we ask, and how long we wait. Pages are capped by IMPORT_MAX_PAGE_BYTES.
   */
  FETCH_USER_AGENT: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .regex(/^[A-Za-z0-9._-]+\/\S+/, "must start with a product token and version, e.g. MyCatalogBot/1.0 (+https://example.com/bot)")
    .default("ProductCatalogBot/0.1 (+https://product-catalog.example/bot)"),
  /**
   * Private, loopback, link-local, documentation and reserved addresses, and this machine's own, are refused (a
   * crafted URL must not probe our network). True lifts the loopback refusal only: tests, a shop on this machine.
   */
  FETCH_ALLOW_PRIVATE: boolean(false),
  /** Networks (CIDRs, comma-separated) that fetches may connect to whatever they are: the operator's own shops. */
  FETCH_ALLOW_NETWORKS: commaList("").pipe(
    z.array(z.string().refine((network) => parseNetwork(network) !== null, "each network must be a CIDR such as 10.20.0.0/16 or fd12:3456::/48")),
  ),
  /** Least time between the end of one request to a host and the start of the next; a larger robots.txt Crawl-delay wins. */
  FETCH_HOST_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(1000),
  /** Requests in flight at once, over all hosts (one per host at most, always). */
  FETCH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  FETCH_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** From the request sent to the answer's status line and headers. */
  FETCH_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  /** From the answer's headers to the last byte of its body. */
  FETCH_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  /** Further tries after a 429 or 5xx answer, each after `Retry-After`, else after FETCH_RETRY_BASE_MS doubled each time. */
  FETCH_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  FETCH_RETRY_BASE_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /**
   * Live lookup: merchant hosts whose pages `GET /products?url=…&fetch=true` may fetch when the catalog does not
   * hold them, comma-separated host names (`shop.example` also allows `www.shop.example`; other subdomains are
   * hosts of their own), each on the default ports (80, 443) unless a port is written (`shop.example:8443`: that
   * port only). Every hop of a redirect is held to the same list. Unset: live lookup is off and `fetch=true` is a 400.
   */
  LIVE_LOOKUP_HOSTS: commaList("")
    .pipe(
      z.array(
        z
          .string()
          .refine(
            (host) => hostAndPort(host) !== null,
            "each host must be a host name such as shop.example, or one with a port such as shop.example:8443, without scheme or path",
          ),
      ),
    )
    // Compared as brand scopes are: lower case, without `www.` (shared/url.ts), then the port if one is written.
    .transform((hosts) => hosts.map((host) => hostAndPort(host) ?? host)),
  /** The longest a live lookup takes, fetch, extraction and storing included; then it is answered 504 `upstream_timeout`. */
  LIVE_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(8000),

  RERANKER: z.enum(["local", "llm", "none"]).default("local"),
  RERANK_CANDIDATES: z.coerce.number().int().min(1).max(200).default(40),
  /**
   * The relevance floor: a product that no word of the query matches (after stemming) is a match only if its
   * embedding's cosine similarity to the query's is at least this. Calibrated on the dev queries (docs/search.md).
   */
  SEARCH_MIN_SIMILARITY: z.coerce.number().min(-1).max(1).default(0.45),
  /**
   * An operator's synonyms, applied at search time (no reindex), in the Solr/Elasticsearch format: `a, b, c` for
   * equivalents, `a => b` one way (docs/search.md). A file with a mistake stops the server at start, naming the line.
   */
  SYNONYMS_FILE: z.string().min(1).optional(),
  /** The built-in synonyms for shopping English (server/search/rules/en/synonyms.txt), applied beside SYNONYMS_FILE. */
  SYNONYMS_BUILTIN: boolean(true),
  /**
   * An operator's rules folder, shaped as the built-in one (server/search/rules: `en/sexes.json`, `en/synonyms.txt`, …):
   * each file adds to the built-in file of its name, or replaces its lists when it says so (docs/search/rules.md). A
   * file with a mistake stops the server at start, naming the file and line.
   */
  RULES_DIR: z.string().min(1).optional(),
  /**
   * The operator's exchange rates, `{"base", "date", "rates"}` as Frankfurter and the ECB give them: price filters
   * then apply to prices in every currency they know, converted (docs/search.md). None: prices are never converted.
   * A file with a mistake stops the server at start, naming the problem.
   */
  FX_RATES_FILE: z.string().min(1).optional(),
  /** The most products one search matches, and so pages through by relevance (the facets count these). */
  SEARCH_MAX_RESULTS: z.coerce.number().int().min(10).max(1000).default(200),
  RERANK_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  RERANK_MODEL: z.string().min(1).default("gpt-4.1-mini"),
  /** Who reads queries: the rules (offline), or a language model on the OpenAI-compatible server, the rules when it fails. */
  QUERY_ANALYSER: z.enum(["rules", "model"]).default("rules"),
  /** The chat model that reads queries with QUERY_ANALYSER=model; RERANK_MODEL when unset. */
  QUERY_MODEL: z.string().min(1).optional(),
  /** How long a search waits for the model's reading of its query before going on with the rules'. */
  QUERY_MODEL_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(1500),
  EMBEDDINGS: z.enum(["local", "openai"]).default("local"),
  EMBEDDING_MODEL: z.string().min(1).default("text-embedding-3-small"),
  /** The catalog stores 512-dimension vectors (the local model's size); OpenAI's text-embedding-3 models shorten theirs to match. */
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(1).max(16_000).default(512),
  OPENAI_BASE_URL: z.string().url().optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
});

export type Config = z.infer<typeof ConfigSchema>;

/** Settings that only make sense together: each problem found, in the shape of a schema issue. */
function checkCombinations(config: Config): string[] {
  const problems: string[] = [];
  if (config.DATABASE_REPLICA_URLS.length > 0 && !config.DATABASE_URL) {
    problems.push("  DATABASE_REPLICA_URLS: needs DATABASE_URL (replicas of the primary; the embedded database has none)");
  }
  if (config.METRICS_PORT !== undefined && config.METRICS_PORT === config.PORT) {
    problems.push("  METRICS_PORT: must differ from PORT (it moves /metrics to a listener of its own)");
  }
  // Settings that need an OpenAI-compatible server must have somewhere to send requests.
  const needsOpenAi = config.RERANKER === "llm" || config.EMBEDDINGS === "openai" || config.QUERY_ANALYSER === "model";
  if (needsOpenAi && !config.OPENAI_API_KEY && !config.OPENAI_BASE_URL) {
    problems.push("  OPENAI_API_KEY or OPENAI_BASE_URL: required when RERANKER=llm, EMBEDDINGS=openai or QUERY_ANALYSER=model");
  }
  return problems;
}

/** Empty strings count as unset, so `FOO=` in a shell or .env file falls back to the default. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = ConfigSchema.safeParse(defined);
  const problems = parsed.success
    ? checkCombinations(parsed.data)
    : parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  if (!parsed.success || problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);
  return parsed.data;
}

/** Search admission (api/admission.ts): SEARCH_CONCURRENCY's default depends on the database. */
export function admissionSettings(config: Config): { concurrency: number; queueLength: number; queueTimeoutMs: number } {
  return {
    concurrency: config.SEARCH_CONCURRENCY ?? (config.DATABASE_URL ? 4 : 2),
    queueLength: config.SEARCH_QUEUE_LENGTH,
    queueTimeoutMs: config.SEARCH_QUEUE_TIMEOUT_MS,
  };
}

/**
 * How many server processes to run (server/cluster.ts), and why not more. With DATABASE_URL: WEB_CONCURRENCY, else one per
 * core. The embedded database is one process whatever WEB_CONCURRENCY says, since one process owns the data dir; a note
 * says so rather than a refusal, because hosts set WEB_CONCURRENCY for every Node app (Heroku does).
 */
export function serverProcesses(
  config: Pick<Config, "WEB_CONCURRENCY" | "DATABASE_URL">,
  cores: number = availableParallelism(),
): { count: number; note?: string } {
  if (config.DATABASE_URL) return { count: config.WEB_CONCURRENCY ?? cores };
  if ((config.WEB_CONCURRENCY ?? 1) > 1) {
    return {
      count: 1,
      note: `WEB_CONCURRENCY=${config.WEB_CONCURRENCY} is ignored: the embedded database (DATA_DIR) is served by one process. Set DATABASE_URL to run several.`,
    };
  }
  return { count: 1 };
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
