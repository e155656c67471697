-- search_vocabulary follows products (schema.ts): statement triggers count each changed product's words once per
-- statement, so an import of 256 products is one aggregate upsert, and an update that leaves the text alone (a price, an
-- availability) costs nothing.
CREATE FUNCTION search_vocabulary_words(name text, brands jsonb, body text, category text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT word
  FROM unnest(tsvector_to_array(to_tsvector('simple', name || ' ' || brands::text || ' ' || body || ' ' || coalesce(category, '')))) AS word
  WHERE word !~ '[[:digit:][:punct:][:space:]]' AND length(word) BETWEEN 2 AND 40
$$;
--> statement-breakpoint
CREATE FUNCTION search_vocabulary_follow() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    -- Only products whose words can have changed.
    WITH changed AS (
      SELECT o.name AS old_name, o.brands AS old_brands, o."desc" AS old_desc, o.category AS old_category,
             n.name, n.brands, n."desc", n.category
      FROM old_rows o JOIN new_rows n USING (id)
      WHERE (o.name, o.brands, o."desc", o.category) IS DISTINCT FROM (n.name, n.brands, n."desc", n.category)
    ),
    counts AS (
      SELECT word, sum(delta)::int AS delta FROM (
        SELECT word, -1 AS delta FROM changed, search_vocabulary_words(old_name, old_brands, old_desc, old_category) AS word
        UNION ALL
        SELECT word, 1 FROM changed, search_vocabulary_words(name, brands, "desc", category) AS word
      ) AS words GROUP BY word
    )
    INSERT INTO search_vocabulary AS v (word, ndoc)
    SELECT word, delta FROM counts WHERE delta <> 0
    ON CONFLICT (word) DO UPDATE SET ndoc = greatest(v.ndoc + excluded.ndoc, 0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO search_vocabulary AS v (word, ndoc)
    SELECT word, count(*) FROM new_rows, search_vocabulary_words(name, brands, "desc", category) AS word GROUP BY word
    ON CONFLICT (word) DO UPDATE SET ndoc = v.ndoc + excluded.ndoc;
  ELSE
    UPDATE search_vocabulary AS v SET ndoc = greatest(v.ndoc - gone.n, 0)
    FROM (SELECT word, count(*) AS n FROM old_rows, search_vocabulary_words(name, brands, "desc", category) AS word GROUP BY word) AS gone
    WHERE v.word = gone.word;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER search_vocabulary_insert AFTER INSERT ON products REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_vocabulary_follow();
--> statement-breakpoint
CREATE TRIGGER search_vocabulary_update AFTER UPDATE ON products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_vocabulary_follow();
--> statement-breakpoint
CREATE TRIGGER search_vocabulary_delete AFTER DELETE ON products REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_vocabulary_follow();
--> statement-breakpoint
-- A catalog imported before this migration.
INSERT INTO search_vocabulary (word, ndoc)
SELECT word, count(*) FROM products, search_vocabulary_words(name, brands, "desc", category) AS word GROUP BY word
ON CONFLICT (word) DO NOTHING;
