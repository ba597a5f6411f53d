-- Claim routing (issue 14): the claims of a pool go to one process, its
-- owner, which hands out distinct candidates from its view without racing;
-- the others forward their claims to it (internal/routing). A process owns
-- a pool while it holds a session advisory lock on it (so the ownership
-- ends with its connection); claim_routes says where the owner listens.
-- A stale row costs forwarded claims a fallback, never a duplicate: the
-- unique indexes still decide every claim.
CREATE TABLE claim_routes (
    pool_uid uuid PRIMARY KEY REFERENCES pools (uid) ON DELETE CASCADE,
    -- address is host:port of the owner's route listener; host the
    -- owner's host name, so that a loopback address is dialled only from
    -- the same host.
    address text NOT NULL,
    host text NOT NULL,
    process text NOT NULL,
    since timestamptz NOT NULL DEFAULT now()
);

-- cluster_secret authenticates the processes of one database to each
-- other on their route listeners: whoever may read it may write the
-- allocations anyway.
CREATE TABLE cluster_secret (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    secret text NOT NULL
);
INSERT INTO cluster_secret (secret)
VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
