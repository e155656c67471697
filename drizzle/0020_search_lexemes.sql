CREATE TABLE "search_lexemes" (
	"lexeme" text PRIMARY KEY NOT NULL,
	"ndoc" integer NOT NULL
);
--> statement-breakpoint
-- search_lexemes follows products (schema.ts) as search_vocabulary does (0008): statement triggers count each changed
-- product's stemmed words once per statement, from the stored document itself, so a write that leaves the text alone
-- costs nothing and the counts are ts_stat's over the catalog at every commit.
CREATE FUNCTION search_lexemes_follow() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    WITH changed AS (
      SELECT o.search AS old_search, n.search FROM old_rows o JOIN new_rows n USING (id)
      WHERE o.search IS DISTINCT FROM n.search
    ),
    counts AS (
      SELECT lexeme, sum(delta)::int AS delta FROM (
        SELECT lexeme, -1 AS delta FROM changed, unnest(tsvector_to_array(old_search)) AS lexeme
        UNION ALL
        SELECT lexeme, 1 FROM changed, unnest(tsvector_to_array(search)) AS lexeme
      ) AS lexemes GROUP BY lexeme
    )
    INSERT INTO search_lexemes AS l (lexeme, ndoc)
    SELECT lexeme, delta FROM counts WHERE delta <> 0
    ON CONFLICT (lexeme) DO UPDATE SET ndoc = greatest(l.ndoc + excluded.ndoc, 0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO search_lexemes AS l (lexeme, ndoc)
    SELECT lexeme, count(*) FROM new_rows, unnest(tsvector_to_array(search)) AS lexeme GROUP BY lexeme
    ON CONFLICT (lexeme) DO UPDATE SET ndoc = l.ndoc + excluded.ndoc;
  ELSE
    UPDATE search_lexemes AS l SET ndoc = greatest(l.ndoc - gone.n, 0)
    FROM (SELECT lexeme, count(*) AS n FROM old_rows, unnest(tsvector_to_array(search)) AS lexeme GROUP BY lexeme) AS gone
    WHERE l.lexeme = gone.lexeme;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER search_lexemes_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_lexemes_follow();
--> statement-breakpoint
CREATE TRIGGER search_lexemes_update AFTER UPDATE ON products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_lexemes_follow();
--> statement-breakpoint
CREATE TRIGGER search_lexemes_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_lexemes_follow();
--> statement-breakpoint
-- A catalog stored before this migration: counted once, here.
INSERT INTO search_lexemes (lexeme, ndoc) SELECT word, ndoc FROM ts_stat('SELECT search FROM products');
