/**
 * Whom or what a product is made for, by word lists (sexes.ts, species.ts, bed-sizes.ts): the values its words name.
 */

/** Each word of the lists and the value whose list holds it (`{ dog: ["dog", "puppies"] }`: "puppies" → dog). */
export function byWord<T extends string>(lists: Readonly<Record<T, readonly string[]>>): Record<string, T> {
  const map: Record<string, T> = {};
  for (const [value, words] of Object.entries(lists) as [T, readonly string[]][]) for (const word of words) map[word] = value;
  return map;
}

/** The values `words` name in `list` ("mens" → male). */
export function namedIn<T>(words: readonly string[], list: Readonly<Record<string, T>>): Set<T> {
  const named = new Set<T>();
  for (const word of words) {
    const value = list[word];
    if (value !== undefined) named.add(value);
  }
  return named;
}
