CREATE TABLE "product_changes" (
	"product_id" text PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "product_facets" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "product_facets" ADD COLUMN "gone_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "fetched_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "checked_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "gone_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "fetch_url" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "fetch_key" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "etag" text;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "last_modified" text;--> statement-breakpoint
ALTER TABLE "product_changes" ADD CONSTRAINT "product_changes_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "product_changes_seq_idx" ON "product_changes" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "products_checked_idx" ON "products" USING btree ("checked_at","id");--> statement-breakpoint
CREATE INDEX "products_updated_idx" ON "products" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "products_fetch_key_idx" ON "products" USING btree ("fetch_key");