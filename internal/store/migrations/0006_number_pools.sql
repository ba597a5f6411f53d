-- Number pools with allocation scopes (issue 12), as docs/numbers.md
-- designs them: a pool is one row, the same on every branch; the numbers
-- allocated from it are decided by a unique index per division; the
-- numbers objects hold are recorded per branch, as their versions are.

-- A pool allocates the Number attribute attribute_id of the kind kind_id
-- (a node or a generic), both stable ids of the schema of kinds, so that
-- renames follow. scope lists the stable ids of the attributes and
-- relationships that divide its numbers, in order (none: one division).
-- ranges is a JSON list of {start, end, weight}, in the order given.
-- revision counts the changes of the row: a claim names the revision it
-- computed its candidate from.
CREATE TABLE number_pools (
    id uuid PRIMARY KEY,
    name text NOT NULL UNIQUE,
    description text NOT NULL DEFAULT '',
    kind_id text NOT NULL,
    attribute_id text NOT NULL,
    scope text[] NOT NULL DEFAULT '{}',
    ranges jsonb NOT NULL,
    revision bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL
);
-- The pools of a kind, which every change of objects asks for.
CREATE INDEX number_pools_kind ON number_pools (kind_id);

-- The numbers allocated from a pool, on any branch. division is the JSON
-- list of the scope elements' values (a peer's id, an attribute's value)
-- written canonically, [] for a pool without a scope. The primary key is
-- the arbiter: one allocation per number per division, whatever the
-- processes and transactions do. identifier (by default the object's id)
-- names the request: asking again under it gets the same number.
CREATE TABLE number_allocations (
    pool_id uuid NOT NULL REFERENCES number_pools ON DELETE CASCADE,
    division jsonb NOT NULL,
    number bigint NOT NULL,
    identifier text NOT NULL,
    object_id uuid NOT NULL,
    branch text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    PRIMARY KEY (pool_id, division, number),
    UNIQUE (pool_id, division, identifier)
);

-- The numbers objects hold, as the branches' versions hold them: on main
-- its live objects' (to_seq NULL) and the ended ones a branch still sees at
-- its branch point (from_seq <= point < to_seq); on another branch, one
-- row for each object it has a version of, with no number (division and
-- number NULL) when that version holds none: the row hides main's. Provided
-- numbers and duplicates are recorded: nothing here is unique but the row.
CREATE TABLE number_holdings (
    pool_id uuid NOT NULL REFERENCES number_pools ON DELETE CASCADE,
    branch_id integer NOT NULL REFERENCES branches ON DELETE CASCADE,
    object_id uuid NOT NULL,
    division jsonb,
    number bigint,
    from_seq bigint NOT NULL,
    to_seq bigint,
    PRIMARY KEY (pool_id, branch_id, object_id, from_seq),
    CHECK ((division IS NULL) = (number IS NULL)),
    CHECK (to_seq IS NULL OR branch_id = 1 AND to_seq > from_seq)
);
-- An object's live holding on a branch.
CREATE UNIQUE INDEX number_holdings_live ON number_holdings (pool_id, object_id, branch_id) WHERE to_seq IS NULL;
-- What holds a number in a division: a claim's check, a division's view.
CREATE INDEX number_holdings_number ON number_holdings (pool_id, division, number) WHERE number IS NOT NULL;
-- main's ended holdings, dropped once no branch sees them.
CREATE INDEX number_holdings_ended ON number_holdings (to_seq) WHERE to_seq IS NOT NULL;

-- Every process keeps a view of the taken numbers of the divisions it
-- serves. A claim elsewhere shows up as a conflict; a number freed
-- elsewhere is told on channel ipam_numbers as "<pool id> <number>
-- <division>", or "<pool id>" alone (reload the pool's views) when a
-- statement frees more than 64 or the division is long. A change or the
-- deletion of a pool is told as "<pool id>" too.
CREATE FUNCTION number_notify_freed() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    pool record;
BEGIN
    FOR pool IN SELECT pool_id, count(*) AS n, max(length(division::text)) AS longest
        FROM gone WHERE number IS NOT NULL GROUP BY pool_id LOOP
        IF pool.n > 64 OR pool.longest > 7000 THEN
            PERFORM pg_notify('ipam_numbers', pool.pool_id::text);
        ELSE
            PERFORM pg_notify('ipam_numbers', gone.pool_id::text || ' ' || gone.number || ' ' || gone.division::text)
            FROM gone WHERE gone.pool_id = pool.pool_id AND gone.number IS NOT NULL;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER number_allocations_freed AFTER DELETE ON number_allocations
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION number_notify_freed();
CREATE TRIGGER number_holdings_freed AFTER DELETE ON number_holdings
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION number_notify_freed();

CREATE FUNCTION number_pools_notify_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('ipam_numbers', OLD.id::text);
    RETURN NULL;
END
$$;

CREATE TRIGGER number_pools_changed AFTER UPDATE OR DELETE ON number_pools
    FOR EACH ROW EXECUTE FUNCTION number_pools_notify_changed();
