/**
 * The catalog's language: the commonest language of its products (`lang`), or `catalogFallback` (detection.json)
 * while none says. A product whose language is unknown is indexed in it (`search_lang`), and a query is read as it
 * unless its words say otherwise (detect.ts). Kept in `catalog_meta` with how many products are indexed in each
 * language, settled after every import and by the backfill, so a search reads two rows, never counts the catalog; which
 * of those languages a query is searched in is read from the counts with detection.json as it is now.
 */
import { and, count, isNull, ne } from "drizzle-orm";
import { z } from "zod";
import { bumpCatalogVersion, getMeta, setMeta } from "../../catalog/repository.js";
import type { DbOrTx } from "../../db/client.js";
import { products } from "../../db/schema.js";
import { languageData } from "./data.js";

const KEY = "catalog_language";
/** The products indexed in each language (`search_lang`), as last settled. */
const INDEXED_KEY = "catalog_indexed_languages";
const IndexedSchema = z.record(z.string(), z.number().int().min(0));

/**
 * The languages the catalog's products are indexed in (products by `search_lang`), each holding at least
 * `searched.share` of them, commonest first, at most `searched.most` (detection.json): a query's words are searched in
 * each, as each page is indexed in its own.
 */
function searchedOf(indexedIn: ReadonlyMap<string, number>): string[] {
  const { share, most } = languageData().detection.searched;
  const total = [...indexedIn.values()].reduce((sum, n) => sum + n, 0);
  return [...indexedIn]
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1))
    .filter(([, n]) => n >= share * total)
    .slice(0, most)
    .map(([language]) => language);
}

/** The languages a query is searched in, as last settled; counted from the products where none was (a catalog older than it). */
export async function catalogLanguages(db: DbOrTx): Promise<string[]> {
  const kept = IndexedSchema.safeParse(JSON.parse((await getMeta(db, INDEXED_KEY)) ?? "null"));
  if (kept.success) return searchedOf(new Map(Object.entries(kept.data)));
  const rows = await db.select({ lang: products.searchLang, n: count() }).from(products).groupBy(products.searchLang);
  return searchedOf(new Map(rows.map((row) => [row.lang, row.n])));
}

/** The catalog's language as last settled. */
export async function catalogLanguage(db: DbOrTx): Promise<string> {
  return (await getMeta(db, KEY)) ?? languageData().detection.catalogFallback;
}

/**
 * Works the catalog's language out again, and the languages a query is searched in, from one grouped count; indexes the
 * products of unknown language that were indexed in another (imported before most of the catalog said which it is
 * in) in it, touching rows only when it moved.
 */
export async function settleCatalogLanguage(db: DbOrTx): Promise<string> {
  const rows = await db.select({ lang: products.lang, n: count() }).from(products).groupBy(products.lang);
  const known = rows.flatMap((row) => (row.lang === null ? [] : [[row.lang, row.n] as const]));
  const [commonest] = [...known].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
  const language = commonest?.[0] ?? languageData().detection.catalogFallback;
  if ((await getMeta(db, KEY)) !== language) await setMeta(db, KEY, language);
  // Once settled, a product of unknown language is indexed in the catalog's: `search_lang` is `lang`, else that.
  const unknown = rows.find((row) => row.lang === null)?.n ?? 0;
  const indexedIn = new Map(known);
  if (unknown > 0) indexedIn.set(language, (indexedIn.get(language) ?? 0) + unknown);
  const indexed = JSON.stringify(Object.fromEntries([...indexedIn].sort(([a], [b]) => (a < b ? -1 : 1))));
  if ((await getMeta(db, INDEXED_KEY)) !== indexed) await setMeta(db, INDEXED_KEY, indexed);
  const moved = await db
    .update(products)
    .set({ searchLang: language })
    .where(and(isNull(products.lang), ne(products.searchLang, language)))
    .returning({ id: products.id });
  // Their words are stemmed anew: caches of the catalog's words (the reranker's frequencies) read them again.
  if (moved.length > 0) await bumpCatalogVersion(db);
  return language;
}
