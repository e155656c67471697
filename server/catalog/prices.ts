/**
 * Price history (issue 50): each record's price and availability as runs of one state (table `price_history`). An
 * import or refresh that changes a record's state closes the run in effect and opens one; a state seen again unchanged
 * writes nothing, so runs where nothing changed stay one row.
 */
import { and, asc, eq, gt, isNull, or, sql } from "drizzle-orm";
import { fromMinorUnits } from "../../shared/currency.js";
import { equalsAny } from "../db/equals-any.js";
import type { DbOrTx } from "../db/client.js";
import { priceHistory } from "../db/schema.js";

export interface PriceState {
  id: string;
  priceMinor: number | null;
  currency: string | null;
  availability: string | null;
}

const same = (a: Omit<PriceState, "id">, b: Omit<PriceState, "id">) =>
  a.priceMinor === b.priceMinor && a.currency === b.currency && a.availability === b.availability;

/** In the transaction that writes the records: a run opened for each whose state is not the one in effect. */
export async function recordPriceStates(db: DbOrTx, states: readonly PriceState[]): Promise<void> {
  if (states.length === 0) return;
  const current = await db
    .select({
      id: priceHistory.productId,
      priceMinor: priceHistory.priceMinor,
      currency: priceHistory.currency,
      availability: priceHistory.availability,
    })
    .from(priceHistory)
    .where(
      and(
        equalsAny(
          priceHistory.productId,
          states.map((state) => state.id),
        ),
        isNull(priceHistory.until),
      ),
    );
  const now = new Map(current.map((row) => [row.id, row]));
  const changed = states.filter((state) => {
    const before = now.get(state.id);
    return !before || !same(before, state);
  });
  if (changed.length === 0) return;
  const ids = changed.map((state) => state.id);
  await db
    .update(priceHistory)
    .set({ until: sql`now()` })
    .where(and(equalsAny(priceHistory.productId, ids), isNull(priceHistory.until)));
  // The runs as one JSON parameter: drizzle's values() built a parameter and a `now()` a field (catalog/bulk.ts).
  const runs = changed.map(({ id, priceMinor, currency, availability }) => ({ id, price_minor: priceMinor, currency, availability }));
  await db.execute(sql`
    insert into ${priceHistory} (product_id, since, price_minor, currency, availability)
    select v.id, now(), v.price_minor, v.currency, v.availability
    from json_to_recordset(${JSON.stringify(runs)}::json) as v(id text, price_minor bigint, currency text, availability text)
    -- The same record twice in one transaction (one instant): the later state is the run's.
    on conflict (product_id, since) do update
      set price_minor = excluded.price_minor, currency = excluded.currency, availability = excluded.availability, until = null`);
}

/**
 * The lowest prices in the record's currency over the last 30 and the last 90 days (runs in effect at any time since),
 * in minor units, as "low30 low90" (an absent one empty): a column of the record's select, one correlated pass over the
 * record's history by its primary key (a subquery each cost a search's 40 candidates twice the time).
 */
export function lowestPrices() {
  return sql<string>`(select format('%s %s', min(h.price_minor) filter (where h.until is null or h.until > now() - interval '30 days'), min(h.price_minor)) from ${priceHistory} h where h.product_id = "products"."id" and h.currency = "products"."currency" and (h.until is null or h.until > now() - interval '90 days'))`;
}

export interface PricePoint {
  since: string;
  until: string | null;
  price: string | null;
  currency: string | null;
  availability: string | null;
}

/** The record's runs in effect at any time from `since` on, oldest first. */
export async function priceSeries(db: DbOrTx, id: string, since: Date): Promise<PricePoint[]> {
  const rows = await db
    .select()
    .from(priceHistory)
    .where(and(eq(priceHistory.productId, id), or(isNull(priceHistory.until), gt(priceHistory.until, since))))
    .orderBy(asc(priceHistory.since));
  return rows.map((row) => ({
    since: row.since.toISOString(),
    until: row.until?.toISOString() ?? null,
    price: row.priceMinor !== null && row.currency ? fromMinorUnits(row.priceMinor, row.currency) : null,
    currency: row.currency,
    availability: row.availability,
  }));
}
