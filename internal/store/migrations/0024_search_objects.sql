-- The global search finds objects of kinds by their display label and by
-- the values of their Text attributes, a part of a value being enough
-- ("site-a" finds users-site-a), on 100 000 objects and more
-- (docs/benchmarks.md, "The global search"). A version's values are JSON
-- keyed by element ids, which only the schema of kinds tells apart, so the
-- database keeps, for each version, the text of its string values, and a
-- trigram index of it (pg_trgm, created by 0007): a LIKE '%…%' of a
-- lower-cased query is then a few lookups, checked again against the
-- text.
--
-- object_search_text is that text: every top-level string value of a
-- version's data, lower-cased, one a line, but those that are a UUID's
-- text (a relationship's peer: nobody searches for one by a part of it).
-- Numbers are not in it: a Number attribute is searched for by its whole
-- value, through the index of the data (object_versions_data).
CREATE FUNCTION object_search_text(data jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
RETURN (
    SELECT lower(string_agg(e.value #>> '{}', E'\n'))
    FROM jsonb_each(data) e
    WHERE jsonb_typeof(e.value) = 'string'
        AND e.value #>> '{}' !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
);

-- Stored, so that a search checks its candidates against the column rather
-- than computing the text again for each; an UPDATE that ends a version
-- (to_seq) leaves data alone and does not compute it again.
ALTER TABLE object_versions ADD COLUMN search text GENERATED ALWAYS AS (object_search_text(data)) STORED;
CREATE INDEX object_versions_search ON object_versions USING gin (search gin_trgm_ops);
