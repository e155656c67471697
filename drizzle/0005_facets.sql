CREATE TABLE "product_facets" (
	"id" text PRIMARY KEY NOT NULL,
	"brand_host" text NOT NULL,
	"brand" text,
	"brand_keys" text[] NOT NULL,
	"category" text,
	"category_key" text,
	"availability" text,
	"currency" text,
	"price_minor" bigint,
	"price_bucket" smallint,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "price_bucket" smallint;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "brand" text;--> statement-breakpoint
ALTER TABLE "product_facets" ADD CONSTRAINT "product_facets_id_products_id_fk" FOREIGN KEY ("id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "product_facets_price_idx" ON "product_facets" USING btree ("currency","price_minor","id");--> statement-breakpoint
CREATE INDEX "product_facets_category_idx" ON "product_facets" USING btree ("category_key" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "product_facets_brand_keys_idx" ON "product_facets" USING gin ("brand_keys");--> statement-breakpoint
CREATE INDEX "product_facets_brand_host_idx" ON "product_facets" USING btree ("brand_host");--> statement-breakpoint
CREATE INDEX "product_facets_created_idx" ON "product_facets" USING btree ("created_at","id");