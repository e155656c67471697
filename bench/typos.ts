/**
 * A typo copy of a query set, made deterministically: in each query, one word
 * of five letters or more gets one edit — a letter dropped, two neighbours
 * swapped, a letter doubled, or a letter replaced — chosen by a PRNG seeded
 * with the query's id, so every run (and every machine) makes the same copy.
 */
import { rng } from "./http-catalog.js";

export const TYPO_KINDS = ["drop", "swap", "double", "replace"] as const;
export type TypoKind = (typeof TYPO_KINDS)[number];

export interface Typo {
  id: string;
  query: string;
  /** Absent when the query has no word of five letters or more (it is kept as it is). */
  edit?: { kind: TypoKind; word: string; typed: string };
}

/** Changes the seed, and so every typo, if the way they are made ever changes. */
const SEED = 15;
const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** FNV-1a of the id, mixed with SEED: a stable seed per query. */
function seedOf(id: string): number {
  let hash = 0x811c9dc5 ^ SEED;
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

function edit(word: string, kind: TypoKind, random: () => number): string {
  const at = (n: number) => Math.floor(random() * n);
  switch (kind) {
    case "drop": {
      const i = at(word.length);
      return word.slice(0, i) + word.slice(i + 1);
    }
    case "double": {
      const i = at(word.length);
      return word.slice(0, i + 1) + word.slice(i);
    }
    case "replace": {
      const i = at(word.length);
      const others = LETTERS.replace(word[i]!, "");
      return word.slice(0, i) + others[at(others.length)]! + word.slice(i + 1);
    }
    case "swap": {
      // Neighbours that differ, so the swap changes the word ("ll" in "ball" would not).
      const places = [...word.slice(1)].flatMap((letter, i) => (letter !== word[i] ? [i] : []));
      if (places.length === 0) return edit(word, "replace", random);
      const i = places[at(places.length)]!;
      return word.slice(0, i) + word[i + 1]! + word[i]! + word.slice(i + 2);
    }
  }
}

export function typoCopy(queries: readonly (readonly [string, string])[]): Typo[] {
  return queries.map(([id, query]) => {
    const random = rng(seedOf(id));
    const words = [...query.matchAll(/[a-z]+/gi)].filter((match) => match[0].length >= 5);
    if (words.length === 0) return { id, query };
    const chosen = words[Math.floor(random() * words.length)]!;
    const kind = TYPO_KINDS[Math.floor(random() * TYPO_KINDS.length)]!;
    const typed = edit(chosen[0].toLowerCase(), kind, random);
    return {
      id,
      query: query.slice(0, chosen.index) + typed + query.slice(chosen.index + chosen[0].length),
      edit: { kind, word: chosen[0], typed },
    };
  });
}
