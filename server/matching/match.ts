/**
 * Matching a set of records held in memory: each is compared only with its candidates — the records sharing a
 * lookup key (GTIN, MPN, model code) and its nearest vectors among other merchants' — never with all the others.
 * The benchmark and the fitting script use it; the catalog finds the same candidates through its indexes.
 */
import { assignGroups, type JudgedPair } from "./assign.js";
import { lookupKeys, type MatchInput, type MatchKeys, matchKeys } from "./keys.js";
import { type Idf, idfOver, judgePair, type PairVerdict } from "./score.js";
import type { MatchSettings } from "./settings.js";

export interface Candidate {
  a: MatchKeys;
  b: MatchKeys;
  verdict: PairVerdict;
}

function byKey(records: readonly MatchKeys[], settings: MatchSettings): Map<string, Set<string>> {
  const pairs = new Map<string, Set<string>>();
  const holders = new Map<string, MatchKeys[]>();
  for (const record of records) for (const key of lookupKeys(record, settings)) holders.set(key, [...(holders.get(key) ?? []), record]);
  for (const group of holders.values()) {
    if (group.length > settings.candidates.per_key) continue;
    for (const a of group) for (const b of group) if (a.merchant !== b.merchant && a.id < b.id) addPair(pairs, a.id, b.id);
  }
  return pairs;
}

function addPair(pairs: Map<string, Set<string>>, a: string, b: string): void {
  const [x, y] = a < b ? [a, b] : [b, a];
  const set = pairs.get(x) ?? new Set<string>();
  set.add(y);
  pairs.set(x, set);
}

function nearest(record: MatchKeys, records: readonly MatchKeys[], k: number): MatchKeys[] {
  if (!record.vector || k === 0) return [];
  const scored: [number, MatchKeys][] = [];
  for (const other of records) {
    if (other.merchant === record.merchant || !other.vector) continue;
    let dot = 0;
    for (let i = 0; i < other.vector.length; i++) dot += record.vector[i]! * other.vector[i]!;
    scored.push([dot, other]);
  }
  return scored
    .sort((x, y) => y[0] - x[0])
    .slice(0, k)
    .map(([, other]) => other);
}

/** Every candidate pair of `inputs`, judged. */
export function judgeCandidates(inputs: readonly MatchInput[], settings: MatchSettings, idf?: Idf): Candidate[] {
  const records = inputs.map((input) => matchKeys(input, settings));
  const byId = new Map(records.map((record) => [record.id, record]));
  const weigh = idf ?? idfOver(records);
  const pairs = byKey(records, settings);
  for (const record of records) for (const other of nearest(record, records, settings.candidates.neighbours)) addPair(pairs, record.id, other.id);
  const out: Candidate[] = [];
  for (const [x, ys] of pairs) {
    for (const y of ys) {
      const [a, b] = [byId.get(x)!, byId.get(y)!];
      out.push({ a, b, verdict: judgePair(a, b, weigh, settings) });
    }
  }
  return out;
}

/** The group of every record (the smallest id of the group; a record matched with none is its own). */
export function matchRecords(inputs: readonly MatchInput[], settings: MatchSettings): Map<string, string> {
  const candidates = judgeCandidates(inputs, settings);
  const pairs: JudgedPair[] = candidates.map(({ a, b, verdict }) => ({ a: a.id, b: b.id, probability: verdict.probability }));
  const merchant = new Map(inputs.map((input) => [input.id, input.merchant]));
  const groups = assignGroups(pairs, (id) => merchant.get(id)!, settings.threshold);
  for (const input of inputs) if (!groups.has(input.id)) groups.set(input.id, input.id);
  return groups;
}
