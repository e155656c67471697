CREATE TABLE "rate_limits" (
	"key_id" text PRIMARY KEY NOT NULL,
	"window_start" bigint NOT NULL,
	"used" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "rate_limit_per_minute" integer;