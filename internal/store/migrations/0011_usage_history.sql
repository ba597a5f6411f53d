-- The history of usage (issue 15): per pool and per subnet, one row an
-- hour (kept 35 days) and one a day (kept 400 days), the last figures
-- written in that hour or day. The ipam serve processes write them outside
-- any claim (internal/ipam RecordUsage); rows of objects deleted go with
-- the pruning. No foreign key: a pool's history outlives nothing, and
-- claims take no lock on it.
CREATE TABLE usage_history (
    object_uid uuid NOT NULL,
    object_kind text NOT NULL CHECK (object_kind IN ('pool', 'subnet')),
    step text NOT NULL CHECK (step IN ('hour', 'day')),
    at timestamptz NOT NULL,
    used bigint NOT NULL CHECK (used >= 0),
    size bigint NOT NULL CHECK (size >= 0),
    PRIMARY KEY (object_uid, step, at)
);
CREATE INDEX usage_history_step_at ON usage_history (step, at);
