-- The category's last segment joins the full-text document at weight D (schema.ts). A generated column's expression
-- cannot be altered before Postgres 17, so the column is made again, and its GIN index with it (the drop took it).
ALTER TABLE "products" drop column "search";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', "products"."name"), 'A') || setweight(to_tsvector('english', "products"."brands"), 'B') || setweight(to_tsvector('english', "products"."desc"), 'C') || setweight(to_tsvector('english', regexp_replace(coalesce("products"."category", ''), '^.*>', '')), 'D')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin ("search");
