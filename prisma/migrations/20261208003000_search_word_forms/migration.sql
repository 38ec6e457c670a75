-- Written by hand: what the Prisma schema cannot declare. Expand only: the documents gain lexemes (no lexeme a
-- search of the previous build matches goes away), so the build still serving finds what it found.
--
-- A search document holds, at each word's position and weight, the word as the parser gives it (as before), its
-- parts split at every character that is no letter or digit ("real-estate": real, estate; "2.5": 2, 5), and each
-- part folded (package_search_fold). A search's words are split the same way by the caller (src/listing/filter.ts)
-- and read by package_search_query, so hyphens and spaces are one, and "weddings" finds "wedding".

-- A word with English inflections taken off, so a plural, an -ing and an -ed form meet their word: weddings and
-- wedding, images and image (imag), studies and study (studi), skies and sky, boxes and box, edited and editing
-- (edit). Plurals first (-ies, -es after s x z ch sh, -s but not -ss -us -is), then -ing and -ed (a doubled last
-- consonant made single: wedd, wed), then a last -y, -ie or -e made one form (day and days: dai; cookie and
-- cookies: cooki). A change leaves at least 3 letters, and a stem without a vowel keeps its -y (sky, not ski).
CREATE FUNCTION "package_search_fold"(word text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  w text := word;
  stem text;
BEGIN
  IF char_length(w) >= 5 AND w ~ 'ies$' THEN
    stem := left(w, -3);
    w := stem || CASE WHEN stem ~ '[aeiouy]' THEN 'i' ELSE 'y' END;
  ELSIF char_length(w) >= 5 AND w ~ '(s|x|z|ch|sh)es$' THEN
    w := left(w, -2);
  ELSIF char_length(w) >= 4 AND w ~ '[^siu]s$' THEN
    w := left(w, -1);
  END IF;
  IF char_length(w) >= 6 AND w ~ 'ing$' AND left(w, -3) ~ '[aeiouy]' THEN
    w := left(w, -3);
    IF char_length(w) >= 4 AND w ~ '([bcdfghjkmnpqrtvwx])\1$' THEN w := left(w, -1); END IF;
  ELSIF char_length(w) >= 5 AND w ~ '[^e]ed$' AND left(w, -2) ~ '[aeiouy]' THEN
    w := left(w, -2);
    IF char_length(w) >= 4 AND w ~ '([bcdfghjkmnpqrtvwx])\1$' THEN w := left(w, -1); END IF;
  END IF;
  IF char_length(w) >= 4 AND w ~ 'ie$' AND left(w, -2) ~ '[aeiouy]' THEN
    w := left(w, -1);
  ELSIF char_length(w) >= 3 AND w ~ 'y$' AND left(w, -1) ~ '[aeiouy]' THEN
    w := left(w, -1) || 'i';
  ELSIF char_length(w) >= 4 AND w ~ 'e$' THEN
    w := left(w, -1);
  END IF;
  RETURN w;
END $$;

-- A lexeme as tsvector and tsquery input quote it.
CREATE FUNCTION "package_search_quoted"(lexeme text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT '''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || ''''
$$;

-- The search documents of packages, given as arrays of the same length (ids, titles, tag keywords, category
-- names): each text's words weighted (title A, tag keywords B, category name C, for ts_rank) at their positions,
-- the texts one after the other as tsvector's || puts them. Every package of a statement at once, so that each
-- distinct word is split and folded once (a listing has a few hundred of them).
CREATE FUNCTION "package_search_documents"(ids uuid[], titles text[], tag_keywords text[], category_names text[])
  RETURNS TABLE ("package_id" uuid, "document" tsvector) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH texts AS (
    SELECT p.id, t.field, t.body
    FROM unnest(ids, titles, tag_keywords, category_names) AS p(id, title, tags, category),
      LATERAL (VALUES (1, p.title), (2, p.tags), (3, p.category)) AS t(field, body)
  ), lexemes AS (
    SELECT t.id, t.field, l.lexeme, array_to_string(l.positions, ',') AS positions
    FROM texts t, unnest(to_tsvector('simple', coalesce(t.body, ''))) AS l
  ), forms AS (
    SELECT w.lexeme, array_agg(DISTINCT f.form) AS forms
    FROM (SELECT DISTINCT lexeme FROM lexemes) AS w,
      LATERAL (SELECT array_remove(regexp_split_to_array(w.lexeme, '[^[:alnum:]]+'), '') AS parts) AS s,
      LATERAL (SELECT w.lexeme UNION ALL SELECT unnest(s.parts) UNION ALL SELECT "package_search_fold"(unnest(s.parts)))
        AS f(form)
    GROUP BY w.lexeme
  ), fields AS (
    SELECT l.id, l.field, string_agg("package_search_quoted"(f.form) || ':' || l.positions, ' ')::tsvector AS words
    FROM lexemes l JOIN forms USING (lexeme), unnest(forms.forms) AS f(form)
    GROUP BY l.id, l.field
  )
  SELECT p.id, setweight(coalesce(a.words, ''), 'A') || setweight(coalesce(b.words, ''), 'B')
    || setweight(coalesce(c.words, ''), 'C')
  FROM unnest(ids) AS p(id)
    LEFT JOIN fields a ON a.id = p.id AND a.field = 1
    LEFT JOIN fields b ON b.id = p.id AND b.field = 2
    LEFT JOIN fields c ON c.id = p.id AND c.field = 3
$$;

-- A search as a tsquery: every term must match; a term is one word, or the words a typo may have meant separated by
-- spaces, any of which may match, each as itself or folded; the last term's words also as the start of a word,
-- as people type. Terms hold letters and digits only (the caller splits at anything else). No term: NULL, which
-- matches nothing.
CREATE FUNCTION "package_search_query"(terms text[]) RETURNS tsquery LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT string_agg('(' || (
      SELECT string_agg("package_search_quoted"(w) || CASE WHEN t.i = cardinality(terms) THEN ':*' ELSE '' END
          || ' | ' || "package_search_quoted"("package_search_fold"(w)), ' | ')
      FROM unnest(string_to_array(lower(t.term), ' ')) AS w WHERE w <> '') || ')', ' & ' ORDER BY t.i)::tsquery
  FROM unnest(terms) WITH ORDINALITY AS t(term, i)
$$;

CREATE OR REPLACE FUNCTION "package_search_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "package_search" ("package_id", "document")
  SELECT d."package_id", d."document"
  FROM (SELECT array_agg("id") AS ids, array_agg("title") AS titles, array_agg("tag_keywords") AS tags,
      array_agg("category_name") AS categories FROM "written") AS w,
    "package_search_documents"(w.ids, w.titles, w.tags, w.categories) AS d
  ON CONFLICT ("package_id") DO UPDATE SET "document" = EXCLUDED."document"
    WHERE "package_search"."document" IS DISTINCT FROM EXCLUDED."document";
  RETURN NULL;
END $$;

-- The documents already stored.
UPDATE "package_search" sd SET "document" = d."document"
FROM (SELECT array_agg("id") AS ids, array_agg("title") AS titles, array_agg("tag_keywords") AS tags,
    array_agg("category_name") AS categories FROM "package") AS p,
  "package_search_documents"(p.ids, p.titles, p.tags, p.categories) AS d
WHERE d."package_id" = sd."package_id" AND sd."document" IS DISTINCT FROM d."document";
