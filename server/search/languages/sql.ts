/**
 * Full text in each language's text-search configuration (migration 0016: `search_config(code)`, accents folded, the
 * language's stemmer and stop words; `simple` for a language Postgres has none for).
 */
import { type SQL, sql } from "drizzle-orm";
import { products } from "../../db/schema.js";

/** The configurations migration 0016 made (search_config's list), by the ISO 639-1 codes they read. */
const CONFIGS = new Set("ar da de el en es fi fr ga hu id it lt ne nl no pt ro ru sv ta tr".split(" "));

/**
 * A language's configuration as a constant, as `search_config(code)` names it: the planner folds `to_tsquery` of a
 * constant configuration and text once, where a parameter's configuration it may read again per row.
 */
export function configOf(code: string): SQL {
  const name = code === "nb" || code === "nn" ? "no" : CONFIGS.has(code) ? code : "simple";
  return sql.raw(`'search_${name}'::regconfig`);
}

/** A product's own configuration: the language its `search` document was indexed in. */
export function productConfig(): SQL {
  return sql`search_config(${products.searchLang})`;
}

/**
 * `text` (to_tsquery's syntax) read in each language, as one tsquery: a product matches when its document matches
 * the query as stemmed in one of them (a product is indexed in one language).
 */
export function tsqueryIn(languages: readonly string[], text: string): SQL {
  const each = [...new Set(languages)].map((language) => sql`to_tsquery(${configOf(language)}, ${text})`);
  return each.length === 1 ? each[0]! : sql`(${sql.join(each, sql` || `)})`;
}
