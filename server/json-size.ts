/**
 * How many bytes of JSON a value is, without serialising it: what ANSWER_MAX_BYTES counts (api/answer-cap.ts), and
 * what a read of raw data checks against it before reading more (catalog/repository.ts).
 */
/** Sizes of objects already measured: a cached product is the same object on every hit, so a repeated lookup is not walked again. */
export const measured = new WeakMap<object, number>();
export const MEMO_BYTES = 512;

/**
 * The size of `value` as JSON, in bytes, escapes aside (strings by their UTF-8 length and quotes); past
 * `limit` it stops and returns what it has counted, already over. Walks the value without serialising it.
 */
export function jsonSize(value: unknown, limit: number): number {
  switch (typeof value) {
    case "string":
      return Buffer.byteLength(value) + 2;
    case "number":
    case "boolean":
      return String(value).length;
    case "object": {
      if (value === null) return 4;
      const known = measured.get(value);
      if (known !== undefined) return known;
      let size = 2;
      if (Array.isArray(value)) {
        for (const item of value) {
          size += jsonSize(item, limit - size) + 1;
          if (size > limit) return size;
        }
      } else {
        const record = value as Record<string, unknown>;
        for (const key of Object.keys(record)) {
          const item = record[key];
          if (item === undefined) continue;
          size += key.length + 4 + jsonSize(item, limit - size);
          if (size > limit) return size;
        }
      }
      // Only what is worth remembering: a product is, its page's thousands of small objects are not (a WeakMap entry each cost more than measuring them).
      if (size >= MEMO_BYTES) measured.set(value, size);
      return size;
    }
    default:
      return 0;
  }
}
