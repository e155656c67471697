/**
 * The operator CLI: a table of commands, run as a function of (argv, env,
 * output) so tests run it in-process. A client of the same parts as the API,
 * built by the composition root; it reaches a running server's embedded
 * database through the server's socket instead of opening the files twice.
 */
import { createReadStream, writeFileSync } from "node:fs";
import { access } from "node:fs/promises";
import type { Writable } from "node:stream";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { KeyRecord } from "../auth/store.js";
import { createRoot, type MigrationProgress, type Root } from "../compose.js";
import { type Config, loadConfig } from "../config.js";
import { ExtractInputError, extractFiles, importLines, type PageUrlOptions } from "../ingest/extract/cli.js";
import type { DatabaseHandle } from "../db/handle.js";
import { type BulkLoad, importRecords } from "../ingest/import.js";
import { CursorAheadError, type ExportSummary, exportFeed, FEED_FORMATS, type FeedFormat, isFeedFormat } from "../feeds/index.js";
import { ChangeCursorSchema } from "../../shared/schemas/index.js";
import { importLimits } from "../ingest/limits.js";
import { type CrawlDeps, type CrawlSummary, fetchPages, fetchSitemap, refresh, type Target } from "../fetch/crawl.js";
import { createFetcher, fetchSettings } from "../fetch/fetcher.js";
import { brandHost } from "../../shared/url.js";
import { serveStdio } from "../mcp/stdio.js";
import { checkEmbeddingModel, reindex } from "../search/reindex.js";
import { pin, rematch, split } from "../matching/operator.js";
import { RequestError } from "../errors.js";
import { shippedMatchSettings } from "../matching/settings.js";
import { anyWordQuery, understand } from "../search/understand.js";
import { brandNames, priceCurrencies } from "../search/browse.js";
import { brandIndex } from "../search/interpret.js";
import { readVocabulary } from "../search/vocabulary.js";
import { loadRules, RULES_FILES, RulesError } from "../search/rules/index.js";
import { formatQueryReport, queryReport } from "../search/rules/report.js";
import { createProgress, type Progress } from "./progress.js";
import { fileSink, OutputError, type Sink, streamSink } from "./sink.js";

export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Where the CLI prints; `stdout`, when given, is what an export streams to, at the pace it drains. */
export type Out = { log: (line: string) => void; err: (line: string) => void; stdout?: Writable };

type Flags = ReturnType<typeof parseArguments>["values"];

interface Invocation {
  /** Positional arguments after the command's name. */
  args: string[];
  flags: Flags;
  config: Config;
  out: Out;
}

interface Command {
  /** Lines of the usage text: `[synopsis, what it does]`. */
  usage: [string, string][];
  run(invocation: Invocation): Promise<number>;
}

/** Runs `work` on a root for the CLI and closes what it built, whatever happens. */
/** Once, after an upgrade: a catalog stored before converted to half-precision vectors (db/halfvec.ts). */
function vectorProgress(): MigrationProgress {
  let progress: ReturnType<typeof createProgress> | undefined;
  return {
    onProgress: (done, total) => {
      progress ??= createProgress(total, "converting the vectors to half precision");
      progress.update(done, "products");
    },
    onIndexing: (rows) => {
      progress?.finish();
      process.stderr.write(`building the index of ${rows} half-precision vectors…\n`);
    },
  };
}

async function withRoot<T>(config: Config, work: (root: Root) => Promise<T>): Promise<T> {
  const root = createRoot(config, { role: "cli", migrationProgress: vectorProgress() });
  try {
    return await work(root);
  } finally {
    await root.close();
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
function pageOptions(flags: Flags): PageUrlOptions {
  return { ...(flags.url ? { url: flags.url } : {}), ...(flags.urls ? { urlsFile: flags.urls } : {}) };
}

/** `catalog import --bulk`: the load's later phases said on stderr, each ending the progress line before it. */
function bulkLoad(database: DatabaseHandle, phase: () => Progress, next: (progress: Progress) => void): BulkLoad {
  let matching: Progress | undefined;
  return {
    longStatements: (work) => database.longStatements(work),
    onIndexing: (names) => {
      phase().finish();
      next({ update: () => undefined, finish: () => undefined });
      process.stderr.write(`building the indexes the load put off (${names.join(", ")})…\n`);
    },
    onMatching: (done, total) => {
      if (!matching) {
        phase().finish();
        matching = createProgress(total, "matching");
        next(matching);
      }
      matching.update(done, "products");
    },
  };
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

/** `30m`, `6h`, `7d`, `90s`: a duration in milliseconds. */
export function parseDuration(value: string, flag: string): number {
  const match = /^(\d{1,9})(s|m|h|d)$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a whole number with a unit, s, m, h or d (e.g. 6h, 7d)`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "s" | "m" | "h" | "d"];
  return Number(match[1]) * unit;
}

/** Non-empty lines of a URL list, `#` comments left out. */
async function* urlLines(path: string): AsyncGenerator<Target> {
  for await (const line of createInterface({ input: createReadStream(path), crlfDelay: Infinity })) {
    const url = line.trim();
    if (url && !url.startsWith("#")) yield { url };
  }
}

/** Builds what a crawl needs from the root and the configuration, runs it, and reports as import does. */
async function crawlCommand(
  config: Config,
  flags: Flags,
  out: Out,
  label: string,
  work: (deps: CrawlDeps, progress: ReturnType<typeof createProgress>) => Promise<CrawlSummary>,
): Promise<number> {
  return withRoot(config, async (root) => {
    const [database, embedder] = await Promise.all([root.database(), root.embedder()]);
    await checkEmbeddingModel(database.db, embedder);
    const fetcher = createFetcher(fetchSettings(config));
    const progress = createProgress(null, label);
    try {
      const summary = await work(
        { db: database.db, embedder, fetcher, limits: importLimits(config), concurrency: config.FETCH_CONCURRENCY },
        progress,
      );
      progress.finish();
      for (const failure of summary.failures) out.err(`${failure.source}: ${failure.reason}`);
      if (flags.report) writeFileSync(flags.report, summary.failures.map((failure) => `${JSON.stringify(failure)}\n`).join(""));
      out.log(
        `imported ${summary.imported}, updated ${summary.updated}, unchanged ${summary.unchanged}, not modified ${summary.notModified}, ` +
          `gone ${summary.gone}, skipped ${summary.skipped}, failed ${summary.failed}`,
      );
      return summary.failed > 0 ? 1 : 0;
    } finally {
      fetcher.close();
    }
  });
}

/** `--format`: one of the feed formats, or undefined (each file's own, detected). */
function feedFormat(value: string | undefined): FeedFormat | undefined {
  if (value === undefined || isFeedFormat(value)) return value;
  throw new UsageError(`--format must be one of ${FEED_FORMATS.join(", ")}; got ${JSON.stringify(value)}`);
}

/** `catalog export`: the options checked before anything is opened, then the feed streamed to stdout or `--out`. */
async function exportCommand({ args, flags, config, out }: Invocation): Promise<number> {
  if (args.length > 0) throw new UsageError(`export takes no PATH (got ${args[0]}); write to a file with --out FILE`);
  const format = feedFormat(flags.format);
  if (format === undefined) throw new UsageError(`export needs --format ${FEED_FORMATS.join("|")}`);
  const host = flags["brand-url"] === undefined ? undefined : brandHost(flags["brand-url"]);
  if (host === null) throw new UsageError("--brand-url must be a site's URL or host, such as https://shop.example or shop.example");
  const since = flags.since === undefined ? undefined : ChangeCursorSchema.safeParse(flags.since);
  if (since && !since.success)
    throw new UsageError("--since must be a change-feed cursor: the digits of a next_cursor (GET /products/changes, or a previous export)");
  let sink: Sink;
  try {
    sink =
      flags.out !== undefined
        ? await fileSink(flags.out)
        : out.stdout
          ? streamSink(out.stdout, "stdout", false)
          : { write: out.log, close: async () => undefined };
  } catch (error) {
    if (!(error instanceof OutputError)) throw error;
    out.err(error.message);
    return 1;
  }
  return withRoot(config, async (root) => {
    const { db } = await root.database();
    let summary: ExportSummary;
    try {
      const options = { format, ...(host ? { brandHost: host } : {}), ...(since ? { since: Number(since.data) } : {}) };
      // Closed whatever happens: a file's lines so far are kept (a failed write is said by close too).
      summary = await exportFeed(db, options, (line) => sink.write(line)).finally(() => sink.close());
    } catch (error) {
      if (!(error instanceof CursorAheadError || error instanceof OutputError)) throw error;
      out.err(error instanceof CursorAheadError ? `--since: ${error.message}` : error.message);
      return 1;
    }
    for (const { id, reason } of summary.skipped) out.err(`${id}: skipped: ${reason}`);
    if (summary.gone > 0)
      out.err(`${summary.gone} gone since cursor ${flags.since}: not in the feed (a product feed cannot say so; the change feed lists them)`);
    out.err(
      `exported ${summary.exported} as ${format}, skipped ${summary.skipped.length}; next cursor ${summary.nextCursor} (export --since ${summary.nextCursor} for what changes after)`,
    );
    return 0;
  });
}

const keyCommands: Record<string, (invocation: Invocation, root: Root) => Promise<number>> = {
  async issue({ flags, out }, root) {
    if (!flags.name) throw new UsageError("keys issue needs --name NAME");
    const environment = flags.env ?? "dev";
    if (environment !== "dev" && environment !== "prod") throw new UsageError("--env must be dev or prod");
    const expiresInDays = positiveNumber(flags["expires-in"], "--expires-in");
    const rateLimit = flags["rate-limit"];
    if (rateLimit !== undefined && !/^[1-9][0-9]{0,6}$/.test(rateLimit)) {
      throw new UsageError("--rate-limit must be a whole number of units per minute, 1 to 9999999");
    }
    const { keys } = await root.base();
    const { key, record } = await keys.issue({
      name: flags.name,
      environment,
      ...(expiresInDays === undefined ? {} : { expiresInDays }),
      ...(rateLimit === undefined ? {} : { rateLimitPerMinute: Number(rateLimit) }),
    });
    const limit = record.rateLimitPerMinute === null ? "" : `, ${record.rateLimitPerMinute} units/minute`;
    const expiry = record.expiresAt ? `, expires ${record.expiresAt.toISOString()}` : "";
    out.err(`Issued ${record.id} (${record.name}, ${record.environment}${limit}${expiry}). The key is shown only once:`);
    out.log(key);
    return 0;
  },
  async list({ out }, root) {
    const { keys } = await root.base();
    const now = new Date();
    out.log(["id", "name", "env", "start", "state", "created", "last used", "expires", "revoked"].join("\t"));
    for (const key of await keys.list()) out.log(describeKey(key, now));
    return 0;
  },
  async revoke({ args, out }, root) {
    const target = args[0];
    if (!target) throw new UsageError("keys revoke needs a key id or the key");
    const revoked = await (await root.base()).keys.revoke(target);
    if (!revoked) {
      out.err(`No key ${target.startsWith("pcl_") ? "matches that key" : `with id ${target}`}.`);
      return 1;
    }
    out.log(`Revoked ${revoked.id} (${revoked.name}). Running servers refuse it within about a second.`);
    return 0;
  },
  async rotate({ args, flags, out }, root) {
    const target = args[0];
    if (!target) throw new UsageError("keys rotate needs a key id");
    const graceDays = positiveNumber(flags["grace-days"], "--grace-days") ?? 7;
    const rotated = await (await root.base()).keys.rotate(target, graceDays);
    if (!rotated) {
      out.err(`No key with id ${target}.`);
      return 1;
    }
    out.err(`Issued ${rotated.record.id} to replace ${target}, which keeps working for ${graceDays} day(s). The new key is shown only once:`);
    out.log(rotated.key);
    return 0;
  },
};

const COMMANDS: Record<string, Command> = {
  keys: {
    usage: [
      [
        "keys issue --name NAME [--env dev|prod] [--expires-in DAYS] [--rate-limit N]",
        "issue a key (printed once, last line); N: units per minute for this key, else RATE_LIMIT_PER_MINUTE",
      ],
      ["keys list", "list keys (never prints keys)"],
      ["keys revoke ID_OR_KEY", "revoke a key"],
      ["keys rotate ID [--grace-days N]", "issue a successor; the old key works N more days (default 7)"],
    ],
    run: async (invocation) => {
      const [sub, ...args] = invocation.args;
      const command = sub === undefined ? undefined : keyCommands[sub];
      if (!command) throw new UsageError(`unknown keys command ${sub ?? "(none)"}; try ${Object.keys(keyCommands).join(", ")}`);
      return withRoot(invocation.config, (root) => command({ ...invocation, args }, root));
    },
  },
  import: {
    usage: [
      [
        "import PATH... [--format acp|ucp|ndjson] [--url URL | --urls FILE] [--report FILE] [--bulk]",
        "import NDJSON records, ACP or UCP product feeds (JSON Lines; the format of each file is detected unless --format says) and saved PDP pages (.html, .htm, .html.gz, directories searched recursively); --report writes failures as NDJSON; --bulk: a load into an empty or much smaller catalog, its search indexes built after it (docs/operations.md)",
      ],
    ],
    run: async ({ args: paths, flags, config, out }) => {
      if (paths.length === 0) throw new UsageError("import needs at least one PATH");
      const format = feedFormat(flags.format);
      const pages = pageOptions(flags);
      const total = await countLines(paths);
      return withRoot(config, async (root) => {
        const [database, embedder] = await Promise.all([root.database(), root.embedder()]);
        await checkEmbeddingModel(database.db, embedder);
        const progress = createProgress(total, "importing");
        let phase = progress;
        const summary = await importRecords({ db: database.db, embedder }, importLines(paths, pages, importLimits(config), format), {
          // `unchanged` is what a resumed import finds already in: skipped, neither embedded nor written.
          onProgress: (s) => progress.update(s.imported + s.updated + s.unchanged + s.failed, `(${s.unchanged} unchanged, ${s.failed} failed)`),
          ...(flags.bulk
            ? {
                bulk: bulkLoad(
                  database,
                  () => phase,
                  (next) => (phase = next),
                ),
              }
            : {}),
        });
        phase.finish();
        // A saved page is a file, line 0: it is named by its path alone.
        const at = (source: string, line: number) => `${source}${line > 0 ? `:${line}` : ""}`;
        for (const failure of summary.failures) out.err(`${at(failure.source, failure.line)}: ${failure.reason}`);
        for (const { source, line, id, replacedBy } of summary.replaced) {
          const by = replacedBy.source === source ? `line ${replacedBy.line}` : at(replacedBy.source, replacedBy.line);
          out.err(`${at(source, line)}: replaced by ${by}, the same product (${id}); only the later one is kept`);
        }
        if (flags.report) writeFileSync(flags.report, summary.failures.map((failure) => `${JSON.stringify(failure)}\n`).join(""));
        // `replaced` only when there were some: the line scripts already read stays as it was.
        const replaced = summary.replaced.length > 0 ? `, replaced ${summary.replaced.length}` : "";
        out.log(`imported ${summary.imported}, updated ${summary.updated}, unchanged ${summary.unchanged}, failed ${summary.failed}${replaced}`);
        return summary.failed > 0 ? 1 : 0;
      });
    },
  },
  export: {
    usage: [
      [
        "export --format acp|ucp|ndjson [--brand-url URL] [--since CURSOR] [--out FILE]",
        "write the catalog as a feed, one product a line, to stdout or FILE; --brand-url: one merchant's; --since: what changed after a change-feed cursor",
      ],
    ],
    run: exportCommand,
  },
  fetch: {
    usage: [
      [
        "fetch URL... | --urls FILE | --sitemap URL [--report FILE]",
        "fetch product pages over HTTP(S) (robots.txt, politeness, FETCH_* settings) and import them; FILE: one URL a line",
      ],
    ],
    run: async ({ args: urls, flags, config, out }) => {
      const sources = [urls.length > 0, flags.urls !== undefined, flags.sitemap !== undefined].filter(Boolean).length;
      if (sources !== 1) throw new UsageError("fetch needs exactly one of: URLs, --urls FILE, --sitemap URL");
      if (flags.urls)
        await access(flags.urls).catch(() => {
          throw new UsageError(`--urls ${flags.urls}: cannot read the file`);
        });
      return crawlCommand(config, flags, out, "fetching", (deps, progress) => {
        const onProgress = (s: CrawlSummary, done: number) => progress.update(done, `(${s.failed} failed)`);
        if (flags.sitemap) return fetchSitemap(deps, flags.sitemap, { onProgress });
        return fetchPages(deps, flags.urls ? urlLines(flags.urls) : urls.map((url) => ({ url })), { onProgress });
      });
    },
  },
  refresh: {
    usage: [
      [
        "refresh [--older-than DURATION] [--brand HOST] [--limit N]",
        "fetch again the products last checked before DURATION ago (default 1d; 30m, 6h, 7d), oldest first; resumable; --brand: products whose site or page host is HOST",
      ],
    ],
    run: async ({ flags, config, out }) => {
      const olderThan = parseDuration(flags["older-than"] ?? "1d", "--older-than");
      const limit = flags.limit;
      if (limit !== undefined && !/^[1-9]\d{0,8}$/.test(limit)) throw new UsageError("--limit must be a whole number from 1");
      const host = flags.brand === undefined ? undefined : brandHost(flags.brand);
      if (host === null) throw new UsageError("--brand must be a host such as shop.example");
      /** Products at --brand's host, when the run visits none of them: whether the host was wrong or they are fresh. */
      let atHost: number | undefined;
      const code = await crawlCommand(config, flags, out, "refreshing", async (deps, progress) => {
        let total: number | null = null;
        return refresh(deps, {
          before: new Date(Date.now() - olderThan),
          ...(host === undefined ? {} : { brandHost: host }),
          ...(limit === undefined ? {} : { limit: Number(limit) }),
          onTotal: (count, products) => {
            total = count;
            if (count === 0) atHost = products;
          },
          onProgress: (s, done) => progress.update(done, `of ${total ?? "?"} (${s.notModified} not modified, ${s.gone} gone, ${s.failed} failed)`),
        });
      });
      if (host === undefined || atHost === undefined) return code;
      if (atHost === 0) {
        // Most likely a mistyped host: said, and a failure, so a scheduled run does not pass for a refresh.
        out.err(`No product's site or page host is ${host} (--brand): nothing was refreshed.`);
        return 1;
      }
      out.err(`None of the ${atHost} products at ${host} was last checked before ${flags["older-than"] ?? "1d"} ago: nothing to refresh.`);
      return code;
    },
  },
  extract: {
    usage: [
      [
        "extract FILE... [--url URL | --urls FILE] [--explain]",
        "print the record extracted from each page, one NDJSON line each (stores nothing); --explain adds each field's layer, rule, confidence and every layer's value",
      ],
    ],
    run: async ({ args: paths, flags, config, out }) => {
      if (paths.length === 0) throw new UsageError("extract needs at least one FILE");
      let failed = 0;
      for await (const line of extractFiles(paths, pageOptions(flags), importLimits(config), flags.explain === true)) {
        if ("error" in line) failed++;
        out.log(JSON.stringify(line));
      }
      return failed > 0 ? 1 : 0;
    },
  },
  reindex: {
    usage: [["reindex", "re-embed the catalog with the configured EMBEDDINGS (resumable)"]],
    run: ({ config, out }) =>
      withRoot(config, async (root) => {
        // No model check here: re-embedding a catalog another model made is the point.
        const [database, embedder] = await Promise.all([root.database(), root.embedder()]);
        const progress = createProgress(null, `re-embedding with ${embedder.model}`);
        const { reembedded } = await reindex({ db: database.db, embedder }, { onProgress: (done, total) => progress.update(done, `of ${total}`) });
        progress.finish();
        out.log(`re-embedded ${reembedded} products with ${embedder.model}`);
        return 0;
      }),
  },
  rematch: {
    usage: [["rematch", "match again the products matched with other settings than server/matching/settings.json's (resumable)"]],
    run: ({ config, out }) =>
      withRoot(config, async (root) => {
        const database = await root.database();
        const progress = createProgress(null, "matching");
        const { rematched } = await rematch(database.db, shippedMatchSettings(), {
          onProgress: (done, total) => progress.update(done, `of ${total}`),
        });
        progress.finish();
        out.log(`matched ${rematched} products`);
        return 0;
      }),
  },
  match: {
    usage: [
      ["match pin A B", "keep product B in the group of product A, in every later matching too"],
      ["match split A", "take product A out of its group, in every later matching too"],
    ],
    run: ({ args, config, out }) => {
      const [sub, a, b, ...rest] = args;
      const valid = rest.length === 0 && a !== undefined && ((sub === "pin" && b !== undefined) || (sub === "split" && b === undefined));
      if (!valid) throw new UsageError("match needs pin A B or split A (product ids)");
      return withRoot(config, async (root) => {
        const { db } = await root.database();
        try {
          const { groupId } = sub === "pin" ? await pin(db, a, b!) : await split(db, a);
          out.log(sub === "pin" ? `${b} pinned to ${a}: group ${groupId}` : `${a} split out: group ${groupId}`);
          return 0;
        } catch (error) {
          if (!(error instanceof RequestError)) throw error;
          out.err(error.message);
          return 1;
        }
      });
    },
  },
  synonyms: {
    usage: [['synonyms test "QUERY"', "show what the synonyms (built-in, SYNONYMS_FILE) add to a query's words"]],
    run: async ({ args, config, out }) => {
      const [sub, ...words] = args;
      if (sub !== "test" || words.length === 0) throw new UsageError('synonyms needs test "QUERY"');
      const query = words.join(" ");
      // Reads and checks the files as a start does: a mistake is reported with its line.
      const synonyms = await createRoot(config, { role: "cli" }).synonyms();
      const sources = [config.SYNONYMS_BUILTIN ? "built-in set" : null, config.SYNONYMS_FILE ?? null].filter(Boolean);
      out.log(`${synonyms.rules} rules (${sources.length > 0 ? sources.join(" + ") : "none: SYNONYMS_BUILTIN=false and no SYNONYMS_FILE"})`);
      const plan = understand(query, { vocabulary: null, synonyms });
      if (plan.synonyms.length === 0) out.log(`no synonym applies to "${query}"`);
      for (const { from, to } of plan.synonyms) {
        const replaced = !plan.forms.some((form) => form.kind === "typed" && plan.words.slice(form.start, form.end).join(" ") === from);
        out.log(`${from} ${replaced ? "=>" : "+"} ${to.join(", ")}`);
      }
      out.log(`searched as: ${anyWordQuery(plan) ?? "(nothing)"}`);
      return 0;
    },
  },
  rules: {
    usage: [
      ['rules test "QUERY" [--json]', "show what the analyser makes of a query with the rules in use (built-in, RULES_DIR, synonyms)"],
      ["rules check [DIR]", "check a rules folder (default RULES_DIR, else the built-in one): exits 1 naming each file and line wrong"],
    ],
    run: async ({ args, flags, config, out }) => {
      const [sub, ...rest] = args;
      if (sub === "check") return checkRulesCommand(rest[0] ?? config.RULES_DIR, out);
      if (sub !== "test" || rest.length === 0) throw new UsageError('rules needs test "QUERY" or check [DIR]');
      return withRoot(config, async (root) => {
        // Reads and installs the rules as a start does: a mistake is reported with its file and line.
        const synonyms = await root.synonyms();
        const { db } = await root.database();
        const [vocabulary, brands, currencies] = await Promise.all([readVocabulary(db), brandNames(db), priceCurrencies(db)]);
        const report = queryReport(rest.join(" "), { synonyms, vocabulary, brands: brandIndex(brands), currencies });
        if (flags.json) out.log(JSON.stringify(report, null, 2));
        else for (const line of formatQueryReport(report)) out.log(line);
        return 0;
      });
    },
  },
  migrate: {
    usage: [["migrate", "apply database migrations"]],
    run: ({ config, out }) =>
      withRoot(config, async (root) => {
        await root.database();
        out.log("migrations applied");
        return 0;
      }),
  },
  stats: {
    usage: [["stats", "products, brands, embedding model, keys"]],
    run: ({ config, out }) =>
      withRoot(config, async (root) => {
        const { catalog, keys } = await root.base();
        const stats = await catalog.stats();
        out.log(`products\t${stats.products}`);
        out.log(`brands\t${stats.brands}`);
        out.log(`gone\t${stats.gone}`);
        out.log(`embedding model\t${(await catalog.embeddingModels()).join(", ") || "-"}`);
        out.log(`keys\t${(await keys.list()).length} (${await keys.countUsable()} usable)`);
        return 0;
      }),
  },
  mcp: {
    usage: [["mcp", "serve the catalog to an agent over MCP on stdin/stdout (no key needed)"]],
    run: ({ config }) =>
      withRoot(config, async (root) => {
        await serveStdio(await root.services(), {
          logLevel: config.LOG_LEVEL,
          answers: { maxBytes: config.ANSWER_MAX_BYTES, bytesPerUnit: config.ANSWER_BYTES_PER_UNIT },
        });
        return 0;
      }),
  },
};

/** `rules check`: the folder's files read, checked and merged with the built-in rules as a start would. */
function checkRulesCommand(dir: string | undefined, out: Out): number {
  try {
    loadRules({ dir });
  } catch (error) {
    if (!(error instanceof RulesError)) throw error;
    out.err(error.message);
    return 1;
  }
  out.log(
    dir === undefined ? "the built-in rules are valid" : `${dir}: valid (${RULES_FILES.length} kinds of rules file known: ${RULES_FILES.join(", ")})`,
  );
  return 0;
}

const SYNOPSIS_WIDTH = 62;

export const USAGE = [
  "Usage: npm run -s catalog -- <command>",
  "",
  ...Object.values(COMMANDS).flatMap((command) => command.usage.map(([synopsis, what]) => `  ${synopsis.padEnd(SYNOPSIS_WIDTH)}  ${what}`)),
  "",
  "Honours DATA_DIR and DATABASE_URL; import and extract honour IMPORT_MAX_LINE_BYTES, IMPORT_MAX_PAGE_BYTES, IMPORT_MAX_STRIPPED_HTML_BYTES and EXTRACT_BUDGET_MS.",
].join("\n");

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
        json: { type: "boolean" },
        sitemap: { type: "string" },
        "older-than": { type: "string" },
        brand: { type: "string" },
        limit: { type: "string" },
        format: { type: "string" },
        out: { type: "string" },
        "brand-url": { type: "string" },
        since: { type: "string" },
        bulk: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function run(argv: readonly string[], env: Record<string, string | undefined>, out: Out): Promise<number> {
  const { values: flags, positionals } = parseArguments(argv);
  const [name, ...args] = positionals;
  if (flags.help || !name) {
    out.log(USAGE);
    return name || flags.help ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command ${name}`);
  try {
    return await command.run({ args, flags, config: loadConfig(env), out });
  } catch (error) {
    throw error instanceof ExtractInputError ? new UsageError(error.message) : error;
  }
}
