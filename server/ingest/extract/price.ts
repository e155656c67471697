/**
 * The one place for prices: reading amounts as pages write them, currency
 * symbols to ISO 4217, availability to schema.org names, and the shopper's
 * price label.
 *
 * Label format (documented in docs/extraction.md):
 *   single price    `$79.99`
 *   sale            `$79.99 (was $99.99)`
 *   range           `$20.00 – $35.00`   (AggregateOffer, or variants with different prices)
 * Amounts are formatted with Intl in English, so the symbol is the currency's
 * usual one (`€119.01`, `£450.00`, `CHF 19.50`); no currency → the bare amount.
 */
import { isCurrencyCode, minorUnitExponent } from "../../../shared/currency.js";
import type { DecimalMark } from "./locale.js";

const SYMBOLS: [string, string][] = [
  ["US$", "USD"],
  ["CA$", "CAD"],
  ["C$", "CAD"],
  ["AU$", "AUD"],
  ["A$", "AUD"],
  ["NZ$", "NZD"],
  ["HK$", "HKD"],
  ["S$", "SGD"],
  ["R$", "BRL"],
  ["MX$", "MXN"],
  ["NT$", "TWD"],
  ["$", "USD"],
  ["€", "EUR"],
  ["£", "GBP"],
  ["¥", "JPY"],
  ["￥", "JPY"],
  ["₹", "INR"],
  ["₩", "KRW"],
  ["₽", "RUB"],
  ["₺", "TRY"],
  ["₪", "ILS"],
  ["₴", "UAH"],
  ["₫", "VND"],
  ["฿", "THB"],
  ["₱", "PHP"],
  ["₦", "NGN"],
  ["₡", "CRC"],
  ["₲", "PYG"],
  ["zł", "PLN"],
  ["Kč", "CZK"],
  ["Ft", "HUF"],
  ["лв", "BGN"],
  ["руб", "RUB"],
  ["Lei", "RON"],
  ["kn", "HRK"],
  ["ر.س", "SAR"],
  ["원", "KRW"],
  ["円", "JPY"],
  ["د.إ", "AED"],
  ["Rs", "INR"],
  ["Rp", "IDR"],
  ["RM", "MYR"],
  ["kr", "SEK"],
  ["CHF", "CHF"],
  ["Fr.", "CHF"],
  ["KD", "KWD"],
  ["د.ك", "KWD"],
  ["BD", "BHD"],
  ["ر.ع.", "OMR"],
];

export { isCurrencyCode };

/** An ISO 4217 code from a code or a symbol; null when unrecognised. */
export function toCurrencyCode(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const value = raw.trim();
  if (value === "") return null;
  if (/^[A-Za-z]{3}$/.test(value) && isCurrencyCode(value.toUpperCase())) return value.toUpperCase();
  const lower = value.toLowerCase();
  for (const [symbol, code] of SYMBOLS) if (lower === symbol.toLowerCase()) return code;
  return null;
}

/** The currency written in a price text, by code or symbol. */
export function currencyInText(text: string): string | null {
  const code = /(?:^|[^A-Za-z])([A-Z]{3})(?![A-Za-z])/.exec(text);
  if (code && isCurrencyCode(code[1]!)) return code[1]!;
  for (const [symbol, iso] of SYMBOLS) {
    if (symbol.length === 1 || /[^A-Za-z.]/.test(symbol)) {
      if (text.includes(symbol)) return iso;
    } else if (new RegExp(`(?:^|[^A-Za-z])${symbol.replace(".", "\\.")}(?![A-Za-z])`, "i").test(text)) return iso;
  }
  return null;
}

/** Symbols several currencies write alike, and the currencies they may stand for (the first when nothing else says). */
const SHARED_SYMBOLS: [RegExp, string[]][] = [
  [/(?<![A-Za-z])\$/, ["USD", "CAD", "AUD", "NZD", "MXN", "ARS", "CLP", "COP", "SGD", "HKD", "TWD", "UYU"]],
  [/(?<![A-Za-z])kr\.?(?![A-Za-z])/i, ["SEK", "NOK", "DKK", "ISK"]],
  [/[¥￥]/, ["JPY", "CNY"]],
  [/(?<![A-Za-z])Rs\.?(?![A-Za-z])/i, ["INR", "PKR", "LKR", "NPR"]],
];

/**
 * The currencies a price text may be in when it names its currency only by a
 * symbol several share (`$`, `kr`, `¥`, `Rs`); undefined when the text is
 * unambiguous (a code, `€`, `US$`) or has no currency.
 */
export function sharedSymbolCurrencies(text: string): string[] | undefined {
  const code = /(?:^|[^A-Za-z])([A-Z]{3})(?![A-Za-z])/.exec(text);
  if (code && isCurrencyCode(code[1]!)) return undefined;
  if (/[A-Z]{1,3}\$/.test(text)) return undefined;
  return SHARED_SYMBOLS.find(([symbol]) => symbol.test(text))?.[1];
}

/** Words a page writes for a price of nothing. */
const FREE = /^\W*(?:free|gratis|kostenlos|gratuit|gratuito|darmowy|ilmainen)\W*$/i;

/**
 * A decimal string from a structured value (schema.org `price`, Open Graph
 * `product:price:amount`, page state): a number, or a string in the format's
 * own notation (`.` as the decimal point, no grouping) taken as written; any
 * other string is read as text.
 */
export function parseStatedAmount(raw: unknown, currency?: string | null): string | null {
  if (typeof raw === "number") return Number.isFinite(raw) && raw >= 0 ? canonical(String(raw)) : null;
  if (typeof raw !== "string") return null;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return canonical(text);
  return parseAmount(text, currency);
}

/**
 * A decimal string from an amount as a page shows it: `1.234,56`, `1,234.56`,
 * `19,-`, `CHF 1'299.–`, `35€99`, `.75`, `Free`. One separator followed by
 * exactly three digits groups thousands (`1.299 €`, `$23,450`), except in a
 * currency with three decimals (`KWD 1.250`), after a lone zero (`0.750`), or
 * where the page's locale writes that separator as its decimal mark (`5,000 €`
 * on a German page, `$2.449` on an English one) and the currency has decimals.
 * Null when there is no amount.
 */
export function parseAmount(raw: unknown, currency?: string | null, decimal?: DecimalMark): string | null {
  if (typeof raw === "number") return Number.isFinite(raw) && raw >= 0 ? canonical(String(raw)) : null;
  if (typeof raw !== "string") return null;
  const text = raw.replace(/[\u00a0\u202f\u2009\u2007 ]/g, " ").trim();
  if (FREE.test(text)) return "0";
  // The currency sign as the decimal mark: "35€99", "12£50".
  const signed = /(?<![\d.,])(\d+)\s?[€£]\s?(\d{2})(?!\d)/.exec(text);
  if (signed) return canonical(`${signed[1]}.${signed[2]}`);
  const match = /\d{1,3}(?:([.,' ’])\d{3})+(?:([.,])\d+)?(?!\d)|\d*[.,]?\d+/.exec(text);
  if (!match) return null;
  let number = match[0];
  const lastDot = number.lastIndexOf(".");
  const lastComma = number.lastIndexOf(",");
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? "." : ",";
    number = number
      .split(decimal === "." ? "," : ".")
      .join("")
      .replace(/[' ’]/g, "")
      .replace(",", ".");
  } else {
    number = number.replace(/[' ’]/g, "");
    const separator = lastDot >= 0 ? "." : lastComma >= 0 ? "," : null;
    if (separator) {
      const parts = number.split(separator);
      const last = parts[parts.length - 1]!;
      // `8.998.99` is two amounts run together (`$8.99` twice), not a number.
      if (parts.length > 2 && parts.slice(1).some((part) => part.length !== 3)) return null;
      const exponent = minorUnitExponent((currency ?? "").toUpperCase());
      const localeDecimal = decimal === separator && exponent !== 0;
      const thousands = parts.length > 2 || (last.length === 3 && parts[0] !== "0" && parts[0] !== "" && exponent !== 3 && !localeDecimal);
      number = thousands ? parts.join("") : parts.join(".");
    }
  }
  return canonical(number);
}

function canonical(number: string): string | null {
  // Written so that no part is retried from each digit of a long run (`0+$` was quadratic in a run of zeros).
  if (!/^\d*(?:\.\d*)?$/.test(number) || number === "" || number === ".") return null;
  let [whole = "", fraction = ""] = number.split(".");
  whole = whole.replace(/^0+(?=\d)/, "") || "0";
  let end = fraction.length;
  while (end > 0 && fraction[end - 1] === "0") end--;
  fraction = fraction.slice(0, end);
  if (fraction === "") return whole;
  return `${whole}.${fraction.length === 1 ? `${fraction}0` : fraction}`;
}

export function compareAmounts(a: string, b: string): number {
  return Number(a) - Number(b);
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(currency: string, whole: boolean): Intl.NumberFormat {
  const key = `${currency}:${whole}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.NumberFormat("en", { style: "currency", currency, ...(whole ? { minimumFractionDigits: 0, maximumFractionDigits: 0 } : {}) });
    formatters.set(key, found);
  }
  return found;
}

export function formatAmount(amount: string, currency: string | null): string {
  if (currency && isCurrencyCode(currency)) {
    const whole = !amount.includes(".") && minorUnitExponent(currency.toUpperCase()) === 0;
    return formatter(currency.toUpperCase(), whole)
      .format(Number(amount))
      .replace(/[\u00a0\u202f]/g, " ");
  }
  return amount;
}

export interface PriceFacts {
  price: string | null;
  currency: string | null;
  low?: string | null;
  high?: string | null;
  was?: string | null;
}

/** The price as a shopper reads it; empty when unknown. */
export function priceLabel(facts: PriceFacts): string {
  const { currency } = facts;
  if (facts.low && facts.high && compareAmounts(facts.low, facts.high) < 0) {
    return `${formatAmount(facts.low, currency)} – ${formatAmount(facts.high, currency)}`;
  }
  if (!facts.price) return "";
  const now = formatAmount(facts.price, currency);
  if (facts.was && compareAmounts(facts.was, facts.price) > 0) return `${now} (was ${formatAmount(facts.was, currency)})`;
  return now;
}

/** Availability as pages spell it, compacted (lower case, no spaces, `_`, `-` or `.`), to schema.org's names. */
const AVAILABILITY = new Map<string, string>([
  ...["instock", "available", "availablenow", "yes", "true", "1", "onsale", "instockonline"].map((word): [string, string] => [word, "InStock"]),
  ...["outofstock", "soldout", "unavailable", "notavailable", "no", "false", "0", "oos", "outofstockonline", "nostock"].map(
    (word): [string, string] => [word, "OutOfStock"],
  ),
  ...["preorder", "preorderable"].map((word): [string, string] => [word, "PreOrder"]),
  ["presale", "PreSale"],
  ...["backorder", "backordered", "availablefororder", "backorderable"].map((word): [string, string] => [word, "BackOrder"]),
  ["discontinued", "Discontinued"],
  ...["limitedavailability", "limited", "lowstock", "fewleft"].map((word): [string, string] => [word, "LimitedAvailability"]),
  ["instoreonly", "InStoreOnly"],
  ["onlineonly", "OnlineOnly"],
  ["madetoorder", "MadeToOrder"],
  ["reserved", "Reserved"],
]);

/**
 * A schema.org availability name from any spelling pages use: full URLs
 * (`https://schema.org/InStock`, `http://schema.org/InStock/`), `schema:`
 * prefixes, names in any case (`instock`, `IN_STOCK`, `in-stock`, `In stock`),
 * Open Graph's phrases (`in stock`, `available for order`) and booleans.
 * Null when unclear.
 */
export function normaliseAvailability(raw: unknown): string | null {
  if (typeof raw === "boolean") return raw ? "InStock" : "OutOfStock";
  if (typeof raw !== "string") return null;
  const value = raw
    .trim()
    .replace(/^(?:https?:)?\/\/(?:www\.)?schema\.org\//i, "")
    .replace(/^schema:/i, "")
    .replace(/^(?:ItemAvailability|OfferItemCondition)\//i, "")
    .replace(/[/#]$/, "");
  const compact = value.toLowerCase().replace(/[\s_.-]+/g, "");
  return compact === "" ? null : (AVAILABILITY.get(compact) ?? null);
}

/** Availability names a shopper can still buy now. */
export function isBuyable(availability: string | null): boolean {
  return availability !== null && !["OutOfStock", "SoldOut", "Discontinued"].includes(availability);
}
