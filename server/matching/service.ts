/**
 * Matching in the catalog, incremental: a record written by an import or a refresh is compared with its candidates —
 * the records of other merchants sharing a GTIN, MPN or model code (the `match_keys` GIN index) and its nearest
 * vectors (the HNSW index) — never with the whole catalog, and joins the group of the likeliest one above the
 * threshold, unless that group holds a record of its merchant already: then the stronger claim keeps the place and
 * the other record looks again. A record that no longer fits its group (its page changed) leaves it. Operator
 * overrides (pin, split) come before all of it. Group ids are kept by the records that stay.
 */
import { bumpCatalogVersion } from "../catalog/repository.js";
import type { Database, DbOrTx } from "../db/client.js";
import { leaverGroupId } from "./groups.js";
import { type MatchInput, lookupKeys, type MatchKeys, matchKeys } from "./keys.js";
import {
  currentGroups,
  documentFrequencies,
  findCandidates,
  groupMembers,
  lockMatching,
  type MatchRow,
  readForMatching,
  readOverrides,
  setGroup,
} from "./repository.js";
import { type Idf, judgePair } from "./score.js";
import type { MatchSettings } from "./settings.js";

interface Claim {
  groupId: string;
  probability: number;
}

/**
 * Matches the given records (those still there), each in a short transaction of its own: a server sharing its
 * embedded database with an importing CLI keeps answering between them. Their candidates are found for the whole
 * batch at once, before: which records they are and how similar does not depend on the order the batch is matched
 * in (the records are stored); only their groups do, and those are read again under the lock.
 */
export async function matchProducts(db: Database, ids: readonly string[], settings: MatchSettings): Promise<void> {
  if (ids.length === 0) return;
  const first = await readForMatching(db, ids);
  const idf = await catalogIdf(
    db,
    first.flatMap((row) => matchKeys(row, settings).words),
  );
  const candidates = await candidatesOf(db, first, settings);
  const settled = await settledAlone(db, first, candidates, settings, idf);
  // Groups records of this call joined: a record settled alone whose group one of them joined must leave it.
  const joined = new Set<string>();
  for (const { id, groupId } of first) {
    if (settled.has(id) && !joined.has(groupId)) continue;
    await db.transaction(async (tx) => {
      await lockMatching(tx);
      // Read again under the lock: an eviction by the record before may have moved it.
      const [row] = await readForMatching(tx, [id]);
      if (row) await matchOne(tx, row, settings, idf, 1, candidates.get(id) ?? [], joined);
    });
  }
  // Records carry their group: cached ones are out of date.
  await bumpCatalogVersion(db);
}

/**
 * The records whose matching would change nothing, found for all at once: no override, no candidate as likely as the
 * threshold (so no group to claim, whatever the groups are: a pair's probability reads the records, not their groups),
 * alone in their group with no score. Matching one would only find it alone and leave it so; unless a record before it
 * in this call joins its group, it is not matched one by one (most records of a load: a transaction and five queries
 * each).
 */
async function settledAlone(
  db: DbOrTx,
  rows: readonly MatchRow[],
  candidates: ReadonlyMap<string, readonly MatchRow[]>,
  settings: MatchSettings,
  idf: Idf,
): Promise<Set<string>> {
  const unlikely = rows.filter((row) => {
    if (row.override !== null || row.matchScore !== null) return false;
    const keys = matchKeys(row, settings);
    return (candidates.get(row.id) ?? []).every(
      (candidate) => judgePair(keys, matchKeys(candidate, settings), idf, settings, candidate.similarity ?? 0).probability < settings.threshold,
    );
  });
  const members = await groupMembers(
    db,
    unlikely.map((row) => row.groupId),
  );
  const own = new Set(unlikely.map((row) => `${row.groupId} ${row.id}`));
  const crowded = new Set(members.filter((member) => !own.has(`${member.groupId} ${member.id}`)).map((member) => member.groupId));
  return new Set(unlikely.filter((row) => !crowded.has(row.groupId)).map((row) => row.id));
}

/** Each record's candidates, to judge (three queries for all the records: the hits, then the rows they are). */
async function candidatesOf(db: DbOrTx, rows: readonly MatchRow[], settings: MatchSettings): Promise<Map<string, MatchRow[]>> {
  const hits = await findCandidates(
    db,
    rows.map((row) => ({ id: row.id, merchant: row.merchant, keys: lookupKeys(matchKeys(row, settings), settings), hasVector: row.hasVector })),
    settings.candidates.per_key,
    settings.candidates.neighbours,
  );
  const read = new Map((await readForMatching(db, [...new Set(hits.map((hit) => hit.id))])).map((row) => [row.id, row]));
  const out = new Map<string, MatchRow[]>();
  for (const hit of hits) {
    const row = read.get(hit.id);
    const list = out.get(hit.self) ?? [];
    if (row && hit.id !== hit.self && !list.some((candidate) => candidate.id === hit.id)) list.push({ ...row, similarity: hit.similarity });
    out.set(hit.self, list);
  }
  return out;
}

async function catalogIdf(db: DbOrTx, words: readonly string[]): Promise<Idf> {
  const { total, df } = await documentFrequencies(db, words);
  return (word) => Math.log((total + 1) / ((df.get(word) ?? 0) + 1)) + 1;
}

async function matchOne(
  db: DbOrTx,
  row: MatchRow,
  settings: MatchSettings,
  idf: Idf,
  evictions: number,
  candidates: readonly MatchRow[],
  joined: Set<string>,
): Promise<void> {
  const keys = matchKeys(row, settings);
  if (row.override === "split") return leave(db, row);
  if (row.override === "pin" && row.partnerId) {
    const [partner] = await readForMatching(db, [row.partnerId]);
    if (partner) return settle(db, row, partner.groupId, null);
  }
  for (const claim of await claims(db, keys, candidates, settings, idf)) {
    if (claim.groupId === row.groupId) return settle(db, row, row.groupId, claim.probability);
    const members = await groupMembers(db, [claim.groupId]);
    const rival = members.find((member) => member.merchant === row.merchant && member.id !== row.id);
    if (!rival) return join(db, row, claim, joined);
    // The rival's claim: its own score, or, for the record that founded the group, the strongest of the others'.
    const rivalScore = rival.matchScore ?? Math.max(0, ...members.map((member) => member.matchScore ?? 0));
    const pinned = (await readOverrides(db, [rival.id])).length > 0;
    if (pinned || evictions === 0 || rivalScore >= claim.probability) continue;
    await join(db, row, claim, joined);
    const [evicted] = await readForMatching(db, [rival.id]);
    if (!evicted) return;
    await setGroup(db, evicted.id, leaverGroupId(evicted.id, evicted.contentHash), null);
    const again = (await candidatesOf(db, [evicted], settings)).get(evicted.id) ?? [];
    return matchOne(db, { ...evicted, groupId: leaverGroupId(evicted.id, evicted.contentHash) }, settings, idf, evictions - 1, again, joined);
  }
  return leave(db, row);
}

/** The groups this record could join, likeliest first: its candidates judged (in the groups they are in now), the best pair per group kept. */
async function claims(db: DbOrTx, keys: MatchKeys, candidates: readonly MatchRow[], settings: MatchSettings, idf: Idf): Promise<Claim[]> {
  const groups = await currentGroups(
    db,
    candidates.map((candidate) => candidate.id),
  );
  const best = new Map<string, number>();
  for (const candidate of candidates) {
    const groupId = groups.get(candidate.id);
    if (groupId === undefined) continue;
    const { probability } = judgePair(keys, matchKeys(candidate, settings), idf, settings, candidate.similarity ?? 0);
    if (probability >= settings.threshold && probability > (best.get(groupId) ?? -1)) best.set(groupId, probability);
  }
  return [...best]
    .map(([groupId, probability]) => ({ groupId, probability }))
    .sort((a, b) => b.probability - a.probability || (a.groupId < b.groupId ? -1 : 1));
}

async function join(db: DbOrTx, row: MatchRow, claim: Claim, joined: Set<string>): Promise<void> {
  await setGroup(db, row.id, claim.groupId, claim.probability);
  joined.add(claim.groupId);
}

/**
 * The record's group and score, written only when they change: most records an import matches stay where they are
 * (alone), and an update of a product row is dear (a new row version, an entry in each of its indexes, the HNSW one
 * included).
 */
async function settle(db: DbOrTx, row: MatchRow, groupId: string, score: number | null): Promise<void> {
  // match_score is a real: the stored value is the probability to single precision (about 7 digits).
  const sameScore = score === null || row.matchScore === null ? score === row.matchScore : Math.abs(score - row.matchScore) < 1e-6;
  const same = row.groupId === groupId && sameScore;
  if (!same) await setGroup(db, row.id, groupId, score);
}

/** Alone: a record whose group others stay in takes a new id; one alone already keeps its own. */
async function leave(db: DbOrTx, row: MatchRow): Promise<void> {
  const members = await groupMembers(db, [row.groupId]);
  if (members.some((member) => member.id !== row.id)) await setGroup(db, row.id, leaverGroupId(row.id, row.contentHash), null);
  else await settle(db, row, row.groupId, null);
}

/** The keys a record is found by, stored with it by the write that stores it (`match_keys`). */
export function storedMatchKeys(record: MatchInput, settings: MatchSettings): string[] {
  return lookupKeys(matchKeys(record, settings), settings);
}
