-- Each product's text is indexed in its own language (docs/search/languages.md, docs/decisions/0006): `lang` is what
-- the page declares or its text shows, `search_lang` the language it is indexed in (`lang`, else the catalog's), both
-- written on import and, for rows stored before, by the backfill at the next start (DERIVED_VERSION 4). Rows stored
-- before were indexed in English: they stay so until then.
ALTER TABLE "products" ADD COLUMN "lang" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search_lang" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "search_lang" SET DEFAULT 'simple';--> statement-breakpoint
-- Accents are folded by a text-search configuration per language whose words pass through `unaccent` before the
-- language's stemmer: to_tsvector and to_tsquery with a constant configuration are IMMUTABLE, so the generated column
-- needs no wrapper around unaccent() (STABLE), and a query's words are folded by the same configuration as the pages'.
-- Snowball languages that every Postgres from 13 on has; any other language is read by `simple`, folded too.
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
DO $$
DECLARE
  pair text[];
BEGIN
  FOREACH pair SLICE 1 IN ARRAY ARRAY[
    ['ar', 'arabic'], ['da', 'danish'], ['de', 'german'], ['el', 'greek'], ['en', 'english'], ['es', 'spanish'],
    ['fi', 'finnish'], ['fr', 'french'], ['ga', 'irish'], ['hu', 'hungarian'], ['id', 'indonesian'], ['it', 'italian'],
    ['lt', 'lithuanian'], ['ne', 'nepali'], ['nl', 'dutch'], ['no', 'norwegian'], ['pt', 'portuguese'],
    ['ro', 'romanian'], ['ru', 'russian'], ['sv', 'swedish'], ['ta', 'tamil'], ['tr', 'turkish'], ['simple', 'simple']
  ] LOOP
    EXECUTE format('CREATE TEXT SEARCH CONFIGURATION %I (COPY = %I)', 'search_' || pair[1], pair[2]);
    IF pair[2] = 'simple' THEN
      EXECUTE 'ALTER TEXT SEARCH CONFIGURATION search_simple ALTER MAPPING FOR word, hword, hword_part WITH unaccent, simple';
    ELSIF pair[2] IN ('danish', 'dutch', 'english', 'finnish', 'french', 'german', 'hungarian', 'italian', 'nepali',
        'norwegian', 'portuguese', 'russian', 'spanish', 'swedish', 'turkish') THEN
      -- Its stop words are dropped as written, before folding: "für" folded is "fur", which german_stem would keep.
      EXECUTE format('CREATE TEXT SEARCH DICTIONARY %I (TEMPLATE = simple, STOPWORDS = %s, ACCEPT = false)',
        'search_' || pair[1] || '_stop', pair[2]);
      EXECUTE format('ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR word, hword, hword_part WITH %I, unaccent, %I',
        'search_' || pair[1], 'search_' || pair[1] || '_stop', pair[2] || '_stem');
    ELSE
      EXECUTE format('ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR word, hword, hword_part WITH unaccent, %I',
        'search_' || pair[1], pair[2] || '_stem');
    END IF;
    EXECUTE format('ALTER TEXT SEARCH CONFIGURATION %I ALTER MAPPING FOR numword, numhword, hword_numpart WITH unaccent, simple',
      'search_' || pair[1]);
  END LOOP;
END
$$;--> statement-breakpoint
-- The configuration of an ISO 639-1 code; `simple` (no stemming, no stop words) for any other. The literals are
-- constants, so the function inlines to an IMMUTABLE expression a generated column may use.
CREATE OR REPLACE FUNCTION search_config(lang text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE lang
    WHEN 'en' THEN 'search_en'::regconfig WHEN 'de' THEN 'search_de'::regconfig WHEN 'fr' THEN 'search_fr'::regconfig
    WHEN 'es' THEN 'search_es'::regconfig WHEN 'it' THEN 'search_it'::regconfig WHEN 'nl' THEN 'search_nl'::regconfig
    WHEN 'pt' THEN 'search_pt'::regconfig WHEN 'sv' THEN 'search_sv'::regconfig WHEN 'da' THEN 'search_da'::regconfig
    WHEN 'no' THEN 'search_no'::regconfig WHEN 'nb' THEN 'search_no'::regconfig WHEN 'nn' THEN 'search_no'::regconfig
    WHEN 'fi' THEN 'search_fi'::regconfig WHEN 'hu' THEN 'search_hu'::regconfig WHEN 'ro' THEN 'search_ro'::regconfig
    WHEN 'ru' THEN 'search_ru'::regconfig WHEN 'tr' THEN 'search_tr'::regconfig WHEN 'el' THEN 'search_el'::regconfig
    WHEN 'ar' THEN 'search_ar'::regconfig WHEN 'ga' THEN 'search_ga'::regconfig WHEN 'id' THEN 'search_id'::regconfig
    WHEN 'lt' THEN 'search_lt'::regconfig WHEN 'ne' THEN 'search_ne'::regconfig WHEN 'ta' THEN 'search_ta'::regconfig
    ELSE 'search_simple'::regconfig
  END
$$;--> statement-breakpoint
ALTER TABLE "products" drop column "search";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector(search_config("products"."search_lang"), replace("products"."name", '/', ' ')), 'A') || setweight(to_tsvector(search_config("products"."search_lang"), "products"."brands"), 'B') || setweight(to_tsvector(search_config("products"."search_lang"), replace("products"."desc", '/', ' ')), 'C') || setweight(to_tsvector(search_config("products"."search_lang"), regexp_replace(coalesce("products"."category", ''), '[^>]*(&|,|/|\mand\M)[^>]*>', ' ', 'g')), 'D')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin ("search");
