-- A slash joins no words (schema.ts): Postgres's parser read "Refrigerator/Freezer" as one file path, which neither
-- "refrigerator" nor the vocabulary's typo correction found. The column and its GIN index are made again, as in 0011,
-- and the vocabulary counted again with the same reading.
ALTER TABLE "products" drop column "search";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', replace("products"."name", '/', ' ')), 'A') || setweight(to_tsvector('english', "products"."brands"), 'B') || setweight(to_tsvector('english', replace("products"."desc", '/', ' ')), 'C') || setweight(to_tsvector('english', regexp_replace(coalesce("products"."category", ''), '[^>]*(&|,|/|\mand\M)[^>]*>', ' ', 'g')), 'D')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin ("search");--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_vocabulary_words(name text, brands jsonb, body text, category text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT word
  FROM unnest(tsvector_to_array(to_tsvector('simple', replace(name || ' ' || brands::text || ' ' || body || ' ' || coalesce(category, ''), '/', ' ')))) AS word
  WHERE word !~ '[[:digit:][:punct:][:space:]]' AND length(word) BETWEEN 2 AND 40
$$;--> statement-breakpoint
TRUNCATE search_vocabulary;--> statement-breakpoint
INSERT INTO search_vocabulary (word, ndoc)
SELECT word, count(*) FROM products, search_vocabulary_words(name, brands, "desc", category) AS word GROUP BY word;
