-- A bulk load (`catalog import --bulk`, catalog/bulk.ts) writes product_facets itself, one statement a batch of 1,000:
-- in a transaction that says so (catalog.facets_by_batch = on, set locally), the per-row trigger steps aside. Every other
-- writer keeps the trigger as before.
DROP TRIGGER products_sync_facets ON products;
--> statement-breakpoint
CREATE TRIGGER products_sync_facets AFTER INSERT OR UPDATE OF brand_host, brand, brand_keys, category, category_key, availability, currency, price_minor, price_bucket, created_at, updated_at, gone_at, audience, colours, materials
  ON products FOR EACH ROW WHEN (current_setting('catalog.facets_by_batch', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION sync_product_facets();
