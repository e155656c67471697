/**
 * ISO 4217 currencies and their minor units. Shared so that the extractor,
 * the API and clients agree on what a code is and how many decimals its
 * amounts carry (JPY none, USD two, KWD three).
 */

/**
 * Active ISO 4217 codes (list one, 2024) with their minor-unit exponent.
 * Codes without minor units (precious metals, XDR, test codes) are left out:
 * no product is priced in them. HRK (replaced by EUR in 2023) is kept because
 * saved pages still show it.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = {
  AED: 2,
  AFN: 2,
  ALL: 2,
  AMD: 2,
  ANG: 2,
  AOA: 2,
  ARS: 2,
  AUD: 2,
  AWG: 2,
  AZN: 2,
  BAM: 2,
  BBD: 2,
  BDT: 2,
  BGN: 2,
  BHD: 3,
  BIF: 0,
  BMD: 2,
  BND: 2,
  BOB: 2,
  BOV: 2,
  BRL: 2,
  BSD: 2,
  BTN: 2,
  BWP: 2,
  BYN: 2,
  BZD: 2,
  CAD: 2,
  CDF: 2,
  CHE: 2,
  CHF: 2,
  CHW: 2,
  CLF: 4,
  CLP: 0,
  CNY: 2,
  COP: 2,
  COU: 2,
  CRC: 2,
  CUP: 2,
  CVE: 2,
  CZK: 2,
  DJF: 0,
  DKK: 2,
  DOP: 2,
  DZD: 2,
  EGP: 2,
  ERN: 2,
  ETB: 2,
  EUR: 2,
  FJD: 2,
  FKP: 2,
  GBP: 2,
  GEL: 2,
  GHS: 2,
  GIP: 2,
  GMD: 2,
  GNF: 0,
  GTQ: 2,
  GYD: 2,
  HKD: 2,
  HNL: 2,
  HRK: 2,
  HTG: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  IQD: 3,
  IRR: 2,
  ISK: 0,
  JMD: 2,
  JOD: 3,
  JPY: 0,
  KES: 2,
  KGS: 2,
  KHR: 2,
  KMF: 0,
  KPW: 2,
  KRW: 0,
  KWD: 3,
  KYD: 2,
  KZT: 2,
  LAK: 2,
  LBP: 2,
  LKR: 2,
  LRD: 2,
  LSL: 2,
  LYD: 3,
  MAD: 2,
  MDL: 2,
  MGA: 2,
  MKD: 2,
  MMK: 2,
  MNT: 2,
  MOP: 2,
  MRU: 2,
  MUR: 2,
  MVR: 2,
  MWK: 2,
  MXN: 2,
  MXV: 2,
  MYR: 2,
  MZN: 2,
  NAD: 2,
  NGN: 2,
  NIO: 2,
  NOK: 2,
  NPR: 2,
  NZD: 2,
  OMR: 3,
  PAB: 2,
  PEN: 2,
  PGK: 2,
  PHP: 2,
  PKR: 2,
  PLN: 2,
  PYG: 0,
  QAR: 2,
  RON: 2,
  RSD: 2,
  RUB: 2,
  RWF: 0,
  SAR: 2,
  SBD: 2,
  SCR: 2,
  SDG: 2,
  SEK: 2,
  SGD: 2,
  SHP: 2,
  SLE: 2,
  SOS: 2,
  SRD: 2,
  SSP: 2,
  STN: 2,
  SVC: 2,
  SYP: 2,
  SZL: 2,
  THB: 2,
  TJS: 2,
  TMT: 2,
  TND: 3,
  TOP: 2,
  TRY: 2,
  TTD: 2,
  TWD: 2,
  TZS: 2,
  UAH: 2,
  UGX: 0,
  USD: 2,
  USN: 2,
  UYI: 0,
  UYU: 2,
  UYW: 4,
  UZS: 2,
  VED: 2,
  VES: 2,
  VND: 0,
  VUV: 0,
  WST: 2,
  XAF: 0,
  XCD: 2,
  XCG: 2,
  XOF: 0,
  XPF: 0,
  YER: 2,
  ZAR: 2,
  ZMW: 2,
  ZWG: 2,
  ZWL: 2,
};

/** Currencies written "$" or "dollars" in their own countries: which one a shopper means depends on the shop. */
export const DOLLARS: readonly string[] = ["AUD", "CAD", "HKD", "NZD", "SGD", "USD"];

/** The currencies written "kr" (kronor, kroner, krónur): which one a shopper means depends on the shop. */
export const KRONOR: readonly string[] = ["DKK", "ISK", "NOK", "SEK"];

/** Whether `code` is an ISO 4217 code of the table (upper case, as stored). */
export function isCurrencyCode(code: string): boolean {
  return Object.hasOwn(CURRENCY_EXPONENTS, code);
}

/** Decimals of the currency's minor unit (2 for USD, 0 for JPY, 3 for KWD); undefined for an unknown code. */
export function minorUnitExponent(code: string): number | undefined {
  return isCurrencyCode(code) ? CURRENCY_EXPONENTS[code] : undefined;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A decimal string (`"19.99"`, `"1000"`) as an integer count of the
 * currency's minor units (1999 cents, 1000 yen). Amounts with more decimals
 * than the currency has are rounded half up (`"34.995"` GBP → 3500), as a
 * shopper would be charged. Null for an unknown currency, a string that is not
 * a non-negative decimal, or an amount beyond Number.MAX_SAFE_INTEGER units.
 */
export function toMinorUnits(amount: string, currency: string): number | null {
  const exponent = minorUnitExponent(currency);
  const match = DECIMAL.exec(amount);
  if (exponent === undefined || !match) return null;
  const whole = match[1]!;
  const fraction = match[2] ?? "";
  const kept = fraction.slice(0, exponent).padEnd(exponent, "0");
  let units = BigInt(whole + kept);
  if ((fraction[exponent] ?? "0") >= "5") units += 1n;
  return units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : null;
}

/**
 * An amount in the one decimal form of its currency: as many decimals as its minor unit has (`"45"` USD → `"45.00"`,
 * `"1200.00"` JPY → `"1200"`, `"34.995"` GBP → `"35.00"`, rounded as toMinorUnits rounds, so it is the amount price
 * filters and sorts see). The amount as given when the currency is unknown or the amount is not a plain decimal.
 */
export function canonicalAmount(amount: string, currency: string): string {
  const code = currency.trim().toUpperCase();
  const units = toMinorUnits(amount.trim(), code);
  return units === null ? amount : (fromMinorUnits(units, code) ?? amount);
}

/** Minor units (1999 cents) as the currency's decimal (`"19.99"`); null for an unknown currency. */
export function fromMinorUnits(units: number, currency: string): string | null {
  const exponent = minorUnitExponent(currency);
  if (exponent === undefined) return null;
  const digits = String(units).padStart(exponent + 1, "0");
  return exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}
