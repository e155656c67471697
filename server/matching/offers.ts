/**
 * A product's offers: every record of its group still there, one a merchant, cheapest in stock first (with search's
 * currency and availability filters); and products like it, outside its group: its nearest vectors.
 */
import { and, asc, cosineDistance, eq, inArray, isNotNull, isNull, ne, type SQL, sql } from "drizzle-orm";
import { AVAILABILITY_GROUPS, type AvailabilityFilter } from "../../shared/availability.js";
import { canonicalAmount, fromMinorUnits } from "../../shared/currency.js";
import type { Offer, OffersResponse, PricesResponse, Product } from "../../shared/schemas/index.js";
import { priceSeries } from "../catalog/prices.js";
import { brandHost } from "../../shared/url.js";
import { findStoredByIds } from "../catalog/repository.js";
import type { Database, DbOrTx } from "../db/client.js";
import { products } from "../db/schema.js";
import { goneError } from "../errors.js";

export interface OffersQuery {
  id: string;
  currency?: string | undefined;
  availability?: readonly AvailabilityFilter[] | undefined;
  limit: number;
}

export interface SimilarQuery {
  id: string;
  brand_url?: string | undefined;
  currency?: string | undefined;
  availability?: readonly AvailabilityFilter[] | undefined;
  limit: number;
  withRawData: boolean;
}

export interface GroupService {
  /** The record's price history from `since`, with its lows; null for an unknown id. */
  prices(id: string, since: Date): Promise<PricesResponse | null>;
  /** Null when the catalog has no record with that id; a `gone` error when its page was withdrawn. */
  offers(query: OffersQuery): Promise<OffersResponse | null>;
  /** Each group's offers, in the order `offers` answers them, at most `limit` a group: one query for all. */
  offersOfGroups(groupIds: readonly string[], limit: number): Promise<Map<string, Offer[]>>;
  /** By GTIN-14: the offers of every group that holds a record with it (what a GTIN lookup answers), at most `limit` each. */
  offersByGtin(gtin14s: readonly string[], limit: number): Promise<Map<string, Offer[]>>;
  /** Products like this one (nearest vectors), none of its group, nearest first; null for an unknown id. */
  similar(query: SimilarQuery): Promise<Product[] | null>;
}

function offerFilters(query: { currency?: string | undefined; availability?: readonly AvailabilityFilter[] | undefined }): SQL[] {
  const filters: SQL[] = [];
  if (query.currency) filters.push(eq(products.currency, query.currency));
  if (query.availability)
    filters.push(inArray(products.availability, [...new Set(query.availability.flatMap((group) => AVAILABILITY_GROUPS[group]))]));
  return filters;
}

const IN_STOCK: readonly string[] = AVAILABILITY_GROUPS.in_stock;

const offerColumns = {
  id: products.id,
  groupId: products.groupId,
  merchant: products.brandHost,
  url: products.url,
  name: products.name,
  offers: products.offers,
  currency: products.currency,
  availability: products.availability,
  checkedAt: products.checkedAt,
};

/** In stock first, then the cheapest within a currency, then by merchant. */
const offerOrder = [
  sql`(${products.availability} in (${sql.join(
    IN_STOCK.map((name) => sql`${name}`),
    sql`, `,
  )})) desc nulls last`,
  asc(products.currency),
  sql`${products.priceMinor} asc nulls last`,
  asc(products.brandHost),
  asc(products.id),
];

interface OfferRow {
  id: string;
  merchant: string;
  url: string;
  name: string;
  offers: Product["offers"] | null;
  currency: string | null;
  availability: string | null;
  checkedAt: Date;
}

function offerOf(row: OfferRow): Offer {
  const { price } = row.offers ?? {};
  return {
    id: row.id,
    merchant: row.merchant,
    url: row.url,
    name: row.name,
    price: price && row.currency ? canonicalAmount(price, row.currency) : (price ?? null),
    currency: row.currency ?? row.offers?.currency ?? null,
    availability: row.availability,
    checked_at: row.checkedAt.toISOString(),
  };
}

/** Each group's offers (its records still there), in offer order, at most `limit` each: one query for all of them. */
async function offersOfGroups(db: DbOrTx, groupIds: readonly string[], limit: number): Promise<Map<string, Offer[]>> {
  const out = new Map<string, Offer[]>();
  if (groupIds.length === 0) return out;
  const rows = await db
    .select(offerColumns)
    .from(products)
    .where(and(inArray(products.groupId, [...new Set(groupIds)]), isNull(products.goneAt)))
    .orderBy(...offerOrder);
  for (const row of rows) {
    const offers = out.get(row.groupId) ?? [];
    if (offers.length < limit) offers.push(offerOf(row));
    out.set(row.groupId, offers);
  }
  return out;
}

export function createGroupService(deps: { db: Database }): GroupService {
  const { db } = deps;
  return {
    async offers(query) {
      const [anchor] = await db
        .select({ groupId: products.groupId, goneAt: products.goneAt, currency: products.currency })
        .from(products)
        .where(eq(products.id, query.id))
        .limit(1);
      if (!anchor) return null;
      if (anchor.goneAt) throw goneError(`Product ${query.id}`, anchor.goneAt);
      const inGroup = and(eq(products.groupId, anchor.groupId), isNull(products.goneAt));
      const inCurrency = sql`${products.currency} = ${anchor.currency}`;
      const [rows, [group]] = await Promise.all([
        db
          .select(offerColumns)
          .from(products)
          .where(and(inGroup, ...offerFilters(query)))
          .orderBy(...offerOrder)
          .limit(query.limit),
        db
          .select({
            n: sql<number>`count(distinct ${products.brandHost})::int`,
            min: sql<string | null>`(min(${products.priceMinor}) filter (where ${inCurrency}))::text`,
            max: sql<string | null>`(max(${products.priceMinor}) filter (where ${inCurrency}))::text`,
          })
          .from(products)
          .where(inGroup),
      ]);
      const low = anchor.currency && group?.min != null ? fromMinorUnits(Number(group.min), anchor.currency) : null;
      const high = anchor.currency && group?.max != null ? fromMinorUnits(Number(group.max), anchor.currency) : null;
      return {
        product_group: {
          id: anchor.groupId,
          offers: Math.max(1, group?.n ?? 1),
          ...(anchor.currency && low !== null && high !== null ? { price_range: { min: low, max: high, currency: anchor.currency } } : {}),
        },
        offers: rows.map(offerOf),
      };
    },

    offersOfGroups: (groupIds, limit) => offersOfGroups(db, groupIds, limit),

    async offersByGtin(gtin14s, limit) {
      const out = new Map<string, Offer[]>();
      if (gtin14s.length === 0) return out;
      // The groups holding a record with each GTIN (usually one), and every record of those groups.
      const holders = db
        .selectDistinct({ gtin14: sql<string>`${products.gtin14}`.as("holder_gtin14"), groupId: sql<string>`${products.groupId}`.as("holder_group") })
        .from(products)
        .where(and(inArray(products.gtin14, [...new Set(gtin14s)]), isNull(products.goneAt)))
        .as("holders");
      const rows = await db
        .select({ ...offerColumns, key: holders.gtin14 })
        .from(products)
        .innerJoin(holders, eq(holders.groupId, products.groupId))
        .where(isNull(products.goneAt))
        .orderBy(holders.gtin14, ...offerOrder);
      for (const row of rows) {
        const offers = out.get(row.key) ?? [];
        if (offers.length < limit) offers.push(offerOf(row));
        out.set(row.key, offers);
      }
      return out;
    },

    async prices(id, since) {
      const [product] = await findStoredByIds(db, [id], false);
      if (!product) return null;
      if (product.goneAt) throw goneError(`Product ${id}`, product.goneAt);
      const { price_low_30d, price_low_90d } = product.product;
      return { id, price_low_30d, price_low_90d, series: await priceSeries(db, id, since) };
    },

    async similar(query) {
      const [anchor] = await db
        .select({ groupId: products.groupId, goneAt: products.goneAt, embedding: products.embedding })
        .from(products)
        .where(eq(products.id, query.id))
        .limit(1);
      if (!anchor) return null;
      if (anchor.goneAt) throw goneError(`Product ${query.id}`, anchor.goneAt);
      if (!anchor.embedding) return [];
      const host = query.brand_url ? brandHost(query.brand_url) : null;
      const rows = await db
        .select({ id: products.id })
        .from(products)
        .where(
          and(
            ne(products.groupId, anchor.groupId),
            isNull(products.goneAt),
            isNotNull(products.embedding),
            host ? eq(products.brandHost, host) : undefined,
            ...offerFilters(query),
          ),
        )
        .orderBy(cosineDistance(products.embedding, anchor.embedding), asc(products.id))
        .limit(query.limit);
      const stored = new Map(
        (
          await findStoredByIds(
            db,
            rows.map((row) => row.id),
            query.withRawData,
          )
        ).map((s) => [s.product.id, s.product]),
      );
      return rows.flatMap((row) => stored.get(row.id) ?? []);
    },
  };
}
