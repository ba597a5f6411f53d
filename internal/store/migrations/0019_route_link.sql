-- The link between ipam processes that carries forwarded claims
-- (internal/routing, docs/scaling.md, "The route link").
--
-- Each process makes a key pair when it starts and publishes its
-- certificate here; the processes pin each other's certificates on the
-- link, both ways, so reading the database is not enough to speak on it.
CREATE TABLE route_processes (
    process text PRIMARY KEY,
    -- certificate is the DER of the process's self-signed certificate,
    -- whose common name is process.
    certificate bytea NOT NULL,
    since timestamptz NOT NULL DEFAULT now(),
    -- seen is when the process last said it runs; rows long unseen are
    -- dropped by the others.
    seen timestamptz NOT NULL DEFAULT now()
);

-- orphaned_at is when a process first found the pool's lock free while the
-- route still named another process (whose lock connection died): that
-- process may not have noticed yet, so nobody else takes the pool over
-- before it must have (store.OwnerLocks).
ALTER TABLE claim_routes ADD COLUMN orphaned_at timestamptz;

-- previous is the secret before the last rotation (ipam cluster
-- rotate-secret), still accepted for a moment after rotated_at so that a
-- handshake that read the secret before the rotation succeeds.
ALTER TABLE cluster_secret ADD COLUMN previous text, ADD COLUMN rotated_at timestamptz;

-- Only the tables' owner, the role ipam runs as, reads the cluster secret:
-- not PUBLIC (which default privileges may have granted it), nor a role
-- granted every table of the schema, such as a reporting role.
REVOKE ALL ON cluster_secret FROM PUBLIC;
DO $$
DECLARE
    grantee oid;
BEGIN
    FOR grantee IN
        SELECT DISTINCT a.grantee FROM pg_class c, aclexplode(c.relacl) a
        WHERE c.oid = 'cluster_secret'::regclass AND a.grantee NOT IN (0, c.relowner)
    LOOP
        EXECUTE format('REVOKE ALL ON cluster_secret FROM %I', (SELECT rolname FROM pg_roles WHERE oid = grantee));
    END LOOP;
END
$$;
