-- A branch's last merge into main (docs/branches.md, "Merge"): a merge
-- leaves the branch in place, rebased onto main, so the console tells a
-- merged branch from an open one by these columns and by whether the
-- branch changed anything since (its own versions or schema).
ALTER TABLE branches ADD COLUMN merged_at timestamptz, ADD COLUMN merged_by text;

-- Branches merged before this migration: their last merge entry in the
-- audit log, made since the branch of that name was created.
UPDATE branches b SET merged_at = a.at, merged_by = a.actor
FROM (
    SELECT DISTINCT ON (object_name) object_name, at, actor FROM audit_log
    WHERE action = 'merge' AND object_kind = 'Branch'
    ORDER BY object_name, at DESC
) a
WHERE b.id <> 1 AND a.object_name = b.name AND a.at >= b.created_at;

-- The sides an operator chose for conflicts of a branch's merge
-- (branch.Service.ResolveConflict): the next merge or rebase takes the
-- side chosen for the field (element_id, an attribute's or relationship's
-- stable id; '' for an object deleted on one side and changed on the other)
-- while both sides still hold what they held when it was chosen
-- (main_value, branch_value: the field's canonical JSON, NULL for none; for
-- a whole object, the version's data, or 'deleted'). A merge or a rebase
-- that succeeds deletes them.
CREATE TABLE merge_resolutions (
    branch_id integer NOT NULL REFERENCES branches ON DELETE CASCADE,
    object_id uuid NOT NULL,
    element_id text NOT NULL,
    side text NOT NULL CHECK (side IN ('main', 'branch')),
    main_value text,
    branch_value text,
    resolved_at timestamptz NOT NULL DEFAULT now(),
    resolved_by text NOT NULL,
    PRIMARY KEY (branch_id, object_id, element_id)
);
