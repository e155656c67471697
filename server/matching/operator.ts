/**
 * What an operator does to matching: re-run it where its settings changed (`catalog rematch`, resumable: each record
 * notes the settings it was matched with), pin one record to another's group, or split one out for good. Pins and
 * splits are stored (`match_overrides`) and every later matching respects them.
 */
import { and, asc, count, eq, isNull, ne, or } from "drizzle-orm";
import { bumpCatalogVersion } from "../catalog/repository.js";
import type { Database, DbOrTx } from "../db/client.js";
import { products } from "../db/schema.js";
import { RequestError } from "../errors.js";
import { leaverGroupId } from "./groups.js";
import { groupMembers, readForMatching, setGroup, writeOverride } from "./repository.js";
import { matchProducts, storedMatchKeys } from "./service.js";
import { type MatchSettings, settingsFingerprint } from "./settings.js";

const stale = (fingerprint: string) => and(isNull(products.goneAt), or(isNull(products.matchedWith), ne(products.matchedWith, fingerprint)));

export async function rematch(
  db: Database,
  settings: MatchSettings,
  options: { batchSize?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ rematched: number }> {
  const fingerprint = settingsFingerprint(settings);
  const [row] = await db.select({ n: count() }).from(products).where(stale(fingerprint));
  const total = row?.n ?? 0;
  let done = 0;
  for (;;) {
    const batch = await readForMatching(
      db,
      (
        await db
          .select({ id: products.id })
          .from(products)
          .where(stale(fingerprint))
          .orderBy(asc(products.id))
          .limit(options.batchSize ?? 64)
      ).map((r) => r.id),
    );
    if (batch.length === 0) break;
    await db.transaction(async (tx) => {
      for (const record of batch) {
        await tx
          .update(products)
          .set({ matchKeys: storedMatchKeys(record, settings), matchedWith: fingerprint })
          .where(eq(products.id, record.id));
      }
    });
    await matchProducts(
      db,
      batch.map((record) => record.id),
      settings,
    );
    done += batch.length;
    options.onProgress?.(done, total);
  }
  return { rematched: done };
}

async function mustRead(db: DbOrTx, id: string) {
  const [record] = await readForMatching(db, [id]);
  if (!record) throw new RequestError("not_found", `No product with id ${id} (or its page was withdrawn).`);
  return record;
}

/** Keeps `id` in the group of `to`, now and in every later matching; refused when that group has a record of its merchant. */
export async function pin(db: Database, to: string, id: string): Promise<{ groupId: string }> {
  if (to === id) throw new RequestError("invalid_parameter", "A product cannot be pinned to itself.");
  return db.transaction(async (tx) => {
    const [anchor, record] = [await mustRead(tx, to), await mustRead(tx, id)];
    const rival = (await groupMembers(tx, [anchor.groupId])).find((member) => member.merchant === record.merchant && member.id !== id);
    if (rival)
      throw new RequestError("invalid_parameter", `The group of ${to} already holds ${rival.id} of ${record.merchant}: split ${rival.id} first.`);
    await writeOverride(tx, id, "pin", to);
    await setGroup(tx, id, anchor.groupId, null);
    await bumpCatalogVersion(tx);
    return { groupId: anchor.groupId };
  });
}

/** Takes `id` out of its group, now and in every later matching: it stays a group of its own. */
export async function split(db: Database, id: string): Promise<{ groupId: string }> {
  const record = await mustRead(db, id);
  return db.transaction(async (tx) => {
    await writeOverride(tx, id, "split", null);
    const others = (await groupMembers(tx, [record.groupId])).some((member) => member.id !== id);
    const groupId = others ? leaverGroupId(id, record.contentHash) : record.groupId;
    await setGroup(tx, id, groupId, null);
    await bumpCatalogVersion(tx);
    return { groupId };
  });
}
