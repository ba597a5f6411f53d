-- The usage history counts each hour's claims and releases from the audit
-- log, whose entries bear their transaction's start: an entry of an hour
-- may commit after that hour was counted (a claim that waited on a lock
-- across the hour's end). So each count also recounts the hours of the
-- entries that committed since the previous count, whatever their time
-- (docs/operations.md, "Usage history"): xid is the transaction that wrote
-- the entry, and usage_history_counted keeps, for each kind of object
-- counted, the snapshot of the last count, which says which transactions
-- it saw. Entries written before this migration have no xid: all of them
-- have committed once it holds the table's lock, and its snapshot sees
-- them.
ALTER TABLE audit_log ADD COLUMN xid xid8;
ALTER TABLE audit_log ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX audit_log_xid ON audit_log (xid);

CREATE TABLE usage_history_counted (
    object_kind text PRIMARY KEY CHECK (object_kind IN ('IPAllocation', 'CoreNumberPool')),
    counted pg_snapshot NOT NULL
);
INSERT INTO usage_history_counted (object_kind, counted)
VALUES ('IPAllocation', pg_current_snapshot()), ('CoreNumberPool', pg_current_snapshot());
