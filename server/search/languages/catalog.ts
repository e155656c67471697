/**
 * The catalog's language: the commonest language of its products (`lang`), or `catalogFallback` (detection.json)
 * while none says. A product whose language is unknown is indexed in it (`search_lang`), and a query is read as it
 * unless its words say otherwise (detect.ts). Kept in `catalog_meta`, settled after every import and at start.
 */
import { and, asc, count, desc, isNotNull, isNull, ne } from "drizzle-orm";
import { bumpCatalogVersion, getMeta, setMeta } from "../../catalog/repository.js";
import type { DbOrTx } from "../../db/client.js";
import { products } from "../../db/schema.js";
import { languageData } from "./data.js";

const KEY = "catalog_language";

/**
 * The languages the catalog's products are indexed in, each holding at least `searched.share` of them, commonest first,
 * at most `searched.most` (detection.json): a query's words are searched in each, as each page is indexed in its own.
 */
export async function catalogLanguages(db: DbOrTx): Promise<string[]> {
  const { share, most } = languageData().detection.searched;
  const rows = await db
    .select({ lang: products.searchLang, n: count() })
    .from(products)
    .groupBy(products.searchLang)
    .orderBy(desc(count()), asc(products.searchLang));
  const total = rows.reduce((sum, row) => sum + row.n, 0);
  return rows
    .filter((row) => row.n >= share * total)
    .slice(0, most)
    .map((row) => row.lang);
}

/** The catalog's language as last settled. */
export async function catalogLanguage(db: DbOrTx): Promise<string> {
  return (await getMeta(db, KEY)) ?? languageData().detection.catalogFallback;
}

/**
 * Works the catalog's language out again, and indexes the products of unknown language that were indexed in another
 * (imported before most of the catalog said which it is in) in it. One grouped count; the rows only when it moved.
 */
export async function settleCatalogLanguage(db: DbOrTx): Promise<string> {
  const [commonest] = await db
    .select({ lang: products.lang, n: count() })
    .from(products)
    .where(isNotNull(products.lang))
    .groupBy(products.lang)
    .orderBy(desc(count()), asc(products.lang))
    .limit(1);
  const language = commonest?.lang ?? languageData().detection.catalogFallback;
  if ((await getMeta(db, KEY)) !== language) await setMeta(db, KEY, language);
  const moved = await db
    .update(products)
    .set({ searchLang: language })
    .where(and(isNull(products.lang), ne(products.searchLang, language)))
    .returning({ id: products.id });
  // Their words are stemmed anew: caches of the catalog's words (the reranker's frequencies) read them again.
  if (moved.length > 0) await bumpCatalogVersion(db);
  return language;
}
