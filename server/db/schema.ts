/**
 * The database schema as code. drizzle-kit generates `drizzle/` from this file;
 * the first migration (custom) creates the `vector` extension.
 */
import { sql, type SQL } from "drizzle-orm";
import {
  bigint,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  smallint,
  text,
  timestamp,
  halfvec,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { Identifiers, Media, Offers, Provenance, RawData } from "../../shared/schemas/index.js";

/** Dimensions of the stored vectors; fixed by the embedding model the catalog was built with. */
export const EMBEDDING_DIMENSIONS = 512;

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

export const products = pgTable(
  "products",
  {
    id: text("id").primaryKey(),
    url: text("url").notNull(),
    /** Normalised URL (see shared/url.ts `productUrlKey`): what `?url=` lookups match. */
    urlKey: text("url_key").notNull(),
    /** Host of `url` without `www.`: what `brand_url` scopes match. */
    brandHost: text("brand_host").notNull(),
    name: text("name").notNull(),
    desc: text("desc").notNull().default(""),
    media: jsonb("media").$type<Media[]>().notNull().default([]),
    brands: jsonb("brands").$type<string[]>().notNull().default([]),
    priceLabel: text("price_label").notNull().default(""),
    rawData: jsonb("raw_data").$type<RawData>(),
    offers: jsonb("offers").$type<Offers>(),
    identifiers: jsonb("identifiers").$type<Identifiers>(),
    /** Per field, the layer it was read from and the extractor's confidence (see docs/extraction.md). */
    provenance: jsonb("provenance").$type<Provenance>(),
    /** The category path as the record gives it, segments joined by " > ". */
    category: text("category"),
    // What shoppers filter and sort on, derived from the record on import (catalog/structured.ts); `derived_version`
    // says which version of that derivation wrote them, so a newer one backfills older rows.
    /** The price in integer minor units of `currency` (cents; yen; fils). */
    priceMinor: bigint("price_minor", { mode: "number" }),
    /** ISO 4217. */
    currency: text("currency"),
    /** The price's bucket for the price facet (catalog/structured.ts priceBucket). */
    priceBucket: smallint("price_bucket"),
    /** The first brand as given: what the brand facet counts. */
    brand: text("brand"),
    /** The crossed-out or list price, in minor units of `currency`. */
    listPriceMinor: bigint("list_price_minor", { mode: "number" }),
    /** schema.org availability name. */
    availability: text("availability"),
    /** `category` lower-cased and spaced the one way, for prefix filters by whole segments. */
    categoryKey: text("category_key"),
    /** The brand names lower-cased, for brand filters. */
    brandKeys: text("brand_keys").array().notNull().default(sql`'{}'::text[]`),
    /** The GTIN in its 14-digit form (check digit verified), for lookups by any of its forms. */
    gtin14: text("gtin14"),
    /** The SKU lower-cased, for lookups. */
    skuKey: text("sku_key"),
    /**
     * The SKUs of the page's other variants (its JSON-LD ProductGroup's `hasVariant`, catalog/variants.ts), lower-cased:
     * a lookup by the SKU of a variant the page does not select finds the product (`sku_key` is the selected one's).
     */
    variantSkuKeys: text("variant_sku_keys").array().notNull().default(sql`'{}'::text[]`),
    // What a product is and whom it is for, derived once on import from its structured data, category and name
    // (catalog/attributes.ts); filterable and facetable. Null or empty when the record does not say.
    /** The kind of product (its head noun, "jacket", "kettle"). */
    kind: text("kind"),
    /** Whom it is made for: women, men, unisex, girls, boys, kids or baby (catalog/attributes/en/audiences.json). */
    audience: text("audience"),
    /** The ages it suits in months, `age_to_months` excluded; null where unstated or unbounded. */
    ageFromMonths: smallint("age_from_months"),
    ageToMonths: smallint("age_to_months"),
    /** The animals it is made for (dog, cat). */
    species: text("species").array().notNull().default(sql`'{}'::text[]`),
    /** A size the name states (a bed size: queen, king). */
    size: text("size"),
    /** Colour families (catalog/attributes/en/colours.json): "Storm Grey" and "Charcoal" are grey. */
    colours: text("colours").array().notNull().default(sql`'{}'::text[]`),
    /** Material families (catalog/attributes/en/materials.json): "Merino" is wool, "Stainless" steel. */
    materials: text("materials").array().notNull().default(sql`'{}'::text[]`),
    /**
     * The page's language (ISO 639-1) as it declares it (JSON-LD `inLanguage`, `<body lang>`, a locale in the URL's path)
     * or as its text shows it (search/languages/detect.ts); null when neither says.
     */
    lang: text("lang"),
    /**
     * The language whose text-search configuration indexes `search` (migration 0016, `search_config`): `lang`, else the
     * catalog's language (the commonest `lang`; search/languages/catalog.ts), so a record too short to tell is read as
     * its neighbours are.
     */
    searchLang: text("search_lang").notNull().default("simple"),
    derivedVersion: smallint("derived_version").notNull().default(0),
    /** SHA-256 of the record as imported: an unchanged re-import is skipped, with no re-embedding. */
    contentHash: text("content_hash").notNull(),
    /**
     * Half precision on Postgres (pgvector's `halfvec`, 2 bytes a dimension): half the index of `vector`, the same dev
     * nDCG@10 (docs/decisions/0017-halfvec.md); migration 0018 and db/halfvec.ts convert a catalog stored before.
     * PGlite keeps `vector` (its WASM build converts half floats in software: slower inserts and searches); both map
     * to the same number[] and take the same `vector` query (search/retrieve.ts).
     */
    embedding: halfvec("embedding", { dimensions: EMBEDDING_DIMENSIONS }),
    embeddingModel: text("embedding_model"),
    /**
     * Weighted full-text document: name (A) over brands (B) over description (C) over the category (D), whose segments
     * name kinds ("Kitchen > Cookware > Pans"), so that "coffee" finds the coffees whose pages never say the word and
     * "cookware" finds the pans. A segment joining several ("Coffee & Tea", "Kitchen, Dining") is left out unless it is
     * the last: "coffee" would find every tea. `categoryHeads` (search/product-type.ts) reads the same segments. A slash
     * joins no words: Postgres's parser reads "Refrigerator/Freezer" as one file path, which "refrigerator" never
     * found, so the name and description are read with slashes as spaces, as a query's words are. Stemmed and stopped
     * in the product's language, accents folded (`search_config(search_lang)`, migration 0016; docs/search/languages.md).
     */
    search: tsvector("search")
      .notNull()
      .generatedAlwaysAs(
        (): SQL =>
          sql`setweight(to_tsvector(search_config(${products.searchLang}), replace(${products.name}, '/', ' ')), 'A') || setweight(to_tsvector(search_config(${products.searchLang}), ${products.brands}), 'B') || setweight(to_tsvector(search_config(${products.searchLang}), replace(${products.desc}, '/', ' ')), 'C') || setweight(to_tsvector(search_config(${products.searchLang}), regexp_replace(coalesce(${products.category}, ''), '[^>]*(&|,|/|\\mand\\M)[^>]*>', ' ', 'g')), 'D')`,
      ),
    // Freshness (see docs/operations.md, "Keeping the catalog fresh"). `updated_at` (in `timestamps`) moves only when the
    // record's content changes; these say when the page was read and confirmed, and whether it is still there.
    /** When the stored record's page was last read whole: fetched (answered 200) or imported from a file. */
    fetchedAt: timestamp("fetched_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the record was last confirmed against its page: a fetch answered 200 or 304, or an import. */
    checkedAt: timestamp("checked_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the page was found withdrawn (404 or 410); null while it is there. A gone product is in no search or lookup. */
    goneAt: timestamp("gone_at", { withTimezone: true }),
    /** The URL the page was last fetched from, after redirects; null for a product only ever imported from files. */
    fetchUrl: text("fetch_url"),
    /** `fetch_url` normalised (shared/url.ts `productUrlKey`): how a URL to fetch finds the product it already is. */
    fetchKey: text("fetch_key"),
    /** The page's validators from its last 200, sent back as If-None-Match and If-Modified-Since. */
    etag: text("etag"),
    lastModified: text("last_modified"),
    // Matching (server/matching, docs/matching.md): the records of one product across merchants share a group.
    /** The product group: kept by every record that stays in it, so the id is stable while the group lasts. */
    groupId: text("group_id").notNull(),
    /** What the record is found by as a match candidate: `gtin:<gtin14>` and `code:<model code>` (matching/keys.ts). */
    matchKeys: text("match_keys").array().notNull().default(sql`'{}'::text[]`),
    /** How likely the record is the same product as the group it joined; null when it founded its group or was pinned. */
    matchScore: real("match_score"),
    /** The fingerprint of the matching settings the record was last matched with: `catalog rematch` does the others. */
    matchedWith: text("matched_with"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("products_url_key_idx").on(t.urlKey),
    index("products_brand_host_idx").on(t.brandHost),
    index("products_search_idx").using("gin", t.search),
    index("products_embedding_idx").using("hnsw", t.embedding.op("halfvec_cosine_ops")),
    index("products_price_idx").on(t.currency, t.priceMinor, t.id),
    index("products_category_idx").on(t.categoryKey.op("text_pattern_ops")),
    index("products_brand_keys_idx").using("gin", t.brandKeys),
    index("products_availability_idx").on(t.availability),
    index("products_created_idx").on(t.createdAt, t.id),
    index("products_gtin14_idx").on(t.gtin14),
    index("products_sku_idx").on(t.skuKey),
    index("products_variant_sku_idx").using("gin", t.variantSkuKeys),
    index("products_derived_idx").on(t.derivedVersion),
    index("products_checked_idx").on(t.checkedAt, t.id),
    index("products_updated_idx").on(t.updatedAt),
    index("products_fetch_key_idx").on(t.fetchKey),
    index("products_colours_idx").using("gin", t.colours),
    index("products_group_idx").on(t.groupId),
    index("products_match_keys_idx").using("gin", t.matchKeys),
  ],
);

/**
 * Each record's price and availability over time (issue 50): a row per run of one state, from when an import or a
 * refresh first stored it (`since`) to when a different one replaced it (`until`; null for the state now). Runs where
 * nothing changed are one row, so the history grows with changes, not with refreshes.
 */
export const priceHistory = pgTable(
  "price_history",
  {
    productId: text("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    since: timestamp("since", { withTimezone: true }).notNull(),
    until: timestamp("until", { withTimezone: true }),
    priceMinor: bigint("price_minor", { mode: "number" }),
    currency: text("currency"),
    availability: text("availability"),
  },
  (t) => [primaryKey({ columns: [t.productId, t.since] })],
);

/**
 * An operator's word on a match (`catalog match pin A B`, `catalog match split A`), kept so that later matching and
 * `catalog rematch` respect it: `pin` keeps the product in the group of `partner_id`; `split` keeps it alone.
 */
export const matchOverrides = pgTable("match_overrides", {
  productId: text("product_id")
    .primaryKey()
    .references(() => products.id, { onDelete: "cascade" }),
  kind: text("kind", { enum: ["pin", "split"] }).notNull(),
  partnerId: text("partner_id").references(() => products.id, { onDelete: "cascade" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * What browsing and facets read, one narrow row per product, kept equal to the
 * product's own columns by a trigger on `products` (migration 0006, redefined in
 * 0008 to carry `updated_at` and `gone_at`): a browse or
 * a facet count over 20,000 products reads a few hundred pages here, where
 * `products` rows, with their vectors, take a page each.
 */
export const productFacets = pgTable(
  "product_facets",
  {
    id: text("id")
      .primaryKey()
      .references(() => products.id, { onDelete: "cascade" }),
    brandHost: text("brand_host").notNull(),
    brand: text("brand"),
    brandKeys: text("brand_keys").array().notNull(),
    category: text("category"),
    categoryKey: text("category_key"),
    availability: text("availability"),
    currency: text("currency"),
    priceMinor: bigint("price_minor", { mode: "number" }),
    priceBucket: smallint("price_bucket"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /** Mirrored too (issue 18): `updated_since` filters on `updated_at`; a product with `gone_at` set is in no browse or facet. */
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    goneAt: timestamp("gone_at", { withTimezone: true }),
    /** Mirrored (issue 48): the `audience`, `colour` and `material` filters and facets. */
    audience: text("audience"),
    colours: text("colours").array().notNull().default(sql`'{}'::text[]`),
    materials: text("materials").array().notNull().default(sql`'{}'::text[]`),
  },
  (t) => [
    index("product_facets_price_idx").on(t.currency, t.priceMinor, t.id),
    index("product_facets_category_idx").on(t.categoryKey.op("text_pattern_ops")),
    index("product_facets_brand_keys_idx").using("gin", t.brandKeys),
    index("product_facets_brand_host_idx").on(t.brandHost),
    index("product_facets_created_idx").on(t.createdAt, t.id),
  ],
);

/**
 * The change feed (`GET /products/changes`): one row per product that ever changed, holding the position of its
 * latest change. `seq` is given out in commit order: every transaction that changes products takes this table's
 * lock as its last step and numbers its products after the highest number committed (repository.ts,
 * `recordChanges`), so a reader that has seen a number has seen every smaller one that will ever exist.
 */
export const productChanges = pgTable(
  "product_changes",
  {
    productId: text("product_id")
      .primaryKey()
      .references(() => products.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("product_changes_seq_idx").on(t.seq)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    environment: text("environment", { enum: ["dev", "prod"] }).notNull(),
    /** SHA-256 (hex) of the whole key; the key itself is never stored. */
    hash: text("hash").notNull(),
    /** Non-secret beginning of the key, for recognising it in listings. */
    start: text("start").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Set on the old key by `keys rotate`: the key it was replaced by. */
    replacedBy: text("replaced_by"),
    /** Cost units this key may spend per minute; null means the server's RATE_LIMIT_PER_MINUTE. */
    rateLimitPerMinute: integer("rate_limit_per_minute"),
  },
  (t) => [uniqueIndex("api_keys_hash_idx").on(t.hash)],
);

/**
 * The catalog's words as written (lower-cased, unstemmed: the 'simple' text search configuration over name, brands,
 * description and category) and how many products hold each: what typo correction corrects to (search/vocabulary.ts).
 * Kept in step with `products` by statement triggers (migration 0008), so every writer keeps it current; words without
 * digits or punctuation only, so codes and numbers are never correction targets. A word whose last product went has
 * `ndoc` 0 until it comes back.
 */
export const searchVocabulary = pgTable("search_vocabulary", {
  word: text("word").primaryKey(),
  ndoc: integer("ndoc").notNull(),
});

/**
 * How many products hold each stemmed word of the full-text document (`products.search`, in each product's language):
 * the local reranker's document frequencies (search/statistics.ts). Kept in step with `products` by statement triggers
 * (migration 0020), as `search_vocabulary` is, so a server reads it at start in one small query where counting over
 * every product's document (ts_stat) took seconds at a million products. A lexeme whose last product went has `ndoc` 0.
 */
export const searchLexemes = pgTable("search_lexemes", {
  lexeme: text("lexeme").primaryKey(),
  ndoc: integer("ndoc").notNull(),
});

/** Facts about the catalog as a whole, e.g. which embedding model made its vectors. */
export const catalogMeta = pgTable("catalog_meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Per-key fixed-window rate-limit counters, shared by every server on this
 * database: one row per key, reset in place when a newer window starts.
 */
export const rateLimits = pgTable("rate_limits", {
  keyId: text("key_id").primaryKey(),
  /** Start of the counted window, in milliseconds since the epoch. */
  windowStart: bigint("window_start", { mode: "number" }).notNull(),
  /** Cost units spent in that window (rejected requests included). */
  used: integer("used").notNull(),
});

export type ProductRow = typeof products.$inferSelect;
export type NewProductRow = typeof products.$inferInsert;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
