CREATE TABLE "search_vocabulary" (
	"word" text PRIMARY KEY NOT NULL,
	"ndoc" integer NOT NULL
);
