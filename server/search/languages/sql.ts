/**
 * Full text in each language's text-search configuration (migration 0016: `search_config(code)`, accents folded, the
 * language's stemmer and stop words; `simple` for a language Postgres has none for).
 */
import { type SQL, sql } from "drizzle-orm";
import { products } from "../../db/schema.js";

/** A product's own configuration: the language its `search` document was indexed in. */
export function productConfig(): SQL {
  return sql`search_config(${products.searchLang})`;
}

/**
 * `text` (to_tsquery's syntax) read in each language, as one tsquery: a product matches when its document matches
 * the query as stemmed in one of them (a product is indexed in one language).
 */
export function tsqueryIn(languages: readonly string[], text: string): SQL {
  const each = [...new Set(languages)].map((language) => sql`to_tsquery(search_config(${language}), ${text})`);
  return each.length === 1 ? each[0]! : sql`(${sql.join(each, sql` || `)})`;
}
