-- The usage history (migration 0011), continued for issue 15's charts and
-- dashboard: the claims and releases of each hour and day (counted from
-- the audit log by the writer, outside any claim: docs/operations.md), and
-- the divisions of number pools beside pools and subnets.
ALTER TABLE usage_history
    ADD COLUMN claims bigint NOT NULL DEFAULT 0 CHECK (claims >= 0),
    ADD COLUMN releases bigint NOT NULL DEFAULT 0 CHECK (releases >= 0),
    DROP CONSTRAINT usage_history_object_kind_check,
    ADD CONSTRAINT usage_history_object_kind_check CHECK (object_kind IN ('pool', 'subnet', 'division'));

-- A division of a number pool has no row of its own: its history is kept
-- under this uid, the same for the same pool and division (its canonical
-- JSON) in every process.
CREATE FUNCTION number_division_uid(pool_id uuid, division jsonb) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5(pool_id::text || ' ' || division::text)::uuid;
