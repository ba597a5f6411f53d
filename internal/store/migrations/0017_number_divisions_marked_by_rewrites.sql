-- A branch rewrites its own version of an object in place (an UPDATE of
-- object_versions, where main ends its version and inserts the next): the
-- divisions the object is a peer in are marked then too, as for a version
-- written or removed (0007), so that a site of a branch renamed there
-- relabels its divisions (docs/numbers.md, "Usage of divisions").
CREATE OR REPLACE FUNCTION object_versions_mark_divisions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT u.pool_id, u.division FROM number_division_usage u
        WHERE u.division ?| (SELECT array_agg(DISTINCT object_id::text) FROM removed);
    ELSE
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT u.pool_id, u.division FROM number_division_usage u
        WHERE u.division ?| (SELECT array_agg(DISTINCT object_id::text) FROM added);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER object_versions_rewritten AFTER UPDATE ON object_versions
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION object_versions_mark_divisions();
