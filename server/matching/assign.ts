/**
 * From judged pairs to groups: the likeliest pairs first, each joining two groups unless the two hold a record of
 * the same merchant (one shop sells a product once) — greedy, so a record goes with the record it fits best among
 * those still free.
 */
export interface JudgedPair {
  a: string;
  b: string;
  probability: number;
}

export function assignGroups(pairs: readonly JudgedPair[], merchantOf: (id: string) => string, threshold: number): Map<string, string> {
  const parent = new Map<string, string>();
  const merchants = new Map<string, Set<string>>();
  const root = (id: string): string => {
    let node = id;
    while (parent.has(node)) node = parent.get(node)!;
    return node;
  };
  const merchantsOf = (id: string) => merchants.get(id) ?? new Set([merchantOf(id)]);
  const ordered = pairs.filter((pair) => pair.probability >= threshold).sort((x, y) => y.probability - x.probability || compare(x, y));
  for (const pair of ordered) {
    const [ra, rb] = [root(pair.a), root(pair.b)];
    if (ra === rb) continue;
    const [ma, mb] = [merchantsOf(ra), merchantsOf(rb)];
    if ([...ma].some((merchant) => mb.has(merchant))) continue;
    // The smaller id stays the root: a group's id does not depend on the order pairs were judged in.
    const [keep, join] = ra < rb ? [ra, rb] : [rb, ra];
    parent.set(join, keep);
    merchants.set(keep, new Set([...ma, ...mb]));
  }
  const groupOf = new Map<string, string>();
  for (const pair of pairs) for (const id of [pair.a, pair.b]) groupOf.set(id, root(id));
  return groupOf;
}

function compare(x: JudgedPair, y: JudgedPair): number {
  return `${x.a} ${x.b}` < `${y.a} ${y.b}` ? -1 : 1;
}
