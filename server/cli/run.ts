/**
 * The operator CLI's commands, as a function of (argv, env, output) so tests
 * run it in-process. A client of the same services as the API; it reaches a
 * running server's embedded database through the server's socket instead of
 * opening the files twice.
 */
import { createReadStream, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { loadConfig, type Config } from "../config.js";
import { openDatabase, type DatabaseHandle } from "../db/open.js";
import { createKeyService } from "../auth/service.js";
import { createCatalogService } from "../catalog/service.js";
import { createEmbedder, createReranker } from "../search/providers.js";
import { checkEmbeddingModel, reindex } from "../search/reindex.js";
import { importRecords } from "../ingest/import.js";
import { importLimits } from "../ingest/limits.js";
import { extractFiles, ExtractInputError, importLines, type PageUrlOptions } from "../ingest/extract/cli.js";
import type { KeyRecord } from "../auth/store.js";
import { createServices } from "../services.js";
import { serveStdio } from "../mcp/stdio.js";
import { createProgress } from "./progress.js";

export const USAGE = `Usage: npm run -s catalog -- <command>

  keys issue --name NAME [--env dev|prod] [--expires-in DAYS] [--rate-limit N]
                                                                issue a key (printed once, last line); N: units per minute
                                                                for this key (a lookup costs 1, a search 5), else RATE_LIMIT_PER_MINUTE
  keys list                                                     list keys (never prints keys)
  keys revoke ID_OR_KEY                                         revoke a key
  keys rotate ID [--grace-days N]                               issue a successor; the old key works N more days (default 7)
  import PATH... [--url URL | --urls FILE] [--report FILE]      import NDJSON records and saved PDP pages (.html, .htm, .html.gz,
                                                                directories searched recursively); --report writes failures as NDJSON
  extract FILE... [--url URL | --urls FILE] [--explain]         print the record extracted from each page, one NDJSON line each (stores nothing);
                                                                --explain adds each field's layer, rule, confidence and every layer's value
  reindex                                                       re-embed the catalog with the configured EMBEDDINGS (resumable)
  migrate                                                       apply database migrations
  stats                                                         products, brands, embedding model, keys
  mcp                                                           serve the catalog to an agent over MCP on stdin/stdout (no key needed)

Honours DATA_DIR and DATABASE_URL; import and extract honour IMPORT_MAX_LINE_BYTES, IMPORT_MAX_PAGE_BYTES and
IMPORT_MAX_STRIPPED_HTML_BYTES.`;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export type Out = { log: (line: string) => void; err: (line: string) => void };

async function withDatabase<T>(config: Config, work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: 2, role: "cli" });
  try {
    await database.migrate();
    return await work(database);
  } finally {
    await database.close();
  }
}

function describeKey(key: KeyRecord, now: Date): string {
  const state = key.revokedAt ? "revoked" : key.expiresAt && key.expiresAt <= now ? "expired" : "active";
  const date = (d: Date | null) => (d ? d.toISOString().slice(0, 19).replace("T", " ") : "-");
  return [
    key.id,
    key.name,
    key.environment,
    `${key.start}…`,
    state,
    date(key.createdAt),
    date(key.lastUsedAt),
    date(key.expiresAt),
    date(key.revokedAt),
  ].join("\t");
}

function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw new UsageError(`${flag} must be a non-negative number of days`);
  return number;
}

/** `--url` / `--urls` for pages that state no URL of their own. */
function pageOptions(values: { url?: string | undefined; urls?: string | undefined }): PageUrlOptions {
  return { ...(values.url ? { url: values.url } : {}), ...(values.urls ? { urlsFile: values.urls } : {}) };
}

/** Lines to import, for the progress bar; only known when every path is a plain NDJSON file. */
async function countLines(paths: readonly string[]): Promise<number | null> {
  if (!process.stderr.isTTY || paths.some((path) => !/\.(ndjson|jsonl)$/i.test(path))) return null;
  let total = 0;
  for (const path of paths) {
    for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) if (line.trim()) total++;
  }
  return total;
}

function parseArguments(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        name: { type: "string" },
        env: { type: "string" },
        "expires-in": { type: "string" },
        "rate-limit": { type: "string" },
        "grace-days": { type: "string" },
        url: { type: "string" },
        urls: { type: "string" },
        report: { type: "string" },
        explain: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function run(argv: readonly string[], env: Record<string, string | undefined>, out: Out): Promise<number> {
  try {
    return await runCommand(argv, env, out);
  } catch (error) {
    throw error instanceof ExtractInputError ? new UsageError(error.message) : error;
  }
}

async function runCommand(argv: readonly string[], env: Record<string, string | undefined>, out: Out): Promise<number> {
  const { values, positionals } = parseArguments(argv);
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    out.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig(env);

  if (command === "keys") {
    return withDatabase(config, async (database) => {
      const keys = createKeyService({ db: database.db, clock: () => new Date(), cacheTtlMs: 0 });
      const now = new Date();
      switch (sub) {
        case "issue": {
          if (!values.name) throw new UsageError("keys issue needs --name NAME");
          const environment = values.env ?? "dev";
          if (environment !== "dev" && environment !== "prod") throw new UsageError("--env must be dev or prod");
          const expiresInDays = positiveNumber(values["expires-in"], "--expires-in");
          const rateLimit = values["rate-limit"];
          if (rateLimit !== undefined && !/^[1-9][0-9]{0,6}$/.test(rateLimit))
            throw new UsageError("--rate-limit must be a whole number of units per minute, 1 to 9999999");
          const { key, record } = await keys.issue({
            name: values.name,
            environment,
            ...(expiresInDays === undefined ? {} : { expiresInDays }),
            ...(rateLimit === undefined ? {} : { rateLimitPerMinute: Number(rateLimit) }),
          });
          const limit = record.rateLimitPerMinute === null ? "" : `, ${record.rateLimitPerMinute} units/minute`;
          out.err(
            `Issued ${record.id} (${record.name}, ${record.environment}${limit}${record.expiresAt ? `, expires ${record.expiresAt.toISOString()}` : ""}). The key is shown only once:`,
          );
          out.log(key);
          return 0;
        }
        case "list": {
          out.log(["id", "name", "env", "start", "state", "created", "last used", "expires", "revoked"].join("\t"));
          for (const key of await keys.list()) out.log(describeKey(key, now));
          return 0;
        }
        case "revoke": {
          const target = rest[0];
          if (!target) throw new UsageError("keys revoke needs a key id or the key");
          const revoked = await keys.revoke(target);
          if (!revoked) {
            out.err(`No key ${target.startsWith("pcl_") ? "matches that key" : `with id ${target}`}.`);
            return 1;
          }
          out.log(`Revoked ${revoked.id} (${revoked.name}). Running servers refuse it within ${config.KEY_CACHE_TTL_SECONDS} s.`);
          return 0;
        }
        case "rotate": {
          const target = rest[0];
          if (!target) throw new UsageError("keys rotate needs a key id");
          const graceDays = positiveNumber(values["grace-days"], "--grace-days") ?? 7;
          const rotated = await keys.rotate(target, graceDays);
          if (!rotated) {
            out.err(`No key with id ${target}.`);
            return 1;
          }
          out.err(`Issued ${rotated.record.id} to replace ${target}, which keeps working for ${graceDays} day(s). The new key is shown only once:`);
          out.log(rotated.key);
          return 0;
        }
        default:
          throw new UsageError(`unknown keys command ${sub ?? "(none)"}; try issue, list, revoke or rotate`);
      }
    });
  }

  if (command === "import") {
    const paths = [sub, ...rest].filter((path): path is string => Boolean(path));
    if (paths.length === 0) throw new UsageError("import needs at least one PATH");
    const pages = pageOptions(values);
    const total = await countLines(paths);
    const embedder = await createEmbedder(config);
    try {
      return await withDatabase(config, async (database) => {
        await checkEmbeddingModel(database.db, embedder);
        const progress = createProgress(total, "importing");
        const summary = await importRecords({ db: database.db, embedder }, importLines(paths, pages, importLimits(config)), {
          onProgress: (s) => progress.update(s.imported + s.updated + s.unchanged + s.failed, `(${s.failed} failed)`),
        });
        progress.finish();
        for (const failure of summary.failures) out.err(`${failure.source}${failure.line > 0 ? `:${failure.line}` : ""}: ${failure.reason}`);
        if (values.report) writeFileSync(values.report, summary.failures.map((failure) => `${JSON.stringify(failure)}\n`).join(""));
        out.log(`imported ${summary.imported}, updated ${summary.updated}, unchanged ${summary.unchanged}, failed ${summary.failed}`);
        return summary.failed > 0 ? 1 : 0;
      });
    } finally {
      await embedder.close();
    }
  }

  if (command === "extract") {
    const paths = [sub, ...rest].filter((path): path is string => Boolean(path));
    if (paths.length === 0) throw new UsageError("extract needs at least one FILE");
    let failed = 0;
    for await (const line of extractFiles(paths, pageOptions(values), importLimits(config), values.explain === true)) {
      if ("error" in line) failed++;
      out.log(JSON.stringify(line));
    }
    return failed > 0 ? 1 : 0;
  }

  if (command === "reindex") {
    const embedder = await createEmbedder(config);
    try {
      return await withDatabase(config, async (database) => {
        const progress = createProgress(null, `re-embedding with ${embedder.model}`);
        const { reembedded } = await reindex({ db: database.db, embedder }, { onProgress: (done, total) => progress.update(done, `of ${total}`) });
        progress.finish();
        out.log(`re-embedded ${reembedded} products with ${embedder.model}`);
        return 0;
      });
    } finally {
      await embedder.close();
    }
  }

  if (command === "mcp") {
    const embedder = await createEmbedder(config);
    try {
      return await withDatabase(config, async (database) => {
        await checkEmbeddingModel(database.db, embedder);
        const reranker = createReranker(config, database.read);
        await serveStdio(createServices({ database, embedder, reranker, rerankCandidates: config.RERANK_CANDIDATES }), {
          logLevel: config.LOG_LEVEL,
        });
        return 0;
      });
    } finally {
      await embedder.close();
    }
  }

  if (command === "migrate") {
    await withDatabase(config, async () => undefined);
    out.log("migrations applied");
    return 0;
  }

  if (command === "stats") {
    return withDatabase(config, async (database) => {
      const catalog = createCatalogService({ db: database.db });
      const keys = createKeyService({ db: database.db, clock: () => new Date(), cacheTtlMs: 0 });
      const stats = await catalog.stats();
      out.log(`products\t${stats.products}`);
      out.log(`brands\t${stats.brands}`);
      out.log(`embedding model\t${(await catalog.embeddingModels()).join(", ") || "-"}`);
      out.log(`keys\t${(await keys.list()).length} (${await keys.countUsable()} usable)`);
      return 0;
    });
  }

  throw new UsageError(`unknown command ${command}`);
}
