import type { Ranked } from "./retrieve.js";

/** The constant from Cormack et al.'s reciprocal rank fusion; damps the weight of the very top ranks. */
const RRF_K = 60;

/** Reciprocal rank fusion: ids ordered by the sum of 1/(k + rank) over the lists that hold them. */
export function reciprocalRankFusion(lists: readonly (readonly Ranked[])[], k = RRF_K): string[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    for (const [index, item] of list.entries()) scores.set(item.id, (scores.get(item.id) ?? 0) + 1 / (k + index + 1));
  }
  return [...scores].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([id]) => id);
}
