ALTER TABLE "products" ADD COLUMN "offers" jsonb;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "identifiers" jsonb;