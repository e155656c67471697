-- Every segment of the category naming one kind joins the full-text document at weight D, not only the last
-- (schema.ts): "cookware" finds "Kitchen > Cookware > Pans". The column and its GIN index are made again, as in 0011.
ALTER TABLE "products" drop column "search";--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', "products"."name"), 'A') || setweight(to_tsvector('english', "products"."brands"), 'B') || setweight(to_tsvector('english', "products"."desc"), 'C') || setweight(to_tsvector('english', regexp_replace(coalesce("products"."category", ''), '[^>]*(&|,|/|\mand\M)[^>]*>', ' ', 'g')), 'D')) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "products_search_idx" ON "products" USING gin ("search");
