CREATE TABLE "match_overrides" (
	"product_id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"partner_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "price_history" (
	"product_id" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"until" timestamp with time zone,
	"price_minor" bigint,
	"currency" text,
	"availability" text,
	CONSTRAINT "price_history_product_id_since_pk" PRIMARY KEY("product_id","since")
);
--> statement-breakpoint
-- Product groups (issue 50, docs/matching.md). A record stored before is a group of its own, with the id a new record
-- gets (matching/groups.ts `ownGroupId`); `catalog rematch` matches them and fills `match_keys`.
ALTER TABLE "products" ADD COLUMN "group_id" text;--> statement-breakpoint
UPDATE "products" SET "group_id" = 'grp_' || left(md5("id"), 20);--> statement-breakpoint
ALTER TABLE "products" ALTER COLUMN "group_id" SET NOT NULL;--> statement-breakpoint
-- A writer that does not know groups (an older version during an upgrade) still stores a record: alone, as a new
-- record starts. NOT NULL is checked after BEFORE triggers.
CREATE FUNCTION products_own_group() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.group_id IS NULL THEN
    NEW.group_id := 'grp_' || left(md5(NEW.id), 20);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER products_own_group BEFORE INSERT ON "products" FOR EACH ROW EXECUTE FUNCTION products_own_group();--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "match_keys" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "match_score" real;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "matched_with" text;--> statement-breakpoint
ALTER TABLE "match_overrides" ADD CONSTRAINT "match_overrides_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "match_overrides" ADD CONSTRAINT "match_overrides_partner_id_products_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_history" ADD CONSTRAINT "price_history_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "products_group_idx" ON "products" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "products_match_keys_idx" ON "products" USING gin ("match_keys");--> statement-breakpoint
-- A record stored before starts its price history with the state it has, from when it was last read.
INSERT INTO "price_history" ("product_id", "since", "price_minor", "currency", "availability")
  SELECT "id", "fetched_at", "price_minor", "currency", "availability" FROM "products";
