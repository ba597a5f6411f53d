-- Migration 0013 was changed after some databases had run it: those that
-- ran its first form (commit 3e2714e) hold an index of (owner_namespace,
-- lower(owner_name)) where every other database holds one of
-- (owner_namespace, address). This makes both the same, whichever form of
-- 0013 ran: the index store/search.go reads is (owner_namespace, address).
DROP INDEX IF EXISTS allocations_owner_namespace_name;
CREATE INDEX IF NOT EXISTS allocations_owner_namespace_address ON allocations (owner_namespace, address);
