/**
 * Exchange rates for price filters across currencies. UCP's catalog search
 * says a price filter in another currency than a product's SHOULD be
 * converted; with no rates a service can only compare prices in the currency
 * asked. Rates come from the operator (FX_RATES_FILE), never from the
 * network: a file in the shape Frankfurter and the ECB's reference rates give,
 * `{"base": "EUR", "date": "2026-11-20", "rates": {"USD": 1.0512, "SEK": 11.03}}`
 * (one `base` is worth `rates[code]` of each currency), read once at start. A
 * file with a mistake stops the start, naming the file and the problem (a RulesError, as any data file's).
 */
import { isCurrencyCode, minorUnitExponent } from "../../shared/currency.js";
import { RulesError, readText } from "./rules/files.js";

export interface ExchangeRates {
  /** The day the rates are of, as the file says it (YYYY-MM-DD). */
  date: string;
  /** Units of each currency one unit of the base is worth; the base is 1. */
  perBase: ReadonlyMap<string, number>;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The rates of a file's text; `source` names it in errors. */
export function parseExchangeRates(text: string, source: string): ExchangeRates {
  const fail = (problem: string): never => {
    throw new RulesError(`${source}: ${problem}`);
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return fail('expected an object with "base", "date" and "rates"');
  const { base, date, rates, amount } = json as Record<string, unknown>;
  if (typeof base !== "string" || !isCurrencyCode(base)) return fail(`"base" must be an ISO 4217 code in capitals, not ${JSON.stringify(base)}`);
  if (typeof date !== "string" || !DATE.test(date) || Number.isNaN(Date.parse(date))) {
    return fail(`"date" must be the rates' day as YYYY-MM-DD, not ${JSON.stringify(date)}`);
  }
  // Frankfurter writes the amount of the base the rates are for; only 1 reads as written.
  if (amount !== undefined && amount !== 1) return fail(`"amount" must be 1 when given, not ${JSON.stringify(amount)}`);
  if (typeof rates !== "object" || rates === null || Array.isArray(rates)) return fail('"rates" must be an object of ISO 4217 codes to numbers');
  const perBase = new Map<string, number>([[base, 1]]);
  for (const [code, rate] of Object.entries(rates)) {
    if (!isCurrencyCode(code)) return fail(`"rates" holds ${JSON.stringify(code)}, which is not an ISO 4217 code in capitals`);
    if (typeof rate !== "number" || !Number.isFinite(rate) || rate <= 0)
      return fail(`the rate of ${code} must be a positive number, not ${JSON.stringify(rate)}`);
    perBase.set(code, rate);
  }
  if (perBase.size < 2) return fail('"rates" is empty');
  return { date, perBase };
}

/** FX_RATES_FILE read and checked; null when none is set. */
export function loadExchangeRates(file: string | undefined): ExchangeRates | null {
  if (file === undefined) return null;
  const { text, source } = readText(file, `FX_RATES_FILE ${file}`);
  return parseExchangeRates(text, source);
}

/** Inclusive price bounds in minor units of one currency. */
export interface PriceBounds {
  currency: string;
  min?: number;
  max?: number;
}

/**
 * The bounds in every other currency the rates know, from bounds in minor units of `bounds.currency`: a lower bound
 * rounded up and an upper bound rounded down to the other currency's minor unit, so that nothing converted lies
 * outside what was asked. Empty when the rates do not know the currency asked.
 */
export function convertBounds(bounds: PriceBounds, rates: ExchangeRates): PriceBounds[] {
  const from = rates.perBase.get(bounds.currency);
  const fromExponent = minorUnitExponent(bounds.currency);
  if (from === undefined || fromExponent === undefined) return [];
  return [...rates.perBase].flatMap(([currency, rate]) => {
    const exponent = minorUnitExponent(currency);
    if (currency === bounds.currency || exponent === undefined) return [];
    // Minor units of the currency asked → minor units of this one; rounded to a millionth first, so that float error
    // does not move an exact bound by one unit.
    const convert = (minor: number) => Math.round((minor / 10 ** fromExponent) * (rate / from) * 10 ** exponent * 1e6) / 1e6;
    const converted: PriceBounds = { currency };
    if (bounds.min !== undefined) converted.min = Math.ceil(convert(bounds.min));
    if (bounds.max !== undefined) converted.max = Math.floor(convert(bounds.max));
    return [converted];
  });
}

/** What a `converted` message says: that and how prices in other currencies were compared. */
export function convertedText(currency: string, currencies: number, rates: ExchangeRates): string {
  const others = currencies === 1 ? "1 other currency" : `${currencies} other currencies`;
  return `Prices in ${others} were converted to ${currency} for the price filter, at the operator's exchange rates of ${rates.date}; products priced in a currency without a rate were not considered.`;
}

/**
 * What a `currency_only` message says: that only prices in the currency asked were considered, and why (no rates, a
 * price sort, which orders one currency, or rates without that currency). `items`: what the caller sees filtered.
 */
export function currencyOnlyText(currency: string, rates: ExchangeRates | null, use: { sort: boolean; items: "products" | "variants" }): string {
  const why = !rates
    ? "never converted"
    : use.sort
      ? "not converted for a price sort"
      : `not converted from ${currency}, which the exchange rates lack`;
  return `Prices are ${why}: only ${use.items} priced in ${currency} were considered for the price ${use.sort ? "sort" : "filter"}.`;
}
