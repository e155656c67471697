/**
 * Derives the structured columns (structured.ts) of rows an older derivation,
 * or none, wrote: after a migration adds them, or when DERIVED_VERSION moves.
 * Runs after every migration (cheap when nothing is left: one indexed read),
 * a batch per transaction, so an interrupted backfill resumes where it stopped;
 * once it wrote any, the catalog's language is settled (search/languages/catalog.ts).
 */
import { asc, lt, sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import { products } from "../db/schema.js";
import { deriveAttributes } from "./attributes/derive.js";
import { commitChanges } from "./repository.js";
import { DERIVED_VERSION, deriveStructured } from "./structured.js";
import { variantSkuKeys } from "./variants.js";
import { catalogLanguage, settleCatalogLanguage } from "../search/languages/catalog.js";
import { productLanguage } from "../search/languages/detect.js";

/** A category the page's JSON-LD states, for rows imported before the category had a column of its own. */
function jsonLdCategory(rawData: unknown): string | null {
  const ld = (rawData as { jsons?: { ld_json?: unknown } } | null)?.jsons?.ld_json;
  const category = typeof ld === "object" && ld !== null && "category" in ld ? ld.category : null;
  if (typeof category === "string" && category.trim()) return category.trim();
  if (Array.isArray(category) && category.every((part) => typeof part === "string")) return category.join(" > ");
  return null;
}

export async function backfillStructured(db: Database, options: { batchSize?: number } = {}): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  let done = 0;
  for (;;) {
    const rows = await db
      .select({
        id: products.id,
        offers: products.offers,
        identifiers: products.identifiers,
        category: products.category,
        brands: products.brands,
        name: products.name,
        desc: products.desc,
        rawData: products.rawData,
        url: products.url,
      })
      .from(products)
      .where(lt(products.derivedVersion, DERIVED_VERSION))
      .orderBy(asc(products.id))
      .limit(batchSize);
    if (rows.length === 0) {
      if (done > 0) await settleCatalogLanguage(db);
      return done;
    }
    const catalogLang = await catalogLanguage(db);
    const derived = rows.map((row) => {
      const category = row.category ?? jsonLdCategory(row.rawData);
      const structured = deriveStructured({ ...row, category });
      const attributes = deriveAttributes({ ...row, category });
      const lang = productLanguage({ ...row, category, raw_data: row.rawData });
      return {
        id: row.id,
        category,
        price_minor: structured.priceMinor,
        currency: structured.currency,
        price_bucket: structured.priceBucket,
        brand: structured.brand,
        list_price_minor: structured.listPriceMinor,
        availability: structured.availability,
        category_key: structured.categoryKey,
        brand_keys: structured.brandKeys,
        gtin14: structured.gtin14,
        sku_key: structured.skuKey,
        variant_sku_keys: variantSkuKeys(row.rawData),
        kind: attributes.kind,
        audience: attributes.audience,
        age_from_months: attributes.ageFromMonths,
        age_to_months: attributes.ageToMonths,
        species: attributes.species,
        size: attributes.size,
        colours: attributes.colours,
        materials: attributes.materials,
        lang,
        search_lang: lang ?? catalogLang,
      };
    });
    await db.transaction(async (tx) => {
      // One statement per batch: the derived values travel as one JSON array.
      await tx.execute(sql`
        update ${products} set
          category = v.category, price_minor = v.price_minor, currency = v.currency, price_bucket = v.price_bucket, brand = v.brand, list_price_minor = v.list_price_minor,
          availability = v.availability, category_key = v.category_key,
          brand_keys = array(select jsonb_array_elements_text(v.brand_keys)), gtin14 = v.gtin14, sku_key = v.sku_key,
          variant_sku_keys = array(select jsonb_array_elements_text(v.variant_sku_keys)),
          kind = v.kind, audience = v.audience, age_from_months = v.age_from_months, age_to_months = v.age_to_months,
          species = array(select jsonb_array_elements_text(v.species)), size = v.size,
          colours = array(select jsonb_array_elements_text(v.colours)), materials = array(select jsonb_array_elements_text(v.materials)),
          lang = v.lang, search_lang = v.search_lang,
          derived_version = ${DERIVED_VERSION}
        from jsonb_to_recordset(${JSON.stringify(derived)}::jsonb) as v(
          id text, category text, price_minor bigint, currency text, price_bucket smallint, brand text, list_price_minor bigint, availability text,
          category_key text, brand_keys jsonb, gtin14 text, sku_key text, variant_sku_keys jsonb, kind text, audience text,
          age_from_months smallint, age_to_months smallint, species jsonb, size text, colours jsonb, materials jsonb, lang text,
          search_lang text)
        where ${products.id} = v.id`);
      // A category read from old rows' JSON-LD changes their records: followers of the change feed hear of it.
      await commitChanges(
        tx,
        derived.filter((row, index) => row.category !== rows[index]!.category).map((row) => row.id),
      );
    });
    done += rows.length;
  }
}
