/**
 * Text that Postgres can store. NUL (`\u0000`) is refused by both `text` and
 * `jsonb`, and `jsonb` refuses an unpaired surrogate; a crawled page may hold
 * either. Both are removed from every string (and object key) of a record
 * before it is hashed or stored. JSON nested deeper than MAX_JSON_DEPTH is
 * refused where it enters (pages' JSON, records' raw_data): every later step
 * (hashing, serialising, storing) walks it recursively.
 */

export const MAX_JSON_DEPTH = 100;

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must go.
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function cleanText(text: string): string {
  return text.replace(UNSAFE, (match) => (match === "\u0000" ? "" : "\ufffd"));
}

/** A copy of `value` with every string cleaned; values no deeper than MAX_JSON_DEPTH (checked before). */
export function cleanStrings<T>(value: T): T {
  return clean(value, 0) as T;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cleanText(value);
  if (typeof value !== "object" || value === null || depth > MAX_JSON_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => clean(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[cleanText(key)] = clean(item, depth + 1);
  return out;
}

/** Whether arrays and objects nest deeper than `max` levels (iterative: the value may be arbitrarily deep). */
export function nestedDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: { node: unknown; depth: number }[] = [{ node: value, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) if (typeof child === "object" && child !== null) stack.push({ node: child, depth: depth + 1 });
  }
  return false;
}
