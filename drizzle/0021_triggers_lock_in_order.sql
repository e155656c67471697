-- The statement triggers that keep search_vocabulary (0008) and search_lexemes (0020) upsert each word's row in the
-- words' order: two transactions writing products at once (a bulk load's two writers, an import beside a refresh)
-- share common words, and rows locked in a hash's order can cross into a deadlock, where in one order the second
-- waits for the first. The counts they keep are unchanged.
CREATE OR REPLACE FUNCTION search_vocabulary_follow() RETURNS trigger
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
    SELECT word, delta FROM counts WHERE delta <> 0 ORDER BY word
    ON CONFLICT (word) DO UPDATE SET ndoc = greatest(v.ndoc + excluded.ndoc, 0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO search_vocabulary AS v (word, ndoc)
    SELECT word, count(*) FROM new_rows, search_vocabulary_words(name, brands, "desc", category) AS word GROUP BY word ORDER BY word
    ON CONFLICT (word) DO UPDATE SET ndoc = v.ndoc + excluded.ndoc;
  ELSE
    WITH gone AS (
      SELECT word, count(*)::int AS n FROM old_rows, search_vocabulary_words(name, brands, "desc", category) AS word GROUP BY word
    ),
    locked AS (SELECT v.word FROM search_vocabulary v JOIN gone USING (word) ORDER BY v.word FOR UPDATE OF v)
    UPDATE search_vocabulary AS v SET ndoc = greatest(v.ndoc - gone.n, 0)
    FROM gone WHERE v.word = gone.word AND v.word IN (SELECT word FROM locked);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION search_lexemes_follow() RETURNS trigger
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
    SELECT lexeme, delta FROM counts WHERE delta <> 0 ORDER BY lexeme
    ON CONFLICT (lexeme) DO UPDATE SET ndoc = greatest(l.ndoc + excluded.ndoc, 0);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO search_lexemes AS l (lexeme, ndoc)
    SELECT lexeme, count(*) FROM new_rows, unnest(tsvector_to_array(search)) AS lexeme GROUP BY lexeme ORDER BY lexeme
    ON CONFLICT (lexeme) DO UPDATE SET ndoc = l.ndoc + excluded.ndoc;
  ELSE
    WITH gone AS (
      SELECT lexeme, count(*)::int AS n FROM old_rows, unnest(tsvector_to_array(search)) AS lexeme GROUP BY lexeme
    ),
    locked AS (SELECT l.lexeme FROM search_lexemes l JOIN gone USING (lexeme) ORDER BY l.lexeme FOR UPDATE OF l)
    UPDATE search_lexemes AS l SET ndoc = greatest(l.ndoc - gone.n, 0)
    FROM gone WHERE l.lexeme = gone.lexeme AND l.lexeme IN (SELECT lexeme FROM locked);
  END IF;
  RETURN NULL;
END
$$;
