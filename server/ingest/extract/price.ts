/**
 * The one place for prices: reading amounts as pages write them, currency
 * symbols to ISO 4217, availability to schema.org names, and the shopper's
 * price label.
 *
 * Label format (documented in the README's extraction section):
 *   single price    `$79.99`
 *   sale            `$79.99 (was $99.99)`
 *   range           `$20.00 – $35.00`   (AggregateOffer, or variants with different prices)
 * Amounts are formatted with Intl in English, so the symbol is the currency's
 * usual one (`€119.01`, `£450.00`, `CHF 19.50`); no currency → the bare amount.
 */

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
];

/** Codes that Intl knows, so a three-letter word is only taken as a currency when it is one. */
const ISO_CODES = new Set(Intl.supportedValuesOf("currency"));

export function isCurrencyCode(value: string): boolean {
  return ISO_CODES.has(value.toUpperCase());
}

/** An ISO 4217 code from a code or a symbol; null when unrecognised. */
export function toCurrencyCode(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const value = raw.trim();
  if (value === "") return null;
  if (/^[A-Za-z]{3}$/.test(value) && isCurrencyCode(value)) return value.toUpperCase();
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

const NO_DECIMALS = new Set(["JPY", "KRW", "VND", "IDR", "CLP", "HUF", "ISK", "PYG", "TWD"]);
/** Currencies whose pages usually write `1.299` for one thousand two hundred ninety-nine. */
const DOT_THOUSANDS = new Set(["EUR", "BRL", "ARS", "CLP", "COP", "DKK", "NOK", "TRY", "HRK", "RON", "IDR", "VND", "ISK"]);

/**
 * A decimal string from an amount as a page writes it: `1.234,56`, `1,234.56`,
 * `19,-`, `450`, `$ 79.99`, a number. Null when there is no amount.
 */
export function parseAmount(raw: unknown, currency?: string | null): string | null {
  if (typeof raw === "number") return Number.isFinite(raw) && raw >= 0 ? canonical(String(raw)) : null;
  if (typeof raw !== "string") return null;
  const text = raw.replace(/[\u00a0\u202f\u2009 ]/g, " ").trim();
  if (/^\d+(\.\d+)?$/.test(text)) return canonical(text);
  const match = /\d{1,3}(?:([.,' ])\d{3})+(?:([.,])\d{1,2})?(?!\d)|\d+(?:[.,]\d+)?/.exec(text);
  if (!match) return null;
  let number = match[0];
  const lastDot = number.lastIndexOf(".");
  const lastComma = number.lastIndexOf(",");
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? "." : ",";
    number = number
      .split(decimal === "." ? "," : ".")
      .join("")
      .replace(/[' ]/g, "")
      .replace(",", ".");
  } else {
    number = number.replace(/[' ]/g, "");
    const separator = lastDot >= 0 ? "." : lastComma >= 0 ? "," : null;
    if (separator) {
      const parts = number.split(separator);
      const last = parts[parts.length - 1]!;
      // `8.998.99` is two amounts run together (`$8.99` twice), not a number.
      if (parts.length > 2 && parts.slice(1).some((part) => part.length !== 3)) return null;
      const thousands =
        parts.length > 2 ||
        (last.length === 3 && parts[0] !== "0" && (separator === "," || NO_DECIMALS.has(currency ?? "") || DOT_THOUSANDS.has(currency ?? "")));
      number = thousands ? parts.join("") : parts.join(".");
    }
  }
  return canonical(number);
}

function canonical(number: string): string | null {
  if (!/^\d*\.?\d*$/.test(number) || number === "" || number === ".") return null;
  let [whole = "", fraction = ""] = number.split(".");
  whole = whole.replace(/^0+(?=\d)/, "") || "0";
  fraction = fraction.replace(/0+$/, "");
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
    const whole = !amount.includes(".") && NO_DECIMALS.has(currency);
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

const AVAILABILITY: [RegExp, string][] = [
  [/^(instock|in_stock|in stock|available|yes|true|1|onsale|on_sale)$/, "InStock"],
  [/^(outofstock|out_of_stock|out of stock|soldout|sold_out|sold out|unavailable|not available|no|false|0|oos)$/, "OutOfStock"],
  [/^(preorder|pre_order|pre-order|pre order)$/, "PreOrder"],
  [/^(presale|pre_sale)$/, "PreSale"],
  [/^(backorder|back_order|backordered|available for order|availablefororder)$/, "BackOrder"],
  [/^(discontinued)$/, "Discontinued"],
  [/^(limitedavailability|limited_availability|limited|low_stock|lowstock|few left)$/, "LimitedAvailability"],
  [/^(instoreonly|in_store_only)$/, "InStoreOnly"],
  [/^(onlineonly|online_only)$/, "OnlineOnly"],
  [/^(madetoorder|made_to_order)$/, "MadeToOrder"],
];

/** A schema.org availability name from a URL, a name, a phrase or a boolean; null when unclear. */
export function normaliseAvailability(raw: unknown): string | null {
  if (typeof raw === "boolean") return raw ? "InStock" : "OutOfStock";
  if (typeof raw !== "string") return null;
  const value = raw
    .trim()
    .replace(/^https?:\/\/(www\.)?schema\.org\//i, "")
    .replace(/^schema:/i, "")
    .replace(/^OfferItemCondition\//i, "")
    .toLowerCase();
  if (value === "") return null;
  for (const [pattern, name] of AVAILABILITY) if (pattern.test(value)) return name;
  return null;
}

/** Availability names a shopper can still buy now. */
export function isBuyable(availability: string | null): boolean {
  return availability !== null && !["OutOfStock", "SoldOut", "Discontinued"].includes(availability);
}
