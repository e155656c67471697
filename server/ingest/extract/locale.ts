/**
 * The mark a page writes between whole and fraction (`,` in `24,99 €`, `.` in `$24.99`), from what the page says
 * of its locale: its `lang`, then its domain's country, then its currency (locales.json, validated when
 * first read). It decides the one reading a price text leaves open — one separator followed by exactly three
 * digits (`2.449`, `5,000`) — and nothing else (price.ts `parseAmount`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseJsonFile } from "../../data-file.js";

const code = z.string().regex(/^[a-z]{2}$/);
const Side = z.strictObject({ languages: z.array(code), countries: z.array(code), currencies: z.array(z.string().regex(/^[A-Z]{3}$/)) });
export const LocalesSchema = z
  .strictObject({ version: z.literal(1), about: z.string(), comma_decimal: Side, dot_decimal: Side })
  .refine(
    ({ comma_decimal: comma, dot_decimal: dot }) =>
      !comma.languages.some((x) => dot.languages.includes(x)) &&
      !comma.countries.some((x) => dot.countries.includes(x)) &&
      !comma.currencies.some((x) => dot.currencies.includes(x)),
    "a language, country or currency is listed on both sides",
  );

export const LOCALES_PATH = fileURLToPath(new URL("locales.json", import.meta.url));

export type DecimalMark = "," | ".";

export interface PageLocale {
  /** The decimal mark, when anything on the page decides it. */
  decimal?: DecimalMark;
  /** What decided it: `lang=de`, `domain .cl`, `currency BRL`. */
  from?: string;
}

function load(): z.infer<typeof LocalesSchema> {
  return parseJsonFile(LocalesSchema, readFileSync(LOCALES_PATH, "utf8"), LOCALES_PATH);
}

const LOCALES = load();
const mark = (key: "languages" | "countries" | "currencies", value: string): DecimalMark | undefined =>
  LOCALES.comma_decimal[key].includes(value) ? "," : LOCALES.dot_decimal[key].includes(value) ? "." : undefined;

/** The page's locale from its `lang` (`de-CH` → `de`), its URL's country domain (`.co.uk` → uk) and a currency it states. */
export function pageLocale(lang: string | undefined, url: string | undefined, currency: string | undefined): PageLocale {
  const language = /^([a-z]{2})(?:[-_]|$)/i.exec(lang?.trim() ?? "")?.[1]?.toLowerCase();
  const byLang = language ? mark("languages", language) : undefined;
  if (byLang) return { decimal: byLang, from: `lang=${language}` };
  const country = countryOf(url);
  const byDomain = country ? mark("countries", country) : undefined;
  if (byDomain) return { decimal: byDomain, from: `domain .${country}` };
  const byCurrency = currency ? mark("currencies", currency) : undefined;
  return byCurrency ? { decimal: byCurrency, from: `currency ${currency}` } : {};
}

function countryOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const tld = new URL(url).hostname.toLowerCase().split(".").at(-1);
    return tld && tld.length === 2 ? tld : undefined;
  } catch {
    return undefined;
  }
}
