ALTER TABLE "products" ADD COLUMN "provenance" jsonb;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "category" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "price_minor" bigint;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "currency" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "list_price_minor" bigint;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "availability" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "category_key" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "brand_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "gtin14" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "sku_key" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "derived_version" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "products_price_idx" ON "products" USING btree ("currency","price_minor","id");--> statement-breakpoint
CREATE INDEX "products_category_idx" ON "products" USING btree ("category_key" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "products_brand_keys_idx" ON "products" USING gin ("brand_keys");--> statement-breakpoint
CREATE INDEX "products_availability_idx" ON "products" USING btree ("availability");--> statement-breakpoint
CREATE INDEX "products_created_idx" ON "products" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "products_gtin14_idx" ON "products" USING btree ("gtin14");--> statement-breakpoint
CREATE INDEX "products_sku_idx" ON "products" USING btree ("sku_key");--> statement-breakpoint
CREATE INDEX "products_derived_idx" ON "products" USING btree ("derived_version");