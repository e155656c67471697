-- Vectors in half precision (docs/decisions/0017-halfvec.md). Converting "embedding" in one ALTER TABLE would rewrite
-- the table under an exclusive lock (minutes at a million products, searches and writes waiting). This migration only
-- adds the new column (no rewrite) and keeps it in step with every write of "embedding"; server/db/halfvec.ts, run by
-- the migrator right after (each start, `catalog migrate`), fills it in batches by id (resumable), builds its index,
-- then swaps the columns in one short transaction. The snapshot (meta/0018) is the schema after that swap.
ALTER TABLE "products" ADD COLUMN "embedding_half" halfvec(512);--> statement-breakpoint
CREATE FUNCTION products_embedding_half() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.embedding_half := NEW.embedding::halfvec(512);
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER products_embedding_half BEFORE INSERT OR UPDATE OF embedding ON "products"
  FOR EACH ROW EXECUTE FUNCTION products_embedding_half();
