/**
 * A product's offers: every record of its group still there, one a merchant, cheapest in stock first (with search's
 * currency and availability filters); and products like it, outside its group: its nearest vectors.
 */
import { and, asc, cosineDistance, eq, inArray, isNotNull, isNull, ne, type SQL, sql } from "drizzle-orm";
import { AVAILABILITY_GROUPS, type AvailabilityFilter } from "../../shared/availability.js";
import { canonicalAmount } from "../../shared/currency.js";
import type { OffersResponse, PricesResponse, Product } from "../../shared/schemas/index.js";
import { priceSeries } from "../catalog/prices.js";
import { brandHost } from "../../shared/url.js";
import { findStoredByIds } from "../catalog/repository.js";
import type { Database } from "../db/client.js";
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

export function createGroupService(deps: { db: Database }): GroupService {
  const { db } = deps;
  return {
    async offers(query) {
      const [anchor] = await db
        .select({ groupId: products.groupId, goneAt: products.goneAt })
        .from(products)
        .where(eq(products.id, query.id))
        .limit(1);
      if (!anchor) return null;
      if (anchor.goneAt) throw goneError(`Product ${query.id}`, anchor.goneAt);
      const inGroup = and(eq(products.groupId, anchor.groupId), isNull(products.goneAt));
      const inStock = sql`(${products.availability} in (${sql.join(
        IN_STOCK.map((name) => sql`${name}`),
        sql`, `,
      )}))`;
      const [rows, [merchants]] = await Promise.all([
        db
          .select({
            id: products.id,
            merchant: products.brandHost,
            url: products.url,
            name: products.name,
            offers: products.offers,
            currency: products.currency,
            availability: products.availability,
            checkedAt: products.checkedAt,
          })
          .from(products)
          .where(and(inGroup, ...offerFilters(query)))
          .orderBy(
            sql`${inStock} desc nulls last`,
            asc(products.currency),
            sql`${products.priceMinor} asc nulls last`,
            asc(products.brandHost),
            asc(products.id),
          )
          .limit(query.limit),
        db
          .select({ n: sql<number>`count(distinct ${products.brandHost})::int` })
          .from(products)
          .where(inGroup),
      ]);
      return {
        product_group: { id: anchor.groupId, offers: Math.max(1, merchants?.n ?? 1) },
        offers: rows.map((row) => ({
          id: row.id,
          merchant: row.merchant,
          url: row.url,
          name: row.name,
          price: row.offers?.price && row.currency ? canonicalAmount(row.offers.price, row.currency) : (row.offers?.price ?? null),
          currency: row.currency ?? row.offers?.currency ?? null,
          availability: row.availability,
          checked_at: row.checkedAt.toISOString(),
        })),
      };
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
