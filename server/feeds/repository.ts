/** The queries an export pages through: ids a page at a time, then the records of a page. */
import { and, asc, eq, gt, inArray, isNull, max } from "drizzle-orm";
import { storedRecordColumns } from "../catalog/repository.js";
import type { DbOrTx } from "../db/client.js";
import { productChanges, products } from "../db/schema.js";
import type { RecordInput } from "./mapped.js";

/** Up to `limit` ids of products there (not gone), after `after` in id order, at `brandHost` when given. */
export async function productIdsAfter(db: DbOrTx, params: { after: string | null; brandHost?: string; limit: number }): Promise<string[]> {
  const rows = await db
    .select({ id: products.id })
    .from(products)
    .where(
      and(
        isNull(products.goneAt),
        params.brandHost === undefined ? undefined : eq(products.brandHost, params.brandHost),
        params.after === null ? undefined : gt(products.id, params.after),
      ),
    )
    .orderBy(asc(products.id))
    .limit(params.limit);
  return rows.map((row) => row.id);
}

/** Up to `limit` entries of the change feed after position `since`, at `brandHost` when given, in feed order. */
export async function changedAfter(
  db: DbOrTx,
  params: { since: number; brandHost?: string; limit: number },
): Promise<{ seq: number; id: string; gone: boolean }[]> {
  const rows = await db
    .select({ seq: productChanges.seq, id: products.id, goneAt: products.goneAt })
    .from(productChanges)
    .innerJoin(products, eq(products.id, productChanges.productId))
    .where(and(gt(productChanges.seq, params.since), params.brandHost === undefined ? undefined : eq(products.brandHost, params.brandHost)))
    .orderBy(asc(productChanges.seq))
    .limit(params.limit);
  return rows.map((row) => ({ seq: Number(row.seq), id: row.id, gone: row.goneAt !== null }));
}

/** The change feed's position now: what `--since` takes to follow on from an export. */
export async function feedHead(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ head: max(productChanges.seq) }).from(productChanges);
  return Number(row?.head ?? 0);
}

/** The records as stored (as imported, not as answers canonicalise them), raw data aside, in the order of `ids`. */
export async function storedRecords(db: DbOrTx, ids: readonly string[]): Promise<(RecordInput & { id: string })[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ ...storedRecordColumns, provenance: products.provenance })
    .from(products)
    .where(inArray(products.id, [...ids]));
  const byId = new Map(
    rows.map(({ offers, identifiers, category, provenance, ...row }) => [
      row.id,
      {
        ...row,
        ...(offers ? { offers } : {}),
        ...(identifiers ? { identifiers } : {}),
        ...(category ? { category } : {}),
        ...(provenance ? { provenance } : {}),
      },
    ]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** One record's raw data, read one record at a time: an export holds one record's at once (it may be megabytes). */
export async function rawDataOf(db: DbOrTx, id: string): Promise<RecordInput["raw_data"]> {
  const [row] = await db.select({ rawData: products.rawData }).from(products).where(eq(products.id, id)).limit(1);
  return row?.rawData ?? null;
}
