-- product_facets mirrors the columns browsing and facets read, one narrow row per product (see server/db/schema.ts).
-- A trigger keeps it equal to products, whoever writes: import, backfill, refresh, a hand-written UPDATE.
CREATE FUNCTION sync_product_facets() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_facets (id, brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at)
  VALUES (NEW.id, NEW.brand_host, NEW.brand, NEW.brand_keys, NEW.category, NEW.category_key, NEW.availability, NEW.currency, NEW.price_minor, NEW.price_bucket, NEW.created_at)
  ON CONFLICT (id) DO UPDATE SET
    brand_host = EXCLUDED.brand_host, brand = EXCLUDED.brand, brand_keys = EXCLUDED.brand_keys, category = EXCLUDED.category,
    category_key = EXCLUDED.category_key, availability = EXCLUDED.availability, currency = EXCLUDED.currency,
    price_minor = EXCLUDED.price_minor, price_bucket = EXCLUDED.price_bucket, created_at = EXCLUDED.created_at;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER products_sync_facets AFTER INSERT OR UPDATE OF brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at
  ON products FOR EACH ROW EXECUTE FUNCTION sync_product_facets();
--> statement-breakpoint
INSERT INTO product_facets (id, brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at)
  SELECT id, brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at FROM products
  ON CONFLICT (id) DO NOTHING;
