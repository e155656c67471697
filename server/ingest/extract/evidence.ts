/**
 * Availability and price decided by weighing evidence (issue 51), with weights fitted on labelled pages by `npm
 * run fit:extract` (bench/fit-extract.ts) and read from evidence-weights.json, validated at load.
 *
 * Availability: the signals a page gives of whether it sells (markup, the buy control enabled or disabled, a
 * quantity selector, a delivery estimate, "notify me", stock wording) are each present or not; a logistic model
 * turns them into the probability that the product can be bought, the decision is the likelier side and the
 * confidence its probability. A page that gives no signal gets no availability.
 *
 * Price: every layer's price is a candidate, and so is the other reading of a shown price that the page's
 * locale decided (`2.449`: 2449 or 2.449); each distinct amount is described by which layers state it, whether
 * it is the most trustworthy layer's, how many layers agree on it and whether another layer calls it the former
 * price; the amount the model scores highest wins, with its probability as the confidence.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type Candidate, LAYER_ORDER, type LayerName } from "./candidate.js";
import { compareAmounts, isBuyable, parseAmount } from "./price.js";
import { parseJsonFile } from "../../data-file.js";

export const AVAILABILITY_SIGNALS = [
  "markup_in_stock",
  "markup_out_of_stock",
  "buy_enabled",
  "buy_disabled",
  "quantity",
  "delivery",
  "in_stock_wording",
  "out_of_stock_wording",
  "notify_me",
  "nothing_to_buy_and_sold_out",
] as const;
export type AvailabilitySignal = (typeof AVAILABILITY_SIGNALS)[number];

export const PRICE_SIGNALS = [...LAYER_ORDER, "other_reading", "most_trusted", "agreeing", "was_elsewhere"] as const;
export type PriceSignal = (typeof PRICE_SIGNALS)[number];

/**
 * The side each signal can only weigh on, where what it says fixes it (a disabled buy control or "notify me" is
 * never evidence that the product sells; another layer agreeing is never evidence against an amount). The fit
 * (bench/fit-extract.ts) keeps these weights on their side of zero; the others it fits freely.
 */
export const SIGNS: Partial<Record<AvailabilitySignal | PriceSignal, 1 | -1>> = {
  markup_in_stock: 1,
  markup_out_of_stock: -1,
  buy_enabled: 1,
  buy_disabled: -1,
  quantity: 1,
  delivery: 1,
  in_stock_wording: 1,
  out_of_stock_wording: -1,
  notify_me: -1,
  nothing_to_buy_and_sold_out: -1,
  most_trusted: 1,
  agreeing: 1,
  was_elsewhere: -1,
};

const model = <T extends readonly string[]>(names: T) =>
  z.strictObject({
    bias: z.number().finite(),
    weights: z.strictObject(Object.fromEntries(names.map((name) => [name, z.number().finite()])) as Record<T[number], z.ZodNumber>),
  });

export const EvidenceWeightsSchema = z.strictObject({
  made: z.strictObject({
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    command: z.string().min(1),
    data: z.string().min(1),
    figures: z.record(z.string(), z.number()),
  }),
  availability: model(AVAILABILITY_SIGNALS),
  price: model(PRICE_SIGNALS),
});
export type EvidenceWeights = z.infer<typeof EvidenceWeightsSchema>;
export type Model = { bias: number; weights: Record<string, number> };

export const WEIGHTS_PATH = fileURLToPath(new URL("evidence-weights.json", import.meta.url));

export function parseWeights(text: string, source: string): EvidenceWeights {
  return parseJsonFile(EvidenceWeightsSchema, text, source);
}

let loaded: EvidenceWeights | undefined;

/** The fitted weights, read on first use (so that the fit itself never needs the file it writes). */
export function fittedWeights(): EvidenceWeights {
  loaded ??= parseWeights(readFileSync(WEIGHTS_PATH, "utf8"), WEIGHTS_PATH);
  return loaded;
}

export type Signals = Record<string, number>;

/** The model's probability for one example: σ(bias + Σ weight × signal). */
export function probability(fitted: Model, signals: Signals): number {
  let logit = fitted.bias;
  for (const [name, value] of Object.entries(signals)) logit += (fitted.weights[name] ?? 0) * value;
  return 1 / (1 + Math.exp(-logit));
}

/** One signal's part in a decision, as `--explain` shows it. */
export interface Evidence {
  signal: string;
  value: number;
  weight: number;
}

const shown = (fitted: Model, signals: Signals): Evidence[] =>
  Object.entries(signals)
    .filter(([, value]) => value !== 0)
    .map(([signal, value]) => ({ signal, value, weight: fitted.weights[signal] ?? 0 }));

/** The structured statement of availability: the most trustworthy layer's, unless it is the visible layer's own reading. */
function markup(layers: Candidate[]): Candidate | undefined {
  return layers.find((layer) => layer.availability !== undefined && (layer.layer !== "visible" || layer.how?.availability === "itemprop"));
}

/**
 * The page's availability signals; undefined when it gives none. A price shown is not one: sold-out pages show
 * theirs too, and fitted as a signal it outweighed the markup's "out of stock" on pages that said nothing else.
 */
export function availabilitySignals(layers: Candidate[]): Signals | undefined {
  const stated = markup(layers)?.availability;
  const stock = layers.find((layer) => layer.layer === "visible")?.stock;
  const signals: Record<AvailabilitySignal, number> = {
    markup_in_stock: stated !== undefined && isBuyable(stated) ? 1 : 0,
    markup_out_of_stock: stated !== undefined && !isBuyable(stated) ? 1 : 0,
    buy_enabled: stock?.buyEnabled ? 1 : 0,
    buy_disabled: stock?.buyDisabled ? 1 : 0,
    quantity: stock?.quantity ? 1 : 0,
    delivery: stock?.delivery ? 1 : 0,
    in_stock_wording: stock?.inStockWording ? 1 : 0,
    out_of_stock_wording: stock?.outOfStockWording ? 1 : 0,
    notify_me: stock?.notify ? 1 : 0,
    // Beside an enabled buy control, sold-out wording is most often one size's label: together they say little.
    nothing_to_buy_and_sold_out: !stock?.buyEnabled && (stock?.outOfStockWording || stock?.notify) ? 1 : 0,
  };
  return Object.values(signals).some((value) => value !== 0) ? signals : undefined;
}

export interface WeighedAvailability {
  value: string;
  layer: LayerName;
  /** True when the markup's statement stands; false when the evidence overruled it or there was none. */
  markupStands: boolean;
  confidence: number;
  evidence: Evidence[];
}

export function weighAvailability(layers: Candidate[], fitted: Model = fittedWeights().availability): WeighedAvailability | undefined {
  const signals = availabilitySignals(layers);
  if (!signals) return undefined;
  const p = probability(fitted, signals);
  const buyable = p >= 0.5;
  const stated = markup(layers);
  const confidence = Math.round(Math.min(Math.max(p, 1 - p), 0.99) * 100) / 100;
  const evidence = shown(fitted, signals);
  if (stated?.availability !== undefined && isBuyable(stated.availability) === buyable)
    return { value: stated.availability, layer: stated.layer, markupStands: true, confidence, evidence };
  return { value: buyable ? "InStock" : "OutOfStock", layer: "visible", markupStands: false, confidence, evidence };
}

export interface PriceCandidate {
  amount: string;
  /** The most trustworthy layer that states it, or the visible layer when only its other reading does. */
  layer: Candidate;
  signals: Signals;
}

/** Every distinct amount a layer states or a shown price's other reading gives, with its signals. */
export function priceCandidates(layers: Candidate[]): PriceCandidate[] {
  const priced = layers.filter((layer) => layer.price !== undefined && Number(layer.price) > 0);
  const found: PriceCandidate[] = [];
  const entry = (amount: string, layer: Candidate) => {
    let candidate = found.find((other) => compareAmounts(other.amount, amount) === 0);
    if (!candidate) {
      const signals: Signals = Object.fromEntries(PRICE_SIGNALS.map((name) => [name, 0]));
      candidate = { amount, layer, signals };
      found.push(candidate);
    }
    return candidate;
  };
  for (const layer of priced) {
    const candidate = entry(layer.price!, layer);
    candidate.signals[layer.layer] = 1;
    candidate.signals.agreeing! += 1;
  }
  const visible = priced.find((layer) => layer.layer === "visible" && layer.priceText);
  if (visible?.priceText) {
    for (const mark of [",", "."] as const) {
      const reading = parseAmount(visible.priceText, visible.currency, mark);
      if (!reading || Number(reading) === 0 || compareAmounts(reading, visible.price!) === 0) continue;
      const candidate = entry(reading, { ...visible, price: reading, low: undefined, high: undefined, was: undefined } as Candidate);
      candidate.signals.other_reading = 1;
      candidate.signals.agreeing! += 1;
    }
  }
  for (const candidate of found) {
    // Agreement counts the layers beyond the first, so that a lone statement scores zero.
    candidate.signals.agreeing = Math.min(candidate.signals.agreeing! - 1, 3);
    if (priced[0] && compareAmounts(priced[0].price!, candidate.amount) === 0) candidate.signals.most_trusted = 1;
    if (priced.some((layer) => layer.was !== undefined && compareAmounts(layer.was, candidate.amount) === 0)) candidate.signals.was_elsewhere = 1;
  }
  return found;
}

export interface WeighedPrice {
  chosen: Candidate;
  confidence: number;
  candidates: { amount: string; layer: LayerName; probability: number; evidence: Evidence[] }[];
}

export function weighPrice(layers: Candidate[], fitted: Model = fittedWeights().price): WeighedPrice | undefined {
  const candidates = priceCandidates(layers).map((candidate) => ({ ...candidate, probability: probability(fitted, candidate.signals) }));
  if (candidates.length === 0) return undefined;
  // Ties go to the earlier candidate: the more trustworthy layer's.
  const best = candidates.reduce((top, candidate) => (candidate.probability > top.probability ? candidate : top));
  const chosen = best.layer.price === best.amount ? best.layer : { ...best.layer, price: best.amount };
  return {
    chosen,
    confidence: Math.round(Math.min(best.probability, 0.99) * 100) / 100,
    candidates: candidates.map((candidate) => ({
      amount: candidate.amount,
      layer: candidate.layer.layer,
      probability: Math.round(candidate.probability * 100) / 100,
      evidence: shown(fitted, candidate.signals),
    })),
  };
}
