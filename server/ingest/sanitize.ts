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
/** A cheap first look: most text has neither NUL nor any surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above.
const SUSPECT = /[\u0000\ud800-\udfff]/;

export function cleanText(text: string): string {
  return SUSPECT.test(text) ? text.replace(UNSAFE, (match) => (match === "\u0000" ? "" : "\ufffd")) : text;
}

/**
 * `value` with every string cleaned; values no deeper than MAX_JSON_DEPTH (checked before). Unchanged
 * parts are returned as they are, so a clean record costs a walk and no copy.
 */
export function cleanStrings<T>(value: T): T {
  return clean(value, 0) as T;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === "string") return cleanText(value);
  if (typeof value !== "object" || value === null || depth > MAX_JSON_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (const [index, item] of value.entries()) {
      const cleaned = clean(item, depth + 1);
      if (cleaned === item) continue;
      out ??= [...value];
      out[index] = cleaned;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const cleanKey = cleanText(key);
    const cleaned = clean(item, depth + 1);
    if (cleanKey === key && cleaned === item) continue;
    out ??= { ...value };
    if (cleanKey !== key) delete out[key];
    out[cleanKey] = cleaned;
  }
  return out ?? value;
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
