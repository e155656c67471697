ALTER TABLE "product_facets" ADD COLUMN "audience" text;--> statement-breakpoint
ALTER TABLE "product_facets" ADD COLUMN "colours" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "product_facets" ADD COLUMN "materials" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "kind" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "audience" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "age_from_months" smallint;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "age_to_months" smallint;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "species" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "size" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "colours" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "materials" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "products_colours_idx" ON "products" USING gin ("colours");--> statement-breakpoint
-- product_facets mirrors the attributes filters and facets read (audience, colours, materials), which the backfill
-- derives for stored rows at the next start (DERIVED_VERSION 4). The function and the trigger's column list are
-- replaced together.
CREATE OR REPLACE FUNCTION sync_product_facets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_facets (id, brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at, updated_at, gone_at, audience, colours, materials)
  VALUES (NEW.id, NEW.brand_host, NEW.brand, NEW.brand_keys, NEW.category, NEW.category_key, NEW.availability, NEW.currency, NEW.price_minor, NEW.price_bucket, NEW.created_at, NEW.updated_at, NEW.gone_at, NEW.audience, NEW.colours, NEW.materials)
  ON CONFLICT (id) DO UPDATE SET
    brand_host = EXCLUDED.brand_host, brand = EXCLUDED.brand, brand_keys = EXCLUDED.brand_keys, category = EXCLUDED.category,
    category_key = EXCLUDED.category_key, availability = EXCLUDED.availability, currency = EXCLUDED.currency,
    price_minor = EXCLUDED.price_minor, price_bucket = EXCLUDED.price_bucket, created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at, gone_at = EXCLUDED.gone_at, audience = EXCLUDED.audience, colours = EXCLUDED.colours,
    materials = EXCLUDED.materials;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER products_sync_facets ON products;
--> statement-breakpoint
CREATE TRIGGER products_sync_facets AFTER INSERT OR UPDATE OF brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at, updated_at, gone_at, audience, colours, materials
  ON products FOR EACH ROW EXECUTE FUNCTION sync_product_facets();
