/**
 * npm run fit:extract — fits the two small logistic models of server/ingest/extract/evidence.ts on the WORKING
 * part of the labelled pages (never the frozen part, bench/extract-frozen.json) and writes them, with the date,
 * the data and the figures, to server/ingest/extract/evidence-weights.json.
 *
 * - availability: one example per page whose availability is labelled and that gives any stock signal; the
 *   label is whether the product can be bought;
 * - price: one example per candidate amount on a page whose price is labelled; the label is whether it is the
 *   labelled price.
 *
 * The fit is plain gradient descent on the mean log-loss (each class weighing half) with an L2 penalty (not on
 * the bias), from zero, a fixed number of steps: the same pages give the same weights. Figures: decisions right on the pages fitted,
 * and leave-one-site-out (each site decided by weights fitted without it).
 */
import { writeFileSync } from "node:fs";
import { parsePage } from "../server/ingest/extract/dom.js";
import {
  AVAILABILITY_SIGNALS,
  availabilitySignals,
  type EvidenceWeights,
  EvidenceWeightsSchema,
  type Model,
  PRICE_SIGNALS,
  priceCandidates,
  probability,
  type Signals,
  SIGNS,
  WEIGHTS_PATH,
} from "../server/ingest/extract/evidence.js";
import { extractLayers } from "../server/ingest/extract/index.js";
import { loadPages, readLabelledPage, splitFrozen } from "./extract-data.js";

const L2 = 0.5;
const STEPS = 4000;
const RATE = 0.5;

interface Example {
  site: string;
  page: string;
  signals: Signals;
  label: 0 | 1;
}

/**
 * Logistic regression: gradient descent on mean log-loss + L2/2n·|w|², from zero (without an intercept when
 * told: availability is decided only on pages that give a signal, and the evidence alone should decide, not how
 * many of the labelled pages were in stock; with one, a lone "out of stock" in the markup came out in stock,
 * because on the labelled pages it never came alone). A weight with a declared
 * direction (evidence.ts: a notify-me control is never evidence of stock) is kept on its side of zero: with a
 * handful of sold-out pages, a signal seen on one in-stock page would otherwise learn the opposite of what it says.
 */
export function fitLogistic(examples: Example[], names: readonly string[], signs: Partial<Record<string, 1 | -1>> = {}, intercept = true): Model {
  const weights = Object.fromEntries(names.map((name) => [name, 0]));
  let bias = 0;
  const n = Math.max(examples.length, 1);
  // Each class weighs half: with a handful of sold-out pages among many in stock, the bias would otherwise carry the fit.
  const positives = examples.filter((example) => example.label === 1).length;
  const share = (label: 0 | 1) => n / (2 * Math.max(label === 1 ? positives : n - positives, 1));
  for (let step = 0; step < STEPS; step++) {
    const gradient = Object.fromEntries(names.map((name) => [name, (L2 * weights[name]!) / n]));
    let biasGradient = 0;
    for (const example of examples) {
      const error = (probability({ bias, weights }, example.signals) - example.label) * share(example.label);
      biasGradient += error / n;
      for (const name of names) gradient[name]! += (error * (example.signals[name] ?? 0)) / n;
    }
    if (intercept) bias -= RATE * biasGradient;
    for (const name of names) {
      weights[name]! -= RATE * gradient[name]!;
      const sign = signs[name];
      if (sign !== undefined && weights[name]! * sign < 0) weights[name] = 0;
    }
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return { bias: round(bias), weights: Object.fromEntries(names.map((name) => [name, round(weights[name]!)])) };
}

const sameAmount = (a: string, b: string) => Number(a) === Number(b);

function examples(): { availability: Example[]; price: Example[]; pages: number; sites: number } {
  const { working } = splitFrozen(loadPages());
  const availability: Example[] = [];
  const price: Example[] = [];
  for (const page of working) {
    const { layers } = extractLayers(parsePage(readLabelledPage(page)), { url: page.url });
    const stock = page.truth.availability;
    const signals = availabilitySignals(layers);
    if (stock && stock.length > 0 && signals)
      availability.push({ site: page.site, page: page.id, signals, label: stock.includes("OutOfStock") ? 0 : 1 });
    const truth = page.truth.price;
    if (!truth || truth.length === 0) continue;
    for (const candidate of priceCandidates(layers))
      price.push({
        site: page.site,
        page: page.id,
        signals: candidate.signals,
        label: truth.some((value) => sameAmount(value, candidate.amount)) ? 1 : 0,
      });
  }
  return { availability, price, pages: working.length, sites: new Set(working.map((page) => page.site)).size };
}

/** Availability decisions right (probability on the labelled side of one half). */
function availabilityRight(model: Model, set: Example[]): number {
  return set.filter((example) => (probability(model, example.signals) >= 0.5 ? 1 : 0) === example.label).length;
}

/** Pages whose best-scored candidate is the labelled price. */
function priceRight(model: Model, set: Example[]): number {
  const byPage = new Map<string, Example[]>();
  for (const example of set) byPage.set(example.page, [...(byPage.get(example.page) ?? []), example]);
  let right = 0;
  for (const candidates of byPage.values()) {
    const best = candidates.reduce((top, example) => (probability(model, example.signals) > probability(model, top.signals) ? example : top));
    if (best.label === 1) right++;
  }
  return right;
}

function leaveOneSiteOut(set: Example[], names: readonly string[], right: (model: Model, held: Example[]) => number, intercept: boolean): number {
  let total = 0;
  for (const site of new Set(set.map((example) => example.site))) {
    const model = fitLogistic(
      set.filter((example) => example.site !== site),
      names,
      SIGNS,
      intercept,
    );
    if (process.argv.includes("--misses"))
      for (const example of set.filter((e) => e.site === site))
        if (right(model, [example]) === 0 && names === AVAILABILITY_SIGNALS)
          console.error("miss", example.page, example.label, JSON.stringify(example.signals));
    total += right(
      model,
      set.filter((example) => example.site === site),
    );
  }
  return total;
}

function main(): void {
  const data = examples();
  const availability = fitLogistic(data.availability, AVAILABILITY_SIGNALS, SIGNS, false);
  const price = fitLogistic(data.price, PRICE_SIGNALS, SIGNS);
  const pricePages = new Set(data.price.map((example) => example.page)).size;
  const figures = {
    availability_pages: data.availability.length,
    availability_right: availabilityRight(availability, data.availability),
    availability_right_site_out: leaveOneSiteOut(data.availability, AVAILABILITY_SIGNALS, availabilityRight, false),
    price_pages: pricePages,
    price_right: priceRight(price, data.price),
    price_right_site_out: leaveOneSiteOut(data.price, PRICE_SIGNALS, priceRight, true),
  };
  const fitted: EvidenceWeights = EvidenceWeightsSchema.parse({
    made: {
      date: new Date().toISOString().slice(0, 10),
      command: "npm run fit:extract",
      data: `the working part of bench:extract's labelled pages (${data.pages} pages of ${data.sites} sites; the frozen part left out), L2 ${L2}, ${STEPS} steps`,
      figures,
    },
    availability,
    price,
  });
  writeFileSync(WEIGHTS_PATH, `${JSON.stringify(fitted, null, 2)}\n`);
  console.log(JSON.stringify(fitted, null, 2));
}

main();
