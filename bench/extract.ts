/**
 * Extraction benchmark on scrapinghub/product-extraction-benchmark (the 70
 * pages in ../shared/data/pdp/product-extraction-benchmark).
 *
 *   npx tsx bench/extract.ts            through `catalog extract` (the CLI) when it is wired, else in-process
 *   npx tsx bench/extract.ts --module   in-process (server/ingest/extract/cli.ts extractFiles: what the CLI calls)
 *   npx tsx bench/extract.ts --cli      force the CLI: npx tsx server/cli/catalog.ts extract --urls SIDECAR FILE…
 *   add --errors to list every miss
 *
 * Scoring follows the benchmark's evaluate.py: one predicted value per page,
 * ground truth lists every accepted value; a missing prediction where truth
 * exists is a false negative, a wrong one is both a false positive and a false
 * negative. Per attribute:
 *   price         compared as decimals (`119.010` = `119.01`)
 *   availability  InStock/OutOfStock; OutOfStock, SoldOut and Discontinued count as OutOfStock, any
 *                 other stated value as InStock, and an empty one is filled with InStock (the
 *                 benchmark did the same for Zyte and extruct)
 *   sku, gtin, mpn  exact string match
 *   brand         exact after trimming and case-folding (evaluate.py does not score brand)
 *   currency      truth is what the page shows (`€`, `$`, `Rs`, `EUR`); our ISO 4217 code matches when the
 *                 truth's symbol can denote it (`$` → USD, CAD, AUD, …) (evaluate.py does not score currency)
 * The page's URL from ground truth is passed as the operator's URL (a `--urls` sidecar): it is input,
 * used only when a page states no URL of its own, never an answer that is scored.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { z } from "zod";
import { type ExtractLine, extractFiles } from "../server/ingest/extract/cli.js";
import { decodePage, extractProduct } from "../server/ingest/extract/index.js";
import { toCurrencyCode } from "../server/ingest/extract/price.js";
import { loadConfig } from "../server/config.js";
import { importLimits } from "../server/ingest/limits.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DATASET = resolve(ROOT, "../shared/data/pdp/product-extraction-benchmark");

const TruthSchema = z.record(
  z.string(),
  z.object({
    url: z.string(),
    price: z.array(z.string()).optional(),
    currency: z.array(z.string()).optional(),
    availability: z.array(z.string()).optional(),
    sku: z.array(z.string()).optional(),
    brand: z.array(z.string()).optional(),
    gtin: z.array(z.string()).optional(),
    mpn: z.array(z.string()).optional(),
  }),
);
type Truth = z.infer<typeof TruthSchema>[string];

const ATTRIBUTES = ["price", "currency", "availability", "sku", "brand", "gtin", "mpn"] as const;
type Attribute = (typeof ATTRIBUTES)[number];

/** Published F1 on the full 140-page benchmark (README of scrapinghub/product-extraction-benchmark). */
const PUBLISHED: Partial<Record<Attribute, { zyte: number; diffbot: number }>> = {
  price: { zyte: 0.918, diffbot: 0.824 },
  sku: { zyte: 0.841, diffbot: 0.765 },
  availability: { zyte: 0.957, diffbot: 0.943 },
};

/** What a symbol on a page may stand for. */
const AMBIGUOUS: Record<string, string[]> = {
  $: ["USD", "CAD", "AUD", "NZD", "MXN", "ARS", "SGD", "HKD", "TWD", "CLP", "COP"],
  rs: ["INR", "PKR", "LKR", "NPR"],
  kr: ["SEK", "NOK", "DKK", "ISK"],
  "¥": ["JPY", "CNY"],
};

type Runner = (files: string[], sidecar: string) => AsyncIterable<ExtractLine>;

/** In-process: the same generator `catalog extract` streams out. */
const moduleRunner: Runner = (files, sidecar) => extractFiles(files, { urlsFile: sidecar }, importLimits(loadConfig(process.env)));

/** Through the CLI: `catalog extract --urls SIDECAR FILE…`, NDJSON on stdout (BENCH_CLI_ENTRY replaces the entry script). */
const cliRunner: Runner = async function* (files, sidecar) {
  const entry = process.env.BENCH_CLI_ENTRY ?? join(ROOT, "server/cli/catalog.ts");
  const child = spawn(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), entry, "extract", "--urls", sidecar, ...files], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const text of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (text.trim() !== "") yield JSON.parse(text) as ExtractLine;
  }
  const code = await new Promise<number | null>((done) => child.on("close", done));
  if (code !== 0 && code !== 1) throw new Error(`catalog extract exited with ${code}`);
};

function cliIsWired(): boolean {
  const run = join(ROOT, "server/cli/run.ts");
  return existsSync(run) && /command === "extract"/.test(readFileSync(run, "utf8"));
}

function decimalKey(raw: string): string | null {
  const value = raw.trim();
  if (!/^\d*\.?\d*$/.test(value) || value === "" || value === ".") return null;
  const [whole = "", fraction = ""] = value.split(".");
  const w = whole.replace(/^0+/, "") || "0";
  const f = fraction.replace(/0+$/, "");
  return f ? `${w}.${f}` : w;
}

function currencyMatches(truth: string, predicted: string): boolean {
  const key = truth.trim().toLowerCase();
  if (AMBIGUOUS[key]?.includes(predicted)) return true;
  return toCurrencyCode(truth) === predicted;
}

function predicted(line: ExtractLine, attribute: Attribute): string | null {
  if (!("pdp" in line)) return attribute === "availability" ? "InStock" : null;
  const { pdp } = line;
  switch (attribute) {
    case "price":
      return pdp.offers?.price ?? null;
    case "currency":
      return pdp.offers?.currency ?? null;
    case "availability": {
      const value = pdp.offers?.availability ?? null;
      return value !== null && ["OutOfStock", "SoldOut", "Discontinued"].includes(value) ? "OutOfStock" : "InStock";
    }
    case "sku":
      return pdp.identifiers?.sku ?? null;
    case "gtin":
      return pdp.identifiers?.gtin ?? null;
    case "mpn":
      return pdp.identifiers?.mpn ?? null;
    case "brand":
      return pdp.brands[0] ?? null;
  }
}

function matches(attribute: Attribute, truth: string, prediction: string): boolean {
  switch (attribute) {
    case "price":
      return decimalKey(truth) !== null && decimalKey(truth) === decimalKey(prediction);
    case "currency":
      return currencyMatches(truth, prediction);
    case "brand":
      return truth.trim().toLowerCase() === prediction.trim().toLowerCase();
    default:
      return truth === prediction;
  }
}

interface Counts {
  tp: number;
  fp: number;
  fn: number;
  support: number;
}

function score(truth: Truth, line: ExtractLine, attribute: Attribute, counts: Counts): boolean {
  const accepted = truth[attribute] ?? [];
  if (accepted.length > 0) counts.support++;
  const prediction = predicted(line, attribute);
  if (prediction === null) {
    if (accepted.length > 0) {
      counts.fn++;
      return false;
    }
    return true;
  }
  if (accepted.some((value) => matches(attribute, value, prediction))) {
    counts.tp++;
    return true;
  }
  counts.fp++;
  if (accepted.length > 0) counts.fn++;
  return false;
}

/** evaluate.py's precision/recall: 1 when there is nothing to get wrong. */
function metrics({ tp, fp, fn }: Counts): { precision: number; recall: number; f1: number } {
  const precision = fp === 0 && fn === 0 ? 1 : tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = fp === 0 && fn === 0 ? 1 : tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

async function main(): Promise<number> {
  if (!existsSync(join(DATASET, "ground-truth.json"))) {
    console.log(`skipped: ${DATASET} is absent (the team's shared folder is expected beside the checkout, as ../shared)`);
    return 0;
  }
  const args = new Set(process.argv.slice(2));
  const useCli = args.has("--cli") || (!args.has("--module") && cliIsWired());
  const runner = useCli ? cliRunner : moduleRunner;
  const truth = TruthSchema.parse(JSON.parse(await readFile(join(DATASET, "ground-truth.json"), "utf8")));
  const files = readdirSync(join(DATASET, "html"))
    .filter((name) => name.endsWith(".html.gz"))
    .sort()
    .map((name) => join(DATASET, "html", name));

  const work = await mkdtemp(join(tmpdir(), "bench-extract-"));
  try {
    const sidecar = join(work, "urls.ndjson");
    await writeFile(sidecar, `${files.map((file) => JSON.stringify({ path: file, url: truth[pageId(file)]?.url ?? "" })).join("\n")}\n`);

    const started = performance.now();
    const lines: ExtractLine[] = [];
    for await (const line of runner(files, sidecar)) lines.push(line);
    const wall = (performance.now() - started) / 1000;

    const counts = Object.fromEntries(ATTRIBUTES.map((a) => [a, { tp: 0, fp: 0, fn: 0, support: 0 }])) as Record<Attribute, Counts>;
    const misses: string[] = [];
    for (const line of lines) {
      const id = pageId(line.source);
      const page = truth[id];
      if (!page) continue;
      for (const attribute of ATTRIBUTES) {
        if (!score(page, line, attribute, counts[attribute])) {
          misses.push(
            `${attribute}\t${id.slice(0, 10)}\ttruth=${JSON.stringify(page[attribute] ?? [])}\tgot=${JSON.stringify(predicted(line, attribute))}${"error" in line ? `\t${line.error}` : ""}`,
          );
        }
      }
    }

    // Throughput of extraction alone: pages already decoded, in this process.
    // One warm-up round (JIT), then the measured one.
    const pages = files.map((file) => decodePage(new Uint8Array(readFileSync(file))));
    let seconds = 0;
    for (let round = 0; round < 2; round++) {
      const t0 = performance.now();
      for (const html of pages) extractProduct(html, { url: "https://bench.example/" });
      seconds = (performance.now() - t0) / 1000;
    }

    console.log(
      `product-extraction-benchmark: ${lines.length} pages via ${useCli ? "`catalog extract` (CLI)" : "extractFiles (in-process; the CLI's generator)"}, ${lines.filter((l) => "error" in l).length} errors\n`,
    );
    console.log("| attribute | precision | recall | F1 | support | Zyte F1 | Diffbot F1 |");
    console.log("|---|---|---|---|---|---|---|");
    for (const attribute of ATTRIBUTES) {
      const m = metrics(counts[attribute]);
      const published = PUBLISHED[attribute];
      console.log(
        `| ${attribute} | ${m.precision.toFixed(3)} | ${m.recall.toFixed(3)} | ${m.f1.toFixed(3)} | ${counts[attribute].support} | ${published?.zyte.toFixed(3) ?? "–"} | ${published?.diffbot.toFixed(3) ?? "–"} |`,
      );
    }
    console.log(
      `\nthroughput: ${(pages.length / seconds).toFixed(1)} pages/s extraction alone (${((seconds * 1000) / pages.length).toFixed(1)} ms/page, ${(pages.reduce((n, p) => n + p.length, 0) / 1e6).toFixed(1)} MB of HTML); ${(lines.length / wall).toFixed(1)} pages/s end to end including reading and gunzip${useCli ? " and the CLI process" : ""}`,
    );
    console.log("published figures are on the full 140 pages; these are the 70 public ones");
    if (args.has("--errors")) console.log(`\nmisses:\n${misses.join("\n")}`);
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function pageId(path: string): string {
  return path.replace(/^.*[/\\]/, "").replace(/\.html?(\.gz)?$/, "");
}

process.exitCode = await main();
