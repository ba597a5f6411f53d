-- How many numbers each division of a pool uses, kept so that a pool's
-- page orders and pages its divisions by usage reading only the page's
-- rows (issue 13), without a counter that writers update: a write of
-- objects only marks the divisions it may have changed, and a reader folds
-- the marks, recounting those divisions alone (docs/numbers.md, "Usage of
-- divisions").

-- A division of a pool that shows at least one number (as the branches
-- show number_holdings): held counts its different numbers, used those in
-- the pool's ranges; labels are its entries' display labels, in the
-- scope's order (a peer's label, an attribute's value), which the page
-- searches, and sort_keys the same labels written so that their order as
-- bytes is the page's order (whole numbers first, by value, then text,
-- case ignored first); search is the labels and the values in lower case,
-- for the page's search box. Exact for every division with no mark left in
-- number_division_dirty.
CREATE TABLE number_division_usage (
    pool_id uuid NOT NULL REFERENCES number_pools ON DELETE CASCADE,
    division jsonb NOT NULL,
    held bigint NOT NULL CHECK (held > 0),
    used bigint NOT NULL CHECK (used >= 0 AND used <= held),
    labels text[] NOT NULL DEFAULT '{}',
    sort_keys text[] NOT NULL DEFAULT '{}',
    search text NOT NULL DEFAULT '',
    PRIMARY KEY (pool_id, division)
);
-- A pool's divisions, most used first, and by their first entry.
CREATE INDEX number_division_usage_order ON number_division_usage (pool_id, used DESC, division);
CREATE INDEX number_division_usage_first_entry ON number_division_usage (pool_id, (sort_keys[1] COLLATE "C"), (division::text COLLATE "C"));
-- The divisions an object is a peer in: its label is theirs.
CREATE INDEX number_division_usage_peers ON number_division_usage USING gin (division);
-- The divisions whose labels or values hold a text (LIKE '%text%').
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX number_division_usage_search ON number_division_usage USING gin (search gin_trgm_ops);

-- How many divisions of a pool number_division_usage holds; only folds
-- write it.
CREATE TABLE number_division_totals (
    pool_id uuid PRIMARY KEY REFERENCES number_pools ON DELETE CASCADE,
    divisions bigint NOT NULL CHECK (divisions >= 0)
);

-- Divisions whose numbers may have changed since they were counted. Rows
-- are only inserted by writers (no row is updated, none is shared: writers
-- never wait for each other here) and deleted by the fold that recounts
-- their divisions. No foreign key: it would lock the pool's row.
CREATE TABLE number_division_dirty (
    pool_id uuid NOT NULL,
    division jsonb NOT NULL
);
CREATE INDEX number_division_dirty_pool ON number_division_dirty (pool_id);

-- A holding changed marks its division, and, for a branch's row, the
-- divisions of main's ended rows of the same object: the branch's row
-- decides whether the branch still shows them.
CREATE FUNCTION number_holdings_mark_divisions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT DISTINCT pool_id, division FROM (
            SELECT c.pool_id, c.division FROM added c WHERE c.division IS NOT NULL
            UNION ALL
            SELECT h.pool_id, h.division FROM added c JOIN number_holdings h
                ON h.pool_id = c.pool_id AND h.branch_id = 1 AND h.object_id = c.object_id
            WHERE c.branch_id <> 1 AND h.to_seq IS NOT NULL AND h.division IS NOT NULL
        ) AS marked;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT DISTINCT c.pool_id, c.division FROM changed c WHERE c.division IS NOT NULL;
    ELSE
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT DISTINCT pool_id, division FROM (
            SELECT c.pool_id, c.division FROM removed c WHERE c.division IS NOT NULL
            UNION ALL
            SELECT h.pool_id, h.division FROM removed c JOIN number_holdings h
                ON h.pool_id = c.pool_id AND h.branch_id = 1 AND h.object_id = c.object_id
            WHERE c.branch_id <> 1 AND h.to_seq IS NOT NULL AND h.division IS NOT NULL
        ) AS marked;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER number_holdings_added AFTER INSERT ON number_holdings
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION number_holdings_mark_divisions();
CREATE TRIGGER number_holdings_changed AFTER UPDATE ON number_holdings
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION number_holdings_mark_divisions();
CREATE TRIGGER number_holdings_removed AFTER DELETE ON number_holdings
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION number_holdings_mark_divisions();

-- Which of main's ended rows a branch shows depends on its branch point: a
-- branch moved or deleted marks the divisions of every ended row (few:
-- they are dropped once no branch sees them).
CREATE FUNCTION branches_mark_divisions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO number_division_dirty (pool_id, division)
    SELECT DISTINCT pool_id, division FROM number_holdings
    WHERE to_seq IS NOT NULL AND division IS NOT NULL;
    RETURN NULL;
END
$$;

CREATE TRIGGER branches_moved AFTER UPDATE OF branched_from OR DELETE ON branches
    FOR EACH STATEMENT EXECUTE FUNCTION branches_mark_divisions();

-- An object written or removed, on any branch, marks the divisions it is
-- a peer in: their labels may change.
CREATE FUNCTION object_versions_mark_divisions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT u.pool_id, u.division FROM number_division_usage u
        WHERE u.division ?| (SELECT array_agg(DISTINCT object_id::text) FROM added);
    ELSE
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT u.pool_id, u.division FROM number_division_usage u
        WHERE u.division ?| (SELECT array_agg(DISTINCT object_id::text) FROM removed);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER object_versions_added AFTER INSERT ON object_versions
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION object_versions_mark_divisions();
CREATE TRIGGER object_versions_removed AFTER DELETE ON object_versions
    REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION object_versions_mark_divisions();

-- A new schema of kinds, on any branch, may change how peers are labelled
-- and what the scope's elements are called: every division is marked.
CREATE FUNCTION schema_versions_mark_divisions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO number_division_dirty (pool_id, division)
    SELECT pool_id, division FROM number_division_usage;
    RETURN NULL;
END
$$;

CREATE TRIGGER schema_versions_added AFTER INSERT ON schema_versions
    FOR EACH STATEMENT EXECUTE FUNCTION schema_versions_mark_divisions();

-- A pool's ranges decide what its divisions use: a change marks them all.
CREATE FUNCTION number_pools_mark_divisions() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.ranges IS DISTINCT FROM OLD.ranges THEN
        INSERT INTO number_division_dirty (pool_id, division)
        SELECT pool_id, division FROM number_division_usage WHERE pool_id = NEW.id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER number_pools_ranges_changed AFTER UPDATE OF ranges ON number_pools
    FOR EACH ROW EXECUTE FUNCTION number_pools_mark_divisions();

-- The divisions held before this migration are counted by the first fold.
INSERT INTO number_division_dirty (pool_id, division)
SELECT DISTINCT pool_id, division FROM number_holdings WHERE division IS NOT NULL;
