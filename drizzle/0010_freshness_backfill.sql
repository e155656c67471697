-- Products imported before freshness was kept were last read and confirmed when they last changed.
UPDATE "products" SET "fetched_at" = "updated_at", "checked_at" = "updated_at";
--> statement-breakpoint
-- Every product already there enters the change feed, oldest change first, so a client following the feed from its
-- start rebuilds the whole catalog.
INSERT INTO "product_changes" ("product_id", "seq")
SELECT "id", row_number() OVER (ORDER BY "updated_at", "id") FROM "products";
--> statement-breakpoint
-- product_facets mirrors gone_at and updated_at too, so browse and facets leave gone products out and take
-- updated_since as search does. The function and the trigger's column list are replaced together.
CREATE OR REPLACE FUNCTION sync_product_facets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_facets (id, brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at, updated_at, gone_at)
  VALUES (NEW.id, NEW.brand_host, NEW.brand, NEW.brand_keys, NEW.category, NEW.category_key, NEW.availability, NEW.currency, NEW.price_minor, NEW.price_bucket, NEW.created_at, NEW.updated_at, NEW.gone_at)
  ON CONFLICT (id) DO UPDATE SET
    brand_host = EXCLUDED.brand_host, brand = EXCLUDED.brand, brand_keys = EXCLUDED.brand_keys, category = EXCLUDED.category,
    category_key = EXCLUDED.category_key, availability = EXCLUDED.availability, currency = EXCLUDED.currency,
    price_minor = EXCLUDED.price_minor, price_bucket = EXCLUDED.price_bucket, created_at = EXCLUDED.created_at,
    updated_at = EXCLUDED.updated_at, gone_at = EXCLUDED.gone_at;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER products_sync_facets ON products;
--> statement-breakpoint
CREATE TRIGGER products_sync_facets AFTER INSERT OR UPDATE OF brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at, updated_at, gone_at
  ON products FOR EACH ROW EXECUTE FUNCTION sync_product_facets();
--> statement-breakpoint
UPDATE product_facets SET updated_at = products.updated_at, gone_at = products.gone_at FROM products WHERE product_facets.id = products.id;
