/**
 * Extraction benchmark: quality on pages of sites the rules were not fitted to,
 * the parsers on the labelled strings, and throughput.
 *
 *   npm run bench:extract              everything below
 *   npm run bench:extract -- --errors  also list every cross-validated miss of the working part
 *   npm run bench:extract -- --quality only the page figures (no throughput, no string parsers)
 *   npm run bench:extract -- --working not the frozen part (while developing: the frozen part is scored once)
 *
 * Two parts (issue 51). The FROZEN part, bench/extract-frozen.json, is whole sites nobody reads while writing
 * rules or fitting weights: it is scored once, as pages of sites never seen (with the rules the working part
 * supports), and only its aggregate figures are printed. The WORKING part is every other labelled page: the
 * cross-validation below, the misses and the fitted weights (bench/fit-extract.ts) come from it alone.
 *
 * Quality. Every labelled page in ../shared/data/pdp (bench/extract-data.ts)
 * is extracted once with every rule on (the dev figure: what the product
 * does on the pages the rules were written against) and once per rule with
 * that rule off. Cross-validation leaves one site out at a time: a rule is
 * applied to the held-out site's pages only when, on the pages of all the
 * other sites, it costs no right answers and either gains some or its own
 * verdicts (the values it finds) are right more often than wrong; a rule only
 * its own site supports is off when that site is scored. The figure to
 * optimise is the cross-validated F1.
 *
 * Scoring follows the product-extraction-benchmark's evaluate.py: one predicted value per page,
 * ground truth lists every accepted value; a missing prediction where truth exists is a false
 * negative, a wrong one both a false positive and a false negative. Per attribute:
 *   price         compared as decimals (`119.010` = `119.01`)
 *   availability  InStock/OutOfStock; OutOfStock, SoldOut and Discontinued count as OutOfStock, any
 *                 other stated value as InStock, and an empty one is filled with InStock (the
 *                 benchmark did the same for Zyte and extruct)
 *   sku, gtin, mpn  exact string match
 *   brand         exact after trimming and case-folding
 *   currency      truth is what the page shows (`€`, `$`, `Rs`, `EUR`); our ISO 4217 code matches when the
 *                 truth's symbol can denote it (`$` → USD, CAD, AUD, …)
 * The page's URL from the labels is passed as the operator's URL: input used only when a page
 * states no URL of its own, never an answer that is scored.
 *
 * Throughput: extraction alone in this process against parsing alone (htmlparser2, the floor every
 * extraction pays) in the same run, in CPU time; and end to end through `catalog extract` (a process,
 * reading, gunzip and printing included), in wall time.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseGtin } from "../shared/gtin.js";
import type { ExtractLine } from "../server/ingest/extract/cli.js";
import { parsePage } from "../server/ingest/extract/dom.js";
import { type ExtractResult, extractFromPage, extractLayers } from "../server/ingest/extract/index.js";
import { currencyInText, parseAmount, sharedSymbolCurrencies, toCurrencyCode } from "../server/ingest/extract/price.js";
import { RULE_NAMES, type Rule, rulesWithout } from "../server/ingest/extract/rules.js";
import { brandFromElement } from "../server/ingest/extract/visible.js";
import {
  ATTRIBUTES,
  type Attribute,
  type LabelledPage,
  loadBrandValues,
  loadGtinCases,
  loadPages,
  loadPriceStrings,
  PRICE_DEV_SETS,
  readLabelledPage,
  SHARED,
  splitFrozen,
} from "./extract-data.js";

const ROOT = resolve(import.meta.dirname, "..");

/** Published F1 (README of scrapinghub/product-extraction-benchmark): on all 140 pages, and on the 70 kept aside (issue 17). */
const PUBLISHED: Partial<Record<Attribute, { zyte140: number; diffbot140: number; zyte70?: number; diffbot70?: number }>> = {
  price: { zyte140: 0.918, diffbot140: 0.824, zyte70: 0.91, diffbot70: 0.84 },
  sku: { zyte140: 0.841, diffbot140: 0.765, zyte70: 0.853, diffbot70: 0.791 },
  availability: { zyte140: 0.957, diffbot140: 0.943, zyte70: 0.957, diffbot70: 0.929 },
  brand: { zyte140: Number.NaN, diffbot140: Number.NaN, zyte70: 0.661 },
};

/** What a record predicts per attribute, and the confidence its provenance gives. */
type Prediction = Record<Attribute, { value: string | null; confidence?: number }>;

function predict(result: ExtractResult): Prediction {
  const empty = Object.fromEntries(ATTRIBUTES.map((attribute) => [attribute, { value: null }])) as Prediction;
  if (!result.ok) return empty;
  const { record } = result;
  const provenance = record.provenance;
  const availability = record.offers?.availability ?? null;
  return {
    price: { value: record.offers?.price ?? null, ...confidence(provenance.price) },
    currency: { value: record.offers?.currency ?? null, ...confidence(provenance.currency) },
    availability: { value: availability, ...confidence(provenance.availability) },
    sku: { value: record.identifiers?.sku ?? null, ...confidence(provenance.sku) },
    brand: { value: record.brands[0] ?? null, ...confidence(provenance.brand) },
    gtin: { value: record.identifiers?.gtin ?? null, ...confidence(provenance.gtin) },
    mpn: { value: record.identifiers?.mpn ?? null, ...confidence(provenance.mpn) },
  };
}

function confidence(field: { confidence: number } | undefined): { confidence?: number } {
  return field ? { confidence: field.confidence } : {};
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
  return toCurrencyCode(truth) === predicted || (sharedSymbolCurrencies(truth)?.includes(predicted) ?? false);
}

/** The scored form of a prediction: availability collapses to InStock/OutOfStock, an empty one to InStock. */
function scored(attribute: Attribute, value: string | null): string | null {
  if (attribute !== "availability") return value;
  return value !== null && ["OutOfStock", "SoldOut", "Discontinued"].includes(value) ? "OutOfStock" : "InStock";
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

const zero = (): Counts => ({ tp: 0, fp: 0, fn: 0, support: 0 });

/** Adds one page's attribute to the counts; true when the page got it right. */
function score(accepted: string[], attribute: Attribute, raw: string | null, counts?: Counts): boolean {
  const prediction = scored(attribute, raw);
  if (accepted.length > 0 && counts) counts.support++;
  if (prediction === null) {
    if (accepted.length > 0 && counts) counts.fn++;
    return accepted.length === 0;
  }
  if (accepted.some((value) => matches(attribute, value, prediction))) {
    if (counts) counts.tp++;
    return true;
  }
  if (counts) {
    counts.fp++;
    if (accepted.length > 0) counts.fn++;
  }
  return false;
}

/** evaluate.py's precision/recall: 1 when there is nothing to get wrong. */
function metrics({ tp, fp, fn }: Counts): { precision: number; recall: number; f1: number } {
  const precision = fp === 0 && fn === 0 ? 1 : tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = fp === 0 && fn === 0 ? 1 : tp + fn === 0 ? 0 : tp / (tp + fn);
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** Answers a page gets right over its labelled attributes. */
function rightAnswers(page: LabelledPage, prediction: Prediction): number {
  let right = 0;
  for (const attribute of ATTRIBUTES) {
    const accepted = page.truth[attribute];
    if (accepted && score(accepted, attribute, prediction[attribute].value)) right++;
  }
  return right;
}

function table(pages: LabelledPage[], predictions: Prediction[]): Record<Attribute, Counts> {
  const counts = Object.fromEntries(ATTRIBUTES.map((attribute) => [attribute, zero()])) as Record<Attribute, Counts>;
  pages.forEach((page, index) => {
    for (const attribute of ATTRIBUTES) {
      const accepted = page.truth[attribute];
      if (accepted) score(accepted, attribute, predictions[index]![attribute].value, counts[attribute]);
    }
  });
  return counts;
}

const f3 = (value: number) => (Number.isNaN(value) ? "–" : value.toFixed(3));

/** Cross-validates on the working part; returns the rules its pages do not support, off for pages of sites never seen. */
async function crossValidate(pages: LabelledPage[], errors: boolean): Promise<Rule[]> {
  // One parse per page; every rule set extracts from it.
  const base: Prediction[] = [];
  const without = new Map<Rule, Prediction[]>(RULE_NAMES.map((rule) => [rule, []]));
  const started = performance.now();
  // Each rule's own verdicts (a layer's value the rule found, or a record field it decided), right or wrong, per page.
  const verdicts = new Map<Rule, { page: number; right: boolean }[]>(RULE_NAMES.map((rule) => [rule, []]));
  for (const [index, page] of pages.entries()) {
    const parsed = parsePage(readLabelledPage(page));
    const result = extractFromPage(parsed, { url: page.url });
    base.push(predict(result));
    for (const rule of RULE_NAMES) without.get(rule)!.push(predict(extractFromPage(parsed, { url: page.url, rules: rulesWithout([rule]) })));
    const verdict = (how: string | undefined, attribute: Attribute, value: string | undefined) => {
      const accepted = page.truth[attribute];
      if (how && accepted && value !== undefined && verdicts.has(how as Rule))
        verdicts.get(how as Rule)!.push({ page: index, right: score(accepted, attribute, value) });
    };
    for (const layer of extractLayers(parsed, { url: page.url }).layers) {
      for (const [field, attribute, value] of [
        ["price", "price", layer.price],
        ["availability", "availability", layer.availability],
        ["sku", "sku", layer.sku],
        ["brand", "brand", layer.brands?.[0]],
        ["gtin", "gtin", layer.gtin],
        ["mpn", "mpn", layer.mpn],
      ] as const)
        verdict(layer.how?.[field], attribute, value);
    }
    if (result.ok) {
      verdict(result.record.provenance.sku?.rule, "sku", result.record.identifiers?.sku ?? undefined);
      verdict(result.record.provenance.availability?.rule, "availability", result.record.offers?.availability ?? undefined);
    }
  }

  // A rule's effect on each page: answers right with it minus answers right without it.
  const effect = new Map<Rule, number[]>();
  for (const rule of RULE_NAMES)
    effect.set(
      rule,
      pages.map((page, index) => rightAnswers(page, base[index]!) - rightAnswers(page, without.get(rule)![index]!)),
    );

  /**
   * A rule is supported by pages outside `site` when, on them, it never costs right answers overall and
   * either gains some or its own verdicts are right more often than wrong (a fallback whose verdicts are
   * right but which other layers made redundant there still counts as shown to work there).
   */
  const supported = (rule: Rule, site: string | undefined) => {
    const gained = effect.get(rule)!.reduce((sum, delta, index) => sum + (pages[index]!.site === site ? 0 : delta), 0);
    const judged = verdicts.get(rule)!.reduce((sum, { page, right }) => sum + (pages[page]!.site === site ? 0 : right ? 1 : -1), 0);
    return gained >= 0 && (gained > 0 || judged > 0);
  };

  const sites = [...new Set(pages.map((page) => page.site))].sort();
  const enabledIn = new Map<Rule, number>(RULE_NAMES.map((rule) => [rule, 0]));
  const folded: Prediction[] = new Array(pages.length);
  for (const site of sites) {
    const off = RULE_NAMES.filter((rule) => !supported(rule, site));
    for (const rule of RULE_NAMES) if (!off.includes(rule)) enabledIn.set(rule, enabledIn.get(rule)! + 1);
    const rules = rulesWithout(off);
    pages.forEach((page, index) => {
      if (page.site === site) folded[index] = predict(extractFromPage(parsePage(readLabelledPage(page)), { url: page.url, rules }));
    });
  }
  const seconds = (performance.now() - started) / 1000;

  const benchmarkOnly = pages.map((page, index) => ({ page, index })).filter(({ page }) => page.dataset === "benchmark");
  const cvAll = table(pages, folded);
  const devAll = table(pages, base);
  const cvBench = table(
    benchmarkOnly.map(({ page }) => page),
    benchmarkOnly.map(({ index }) => folded[index]!),
  );
  const devBench = table(
    benchmarkOnly.map(({ page }) => page),
    benchmarkOnly.map(({ index }) => base[index]!),
  );

  const datasets = ["benchmark", "fathom", "extruct"].map((name) => `${pages.filter((page) => page.dataset === name).length} ${name}`).join(", ");
  console.log(
    `## Quality, WORKING part: ${pages.length} labelled pages (${datasets}) from ${sites.length} sites, leave-one-site-out (the pages rules and weights are developed on)\n`,
  );
  console.log(
    "| attribute | CV precision | CV recall | CV F1 | dev F1 | support | CV F1 (benchmark pages) | dev F1 (benchmark pages) | Zyte F1 (70 aside) | Diffbot F1 (70 aside) | Zyte F1 (140) | Diffbot F1 (140) |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const attribute of ATTRIBUTES) {
    const cv = metrics(cvAll[attribute]);
    const published = PUBLISHED[attribute];
    console.log(
      `| ${attribute} | ${f3(cv.precision)} | ${f3(cv.recall)} | **${f3(cv.f1)}** | ${f3(metrics(devAll[attribute]).f1)} | ${cvAll[attribute].support} | ${f3(metrics(cvBench[attribute]).f1)} | ${f3(metrics(devBench[attribute]).f1)} | ${f3(published?.zyte70 ?? Number.NaN)} | ${f3(published?.diffbot70 ?? Number.NaN)} | ${f3(published?.zyte140 ?? Number.NaN)} | ${f3(published?.diffbot140 ?? Number.NaN)} |`,
    );
  }
  console.log(`\n(${RULE_NAMES.length + 2} extractions a page in ${seconds.toFixed(0)} s)\n`);

  console.log("## Rules: answers right with the rule minus without it, over all labelled pages\n");
  console.log(
    "| rule | net | pages helped | pages hurt | sites helped | verdicts right | verdicts wrong | sites with right verdicts | on in folds |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const rule of RULE_NAMES) {
    const deltas = effect.get(rule)!;
    const helpedSites = new Set(pages.filter((_, index) => deltas[index]! > 0).map((page) => page.site));
    const judged = verdicts.get(rule)!;
    const rightSites = new Set(judged.filter(({ right }) => right).map(({ page }) => pages[page]!.site));
    console.log(
      `| ${rule} | ${deltas.reduce((a, b) => a + b, 0)} | ${deltas.filter((d) => d > 0).length} | ${deltas.filter((d) => d < 0).length} | ${helpedSites.size} | ${judged.filter(({ right }) => right).length} | ${judged.filter(({ right }) => !right).length} | ${rightSites.size} | ${enabledIn.get(rule)}/${sites.length} |`,
    );
  }

  console.log("\n## Confidence: how often a cross-validated field was right, by the confidence it carried\n");
  console.log("| attribute | ≥ 0.8 | 0.5 – 0.8 | < 0.5 |");
  console.log("|---|---|---|---|");
  for (const attribute of ["price", "currency", "availability", "sku", "brand"] as const) {
    const buckets = [
      [0, 0],
      [0, 0],
      [0, 0],
    ];
    pages.forEach((page, index) => {
      const accepted = page.truth[attribute];
      const { value, confidence } = folded[index]![attribute];
      if (!accepted || value === null || confidence === undefined) return;
      const bucket = confidence >= 0.8 ? 0 : confidence >= 0.5 ? 1 : 2;
      buckets[bucket]![1]!++;
      if (score(accepted, attribute, value)) buckets[bucket]![0]!++;
    });
    console.log(`| ${attribute} | ${buckets.map(([right, all]) => (all ? `${right}/${all} (${f3(right! / all!)})` : "–")).join(" | ")} |`);
  }

  if (errors) {
    console.log("\n## Cross-validated misses (working part only; the frozen part's are never printed)\n");
    pages.forEach((page, index) => {
      for (const attribute of ATTRIBUTES) {
        const accepted = page.truth[attribute];
        const got = folded[index]![attribute].value;
        if (accepted && !score(accepted, attribute, got))
          console.log(`${attribute}\t${page.id}\t${page.site}\ttruth=${JSON.stringify(accepted)}\tgot=${JSON.stringify(got)}`);
      }
    });
  }
  return RULE_NAMES.filter((rule) => !supported(rule, undefined));
}

/**
 * The frozen part, scored as pages of sites never seen: with the rules the whole working part supports. Aggregate
 * figures only — printing a frozen page's misses would unfreeze it.
 */
function frozenPart(pages: LabelledPage[], off: Rule[]): void {
  if (pages.length === 0) return;
  const rules = rulesWithout(off);
  const predictions = pages.map((page) => predict(extractFromPage(parsePage(readLabelledPage(page)), { url: page.url, rules })));
  const counts = table(pages, predictions);
  const sites = new Set(pages.map((page) => page.site)).size;
  console.log(
    `\n## Quality, FROZEN part: ${pages.length} labelled pages from ${sites} sites (bench/extract-frozen.json), never read; the figure to report\n`,
  );
  console.log(`Rules off (not supported by the working part): ${off.length ? off.join(", ") : "none"}\n`);
  console.log("| attribute | precision | recall | **F1** | support |");
  console.log("|---|---|---|---|---|");
  for (const attribute of ATTRIBUTES) {
    const { precision, recall, f1 } = metrics(counts[attribute]);
    console.log(`| ${attribute} | ${f3(precision)} | ${f3(recall)} | **${f3(f1)}** | ${counts[attribute].support} |`);
  }
}

function priceStrings(): void {
  const rows = loadPriceStrings();
  if (rows.length === 0) return;
  const bySet = new Map<string, { amount: number; currency: number; currencyRows: number; rows: number }>();
  for (const row of rows) {
    const text = row.price_raw ?? "";
    const hint = row.currency_raw ?? "";
    const currency = currencyInText(text) ?? toCurrencyCode(hint) ?? currencyInText(hint);
    const amount = parseAmount(text, currency);
    const entry = bySet.get(row.set) ?? { amount: 0, currency: 0, currencyRows: 0, rows: 0 };
    entry.rows++;
    if (amount === null ? row.amount === null : row.amount !== null && decimalKey(row.amount) === decimalKey(amount)) entry.amount++;
    // Currencies upstream names by a symbol no ISO code matches (`Lei`, `руб.` spelled otherwise) are left out.
    const expected = row.currency === null ? null : (toCurrencyCode(row.currency) ?? sharedSymbolCurrencies(row.currency)?.[0] ?? undefined);
    if (expected !== undefined) {
      entry.currencyRows++;
      if (expected === null ? currency === null : currency !== null && currencyMatches(row.currency!, currency)) entry.currency++;
    }
    bySet.set(row.set, entry);
  }
  const line = (label: string, names: string[]) => {
    const sum = names.reduce(
      (acc, name) => {
        const entry = bySet.get(name);
        return entry
          ? {
              amount: acc.amount + entry.amount,
              currency: acc.currency + entry.currency,
              currencyRows: acc.currencyRows + entry.currencyRows,
              rows: acc.rows + entry.rows,
            }
          : acc;
      },
      { amount: 0, currency: 0, currencyRows: 0, rows: 0 },
    );
    console.log(
      `| ${label} | ${names.join(", ")} | ${sum.rows} | ${sum.amount}/${sum.rows} (${f3(sum.amount / sum.rows)}) | ${sum.currency}/${sum.currencyRows} (${f3(sum.currency / sum.currencyRows)}) |`,
    );
  };
  const sets = [...bySet.keys()].sort();
  const xfail = sets.filter((name) => name.includes("xfail"));
  const unseen = sets.filter((name) => !PRICE_DEV_SETS.has(name) && !xfail.includes(name));
  console.log("\n## Price parser on scrapinghub/price-parser's strings (amount; currency where an ISO code can be named)\n");
  console.log("| lists | sets | strings | amount right | currency right |");
  console.log("|---|---|---|---|---|");
  line(
    "developed on",
    sets.filter((name) => PRICE_DEV_SETS.has(name)),
  );
  line("**unseen**", unseen);
  line("unseen, upstream fails these too", xfail);
}

function brandStrings(): void {
  const values = loadBrandValues();
  if (values.length === 0) return;
  const halves = [
    { label: "developed on (even)", right: 0, rows: 0 },
    { label: "**unseen (odd)**", right: 0, rows: 0 },
  ];
  values.forEach(({ html, value }, index) => {
    const page = parsePage(`<body>${html}</body>`);
    const body = page.byTag("body")[0]!;
    const roots = body.children.filter((node) => node.type === "tag");
    const onlyText = body.children.every((node) => node.type !== "tag");
    // As zyte-parsers' test reads each snippet: the one element it is, else the text wrapped in one.
    const element =
      roots.length === 1 && !onlyText && body.children.filter((node) => node.type === "text" && node.data.trim()).length === 0 ? roots[0]! : body;
    const got = brandFromElement(element as typeof body) ?? null;
    const half = halves[index % 2]!;
    half.rows++;
    if (got === value) half.right++;
  });
  console.log("\n## Brand element reader on zyte-parsers' brand elements (agreement with their label)\n");
  console.log("| half | elements | agreeing |");
  console.log("|---|---|---|");
  for (const half of halves) console.log(`| ${half.label} | ${half.rows} | ${half.right}/${half.rows} (${f3(half.right / half.rows)}) |`);
  console.log(
    "Their label is their reader's output, kept verbatim (`Brand: X`, `Bylt Logo`); ours drops labels and logo words, so part of the disagreement is by design.",
  );
}

function gtinStrings(): void {
  const cases = loadGtinCases();
  if (cases.length === 0) return;
  // Our kinds in zyte-parsers' names; ISBN-10, ISSN (not GTINs) are out of scope.
  const theirs: Record<string, string> = { gtin8: "gtin8", upca: "upc", ean13: "gtin13", isbn13: "isbn13", gtin14: "gtin14" };
  let right = 0;
  let scoredCases = 0;
  let outOfScope = 0;
  for (const { set, input, expected } of cases) {
    if (expected !== null && (["isbn10", "issn"].includes(expected) || (set === "gtin_ids" && ![8, 12, 13, 14].includes(expected.length)))) {
      outOfScope++;
      continue;
    }
    const result = parseGtin(input);
    let got: string | null = null;
    if (result.ok) got = set === "gtin_classification_cases" ? (result.digits.startsWith("9790") ? "ismn" : theirs[result.kind]!) : result.digits;
    scoredCases++;
    if (got === expected) right++;
  }
  console.log("\n## GTIN parser (shared/gtin.ts) on zyte-parsers' GTIN strings\n");
  console.log(`${right}/${scoredCases} right (${f3(right / scoredCases)}); ${outOfScope} ISBN-10/ISSN cases out of scope (not GTINs)`);
}

async function throughput(pages: LabelledPage[]): Promise<void> {
  const benchmark = pages.filter((page) => page.dataset === "benchmark");
  const html = benchmark.map(readLabelledPage);
  const megabytes = html.reduce((sum, text) => sum + text.length, 0) / 1e6;
  // CPU seconds of this process (garbage collection included), the median of three rounds after a warm-up: on a
  // machine shared with other work, wall time measures the neighbours as much as the code.
  const time = (work: () => void) => {
    work();
    const rounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      const started = process.cpuUsage();
      work();
      const used = process.cpuUsage(started);
      rounds.push((used.user + used.system) / 1e6);
    }
    return rounds.sort((a, b) => a - b)[1]!;
  };
  const parseOnly = time(() => {
    for (const text of html) parsePage(text);
  });
  const extraction = time(() => {
    for (const [index, page] of benchmark.entries()) extractFromPage(parsePage(html[index]!), { url: page.url });
  });

  const work = await mkdtemp(join(tmpdir(), "bench-extract-"));
  try {
    const sidecar = join(work, "urls.ndjson");
    await writeFile(sidecar, `${benchmark.map((page) => JSON.stringify({ path: page.path, url: page.url })).join("\n")}\n`);
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [
        join(ROOT, "node_modules/tsx/dist/cli.mjs"),
        join(ROOT, "server/cli/catalog.ts"),
        "extract",
        "--urls",
        sidecar,
        ...benchmark.map((page) => page.path),
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    let lines = 0;
    let failed = 0;
    for await (const text of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
      if (text.trim() === "") continue;
      lines++;
      if ("error" in (JSON.parse(text) as ExtractLine)) failed++;
    }
    const code = await new Promise<number | null>((done) => child.on("close", done));
    const wall = (performance.now() - started) / 1000;
    if (code !== 0 && code !== 1) throw new Error(`catalog extract exited with ${code}`);
    console.log(`## Throughput on the ${benchmark.length} benchmark pages (${megabytes.toFixed(1)} MB of HTML)\n`);
    console.log("| what | pages/s | ms/page | ratio to parsing alone |");
    // In process: pages per CPU second; end to end: per wall-clock second.
    console.log("|---|---|---|---|");
    console.log(
      `| parsing alone in process (htmlparser2; the floor), CPU time | ${(benchmark.length / parseOnly).toFixed(1)} | ${((parseOnly * 1000) / benchmark.length).toFixed(1)} | 1.00 |`,
    );
    console.log(
      `| extraction in process, CPU time | ${(benchmark.length / extraction).toFixed(1)} | ${((extraction * 1000) / benchmark.length).toFixed(1)} | ${(parseOnly / extraction).toFixed(2)} |`,
    );
    console.log(
      `| \`catalog extract\` end to end (process start, read, gunzip, print), wall time | ${(lines / wall).toFixed(1)} | ${((wall * 1000) / lines).toFixed(1)} | ${(parseOnly / wall).toFixed(2)} |`,
    );
    console.log(`\n${lines} lines from the CLI, ${failed} errors\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const pages = loadPages();
  if (pages.length === 0) {
    console.log(`skipped: ${SHARED} is absent (the team's shared folder is expected beside the checkout, as ../shared)`);
    return 0;
  }
  const qualityOnly = process.argv.includes("--quality");
  // Throughput first, on a fresh heap: after the cross-validation's two thousand extractions it reads slower.
  if (!qualityOnly) await throughput(pages);
  const { working, frozen } = splitFrozen(pages);
  const off = await crossValidate(working, process.argv.includes("--errors"));
  if (!process.argv.includes("--working")) frozenPart(frozen, off);
  if (qualityOnly) return 0;
  priceStrings();
  brandStrings();
  gtinStrings();
  return 0;
}

process.exitCode = await main();
