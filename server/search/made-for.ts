/**
 * Whom or what a product is made for, by word lists (sexes.ts, species.ts, bed-sizes.ts): the values its words name,
 * and whether it is made only for one the query does not ask for.
 */

/** The values `words` name in `list` ("mens" → male). */
export function namedIn<T>(words: readonly string[], list: Readonly<Record<string, T>>): Set<T> {
  const named = new Set<T>();
  for (const word of words) {
    const value = list[word];
    if (value !== undefined) named.add(value);
  }
  return named;
}

/** Made for exactly one value, and the query asks for others: a product naming several, or none, suits any. */
export function onlyOther<T>(asked: ReadonlySet<T>, made: ReadonlySet<T>): boolean {
  return asked.size > 0 && made.size === 1 && !asked.has([...made][0]!);
}
