-- The audit log's filters by actor, action and kind of object
-- (store.AuditFilter) read a page newest first down an index that holds
-- the entries of one actor, action or kind in the order of their ids, so
-- that a quiet actor's or a rare action's few entries are found as fast
-- among millions of claims as a busy one's (BenchmarkAuditHistory).
CREATE INDEX audit_log_actor ON audit_log (actor, id);
CREATE INDEX audit_log_action ON audit_log (action, id);

-- The claims and releases of addresses and numbers, the bulk of the log,
-- are dense enough that a page of their kind is found down the primary
-- key; every other kind by this index.
CREATE INDEX audit_log_kind ON audit_log (object_kind, id)
    WHERE object_kind <> 'IPAllocation' AND object_kind <> 'CoreNumberPool';

-- audit_log_branch: the changes of objects and numbers made on a branch,
-- which its history shows (store.AuditFilter.Object). Main's, most of
-- them, are left out: they are the objects' own histories.
CREATE INDEX audit_log_branch ON audit_log (branch, id)
    WHERE branch IS NOT NULL AND branch <> 'main';
