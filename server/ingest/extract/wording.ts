/**
 * What pages say about buying and stock, in many languages, from stock-wording.json: validated when first read (a
 * broken file is refused with its name and what is wrong) and compiled into one case-insensitive test per kind.
 * Fragments may not repeat (`*`, `+`, `{}`), so every test is linear in the text it reads.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { parseJsonFile } from "../../data-file.js";

const fragment = z
  .string()
  .min(2)
  .refine((text) => !/[*+{}]/.test(text), "a fragment may not repeat (*, +, {})")
  .refine((text) => {
    try {
      new RegExp(text, "iu");
      return true;
    } catch {
      return false;
    }
  }, "not a regular expression");
const byLanguage = z.record(z.string().regex(/^[a-z]{2}$/), z.array(fragment).min(1));

export const WordingSchema = z.strictObject({
  version: z.literal(1),
  about: z.string(),
  buy: byLanguage,
  buy_attributes: z.array(fragment).min(1),
  out_of_stock: byLanguage,
  notify: byLanguage,
  in_stock: byLanguage,
  delivery: byLanguage,
  /** Words naming a quantity selector in its name, id or class. */
  quantity: z.array(fragment).min(1),
});
export type Wording = z.infer<typeof WordingSchema>;

export const WORDING_PATH = fileURLToPath(new URL("stock-wording.json", import.meta.url));

export function parseWording(text: string, source: string): Wording {
  return parseJsonFile(WordingSchema, text, source);
}

const alternation = (fragments: string[]) => new RegExp(fragments.join("|"), "iu");
const all = (lists: Record<string, string[]>) => Object.values(lists).flat();

export interface StockTests {
  /** A buy control, by its label (in the languages listed) or its class, id or name. */
  buy: RegExp;
  /** Out-of-stock wording, "notify me" included (a page offering to notify has nothing to sell). */
  outOfStock: RegExp;
  notify: RegExp;
  inStock: RegExp;
  delivery: RegExp;
  quantity: RegExp;
}

export function compileWording(wording: Wording): StockTests {
  return {
    buy: alternation([...all(wording.buy), ...wording.buy_attributes]),
    outOfStock: alternation([...all(wording.out_of_stock), ...all(wording.notify)]),
    notify: alternation(all(wording.notify)),
    inStock: alternation(all(wording.in_stock)),
    delivery: alternation(all(wording.delivery)),
    quantity: new RegExp(`(?:^|[-_\\s])(?:${wording.quantity.join("|")})(?:$|[-_\\s\\[])`, "iu"),
  };
}

export const STOCK: StockTests = compileWording(parseWording(readFileSync(WORDING_PATH, "utf8"), WORDING_PATH));
