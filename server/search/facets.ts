/**
 * Facet counts over a matched set, in SQL over the narrow `product_facets`
 * rows: every product passing the filters when browsing, or the products a
 * search matched (by id). Brands (a record's first); categories with each of
 * their ancestors; availability by schema.org name; prices in buckets per
 * currency (never converted; buckets from catalog/structured.ts); audience, and
 * colour and material families (a product of two counts for each).
 */
import { type SQL, sql } from "drizzle-orm";
import { FACETS, type Facet, type Facets } from "../../shared/schemas/index.js";
import { LruCache } from "../cache.js";
import { CATEGORY_SEPARATOR, PRICE_BOUNDS } from "../catalog/structured.js";
import type { Database } from "../db/client.js";
import { productFacets } from "../db/schema.js";

/** The most values a facet lists (the most frequent first). */
const FACET_VALUES = 50;

interface FacetRow {
  set: number;
  brand: string | null;
  categoryKey: string | null;
  category: string | null;
  availability: string | null;
  currency: string | null;
  bucket: number | null;
  audience: string | null;
  count: number;
}

/** Each path counts for itself and for every ancestor ("Outdoor > Tents" counts for "Outdoor" too). */
function withAncestors(rows: readonly FacetRow[]) {
  const totals = new Map<string, { value: string; count: number }>();
  for (const row of rows) {
    if (!row.categoryKey || !row.category) continue;
    const keys = row.categoryKey.split(CATEGORY_SEPARATOR);
    const values = row.category.split(">").map((segment) => segment.trim());
    for (let depth = 1; depth <= keys.length; depth++) {
      const key = keys.slice(0, depth).join(CATEGORY_SEPARATOR);
      const entry = totals.get(key) ?? { value: values.slice(0, depth).join(CATEGORY_SEPARATOR), count: 0 };
      entry.count += row.count;
      totals.set(key, entry);
    }
  }
  return [...totals.values()].sort(byCount).slice(0, FACET_VALUES * 2);
}

const byCount = (a: { value: string; count: number }, b: { value: string; count: number }) => b.count - a.count || (a.value < b.value ? -1 : 1);

/**
 * The asked facets over the `product_facets` rows `where` selects, in one scan of them: a GROUPING SETS query counts
 * brands, category paths, availability and price buckets side by side.
 */
export async function facetCounts(db: Database, where: SQL | undefined, asked: readonly Facet[]): Promise<Facets> {
  const wanted = new Set(asked);
  const f = productFacets;
  const rows = await db
    .select({
      // Which grouping set a row counts: bit 4 brand, 3 category, 2 availability, 1 price, 0 audience (a set's own bits are 0).
      set: sql<number>`grouping(brand, category_key, availability, currency, audience)::int`,
      brand: sql<string | null>`brand`,
      categoryKey: sql<string | null>`category_key`,
      category: sql<string | null>`min(category)`,
      availability: sql<string | null>`availability`,
      currency: sql<string | null>`currency`,
      bucket: sql<number | null>`bucket`,
      audience: sql<string | null>`audience`,
      count: sql<number>`count(*)::int`,
    })
    .from(
      sql`(select ${f.brand} as brand, ${f.categoryKey} as category_key, ${f.category} as category, ${f.availability} as availability,
          ${f.currency} as currency, ${f.priceBucket} as bucket, ${f.audience} as audience
          from ${f} ${where ? sql`where ${where}` : sql``}) as matched`,
    )
    // All five sets, whichever were asked: the scan is the cost, and GROUPING() needs every column grouped somewhere.
    .groupBy(sql`grouping sets ((brand), (category_key), (availability), (currency, bucket), (audience))`);
  const of = (set: number) => rows.filter((row) => row.set === set);
  const facets: Facets = {};
  const values = (set: number, value: (row: FacetRow) => string | null) =>
    of(set)
      .flatMap((row) => {
        const named = value(row);
        return named ? [{ value: named, count: row.count }] : [];
      })
      .sort(byCount);
  if (wanted.has("brand")) facets.brand = values(0b01111, (row) => row.brand).slice(0, FACET_VALUES);
  if (wanted.has("category")) facets.category = withAncestors(of(0b10111));
  if (wanted.has("availability")) facets.availability = values(0b11011, (row) => row.availability);
  if (wanted.has("audience")) facets.audience = values(0b11110, (row) => row.audience);
  if (wanted.has("colour") || wanted.has("material")) Object.assign(facets, await familyCounts(db, where, wanted));
  if (wanted.has("price")) {
    facets.price = of(0b11101)
      .flatMap((row) =>
        row.currency && row.bucket !== null
          ? [
              {
                currency: row.currency,
                min: String(row.bucket === 0 ? 0 : PRICE_BOUNDS[row.bucket - 1]!),
                max: row.bucket >= PRICE_BOUNDS.length ? null : String(PRICE_BOUNDS[row.bucket]!),
                count: row.count,
              },
            ]
          : [],
      )
      .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : Number(a.min) - Number(b.min)));
  }
  return facets;
}

/**
 * Colours and materials, a product counted once for each of its families: a second scan of the same rows, unnesting the
 * arrays, only when asked.
 */
async function familyCounts(db: Database, where: SQL | undefined, wanted: ReadonlySet<Facet>): Promise<Pick<Facets, "colour" | "material">> {
  const f = productFacets;
  const rows = await db
    .select({ facet: sql<"colour" | "material">`facet`, value: sql<string>`value`, count: sql<number>`count(*)::int` })
    .from(
      sql`(select 'colour' as facet, unnest(${f.colours}) as value from ${f} ${where ? sql`where ${where}` : sql``}
          union all select 'material', unnest(${f.materials}) from ${f} ${where ? sql`where ${where}` : sql``}) as families`,
    )
    .groupBy(sql`facet, value`);
  const counts: Pick<Facets, "colour" | "material"> = {};
  for (const facet of ["colour", "material"] as const) {
    if (!wanted.has(facet)) continue;
    counts[facet] = rows
      .filter((row) => row.facet === facet)
      .map((row) => ({ value: row.value, count: row.count }))
      .sort(byCount)
      .slice(0, FACET_VALUES);
  }
  return counts;
}

/** What facets count: the rows `where` selects; `key` names that set when it depends only on the filters (a browse), so its counts can be kept. */
export interface FacetScope {
  where: SQL | undefined;
  key?: string;
}

/** Filter sets whose counts are kept. */
const KEPT_SCOPES = 1_000;
/** Even when the catalog's version cannot be read (the database is down), kept counts are not older than this. */
const KEPT_AT_MOST_MS = 60_000;

/**
 * facetCounts with a memory: a browse's facets depend on its filters and the catalog alone (not on its sort or
 * page), and counting a category of thousands is the one costly part of browsing, so counts are kept per
 * (catalog version, filters): every page of a walk, and every agent asking for the same category, reads them from
 * memory. `version` is the catalog's version as the product cache last saw it (CatalogService.version, synced
 * every second by the server), so kept counts change when cached products do; before it is known nothing is
 * kept. A search's scope (its matched ids) has no key and is counted each time.
 */
export function facetCounter(
  db: () => Database,
  version: () => string | null | undefined,
): (scope: FacetScope, asked: readonly Facet[]) => Promise<Facets> {
  const kept = new LruCache<string, Promise<Facets>>(KEPT_SCOPES, { ttlMs: KEPT_AT_MOST_MS });
  const pick = (all: Facets, asked: readonly Facet[]): Facets =>
    Object.fromEntries(asked.flatMap((facet) => (all[facet] ? [[facet, all[facet]]] : [])));
  return async (scope, asked) => {
    const current = version();
    if (scope.key === undefined || current === undefined) return facetCounts(db(), scope.where, asked);
    const key = `${current}\u0000${scope.key}`;
    let all = kept.get(key);
    if (!all) {
      // Every facet at once: one scan counts them all, and the next caller may ask for others.
      all = facetCounts(db(), scope.where, FACETS);
      kept.set(key, all);
      // A failed count is not kept: the next caller counts again.
      all.catch(() => kept.delete(key));
    }
    return pick(await all, asked);
  };
}
