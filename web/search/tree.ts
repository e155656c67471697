/**
 * Category facet values ("Outdoor > Tents") in tree order: each under its parent, siblings in the order the API gave
 * them (by count). The API lists the buckets of every level by count, so "Camp Furniture" could follow "Shoes".
 */
export function inTreeOrder<T extends { value: string }>(entries: readonly T[]): T[] {
  const rank = new Map(entries.map((entry, index) => [entry.value, index]));
  const path = (value: string) => {
    const parts = value.split(" > ");
    return parts.map((_, k) => rank.get(parts.slice(0, k + 1).join(" > ")) ?? Number.POSITIVE_INFINITY);
  };
  const keyed = entries.map((entry) => ({ entry, key: path(entry.value) }));
  keyed.sort((a, b) => {
    for (let k = 0; k < Math.min(a.key.length, b.key.length); k++) if (a.key[k] !== b.key[k]) return a.key[k]! - b.key[k]!;
    return a.key.length - b.key.length;
  });
  return keyed.map(({ entry }) => entry);
}
