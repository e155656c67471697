-- The SKUs of a page's other variants, for lookups by SKU (schema.ts); filled on import and, for rows stored before,
-- by the backfill at the next start (DERIVED_VERSION 3, catalog/backfill.ts).
ALTER TABLE "products" ADD COLUMN "variant_sku_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "products_variant_sku_idx" ON "products" USING gin ("variant_sku_keys");