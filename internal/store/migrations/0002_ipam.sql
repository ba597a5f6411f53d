-- IP address management: pools, VPCs, subnets, allocations, floating IPs,
-- the users and tokens that change them, and the audit log of every change.

-- users are the people and robots that sign in. A tenant sees only the
-- namespaces matching its patterns ("acme/prod", "acme/*").
CREATE TABLE users (
    name text PRIMARY KEY,
    role text NOT NULL CHECK (role IN ('operator', 'tenant')),
    namespaces text[] NOT NULL DEFAULT '{}',
    password_hash text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- api_tokens are bearer tokens; only their SHA-256 is stored.
CREATE TABLE api_tokens (
    id bigserial PRIMARY KEY,
    user_name text NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_tokens_user_name ON api_tokens (user_name);

-- vpcs are tenants' private networks. Their prefixes may overlap.
CREATE TABLE vpcs (
    uid uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    namespace text NOT NULL CHECK (namespace <> ''),
    name text NOT NULL,
    cidr cidr NOT NULL CHECK (family(cidr) = 4 AND masklen(cidr) BETWEEN 8 AND 28),
    zone text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    UNIQUE (namespace, name)
);

-- pools hand out addresses. Public pools are cluster-scoped (namespace '')
-- and never overlap; private pools belong to a VPC and go with it. The spec
-- (cidr, gateway, exclude) never changes after creation.
CREATE TABLE pools (
    uid uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    namespace text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('public', 'private')),
    cidr cidr NOT NULL CHECK (family(cidr) = 4),
    gateway inet CHECK (gateway <<= cidr),
    exclude text[] NOT NULL DEFAULT '{}',
    zone text NOT NULL DEFAULT '',
    vpc_uid uuid REFERENCES vpcs (uid) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    UNIQUE (namespace, name),
    CHECK ((kind = 'public') = (namespace = '')),
    CHECK ((kind = 'private') = (vpc_uid IS NOT NULL)),
    -- Two public pools never overlap, even when created at the same time.
    CONSTRAINT pools_public_no_overlap EXCLUDE USING gist (cidr inet_ops WITH &&) WHERE (kind = 'public')
);
CREATE UNIQUE INDEX pools_vpc_uid ON pools (vpc_uid) WHERE vpc_uid IS NOT NULL;
CREATE INDEX pools_zone ON pools (zone, name) WHERE kind = 'public';

-- subnets carve a VPC's prefix. Siblings never overlap: creating one locks
-- its VPC's row.
CREATE TABLE subnets (
    uid uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    vpc_uid uuid NOT NULL REFERENCES vpcs (uid) ON DELETE CASCADE,
    name text NOT NULL,
    cidr cidr NOT NULL CHECK (family(cidr) = 4),
    gateway inet NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    UNIQUE (vpc_uid, name)
);

-- allocations: one row for each address held. The primary key on
-- (namespace, name), the name being "<pool>-<a-b-c-d>", is the arbiter of
-- every claim: of two inserts of one address, one fails. The owner index
-- makes an owner hold at most one address of a pool, also under races.
-- Deleting a pool or a subnet never takes allocations with it by cascade:
-- the service deletes what may go first, and a claim that raced in makes
-- the delete fail instead of vanishing.
CREATE TABLE allocations (
    namespace text NOT NULL,
    name text NOT NULL,
    pool_uid uuid NOT NULL REFERENCES pools (uid),
    address inet NOT NULL CHECK (family(address) = 4 AND masklen(address) = 32),
    owner_kind text NOT NULL CHECK (owner_kind IN ('VirtualMachine', 'FloatingIP', 'VPC', 'Node')),
    owner_uid text NOT NULL,
    owner_name text NOT NULL,
    -- The namespace of the owner: the tenant's, also for public pools.
    owner_namespace text NOT NULL,
    subnet_uid uuid REFERENCES subnets (uid),
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    CONSTRAINT allocations_pkey PRIMARY KEY (namespace, name),
    CONSTRAINT allocations_owner_key UNIQUE (pool_uid, owner_kind, owner_uid, owner_name)
);
CREATE INDEX allocations_pool_address ON allocations (pool_uid, address);
CREATE INDEX allocations_subnet ON allocations (subnet_uid) WHERE subnet_uid IS NOT NULL;
CREATE INDEX allocations_owner_namespace ON allocations (owner_namespace);

-- floating_ips are tenants' public addresses; the address is the
-- allocation owned by the FloatingIP.
CREATE TABLE floating_ips (
    uid uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    namespace text NOT NULL CHECK (namespace <> ''),
    name text NOT NULL,
    pool_uid uuid NOT NULL REFERENCES pools (uid),
    address inet NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    UNIQUE (namespace, name)
);

-- audit_log records every change: who, when, what, before and after.
CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    actor text NOT NULL,
    action text NOT NULL,
    namespace text NOT NULL DEFAULT '',
    object_kind text NOT NULL,
    object_name text NOT NULL,
    before jsonb,
    after jsonb
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_namespace ON audit_log (namespace, at);

-- Every process keeps a view of the taken addresses of the pools it serves.
-- Claims need no message: another process's claim shows up as a conflict.
-- Releases do, or the other views would keep a freed address taken: this
-- trigger tells them, on channel ipam_released, "<pool uid> <address>" for
-- each freed address, or "<pool uid>" alone (reload the whole view) when a
-- statement frees many, as deleting a subnet or a VPC does.
CREATE FUNCTION allocations_notify_released() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    pool record;
BEGIN
    FOR pool IN SELECT pool_uid, count(*) AS n FROM gone GROUP BY pool_uid LOOP
        IF pool.n > 64 THEN
            PERFORM pg_notify('ipam_released', pool.pool_uid::text);
        ELSE
            PERFORM pg_notify('ipam_released', gone.pool_uid::text || ' ' || host(gone.address))
            FROM gone WHERE gone.pool_uid = pool.pool_uid;
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER allocations_released AFTER DELETE ON allocations
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION allocations_notify_released();

-- Every process caches pools and subnets by name (their specs never
-- change). When one is deleted, this tells the other processes to drop
-- their caches, on channel ipam_changed.
CREATE FUNCTION notify_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('ipam_changed', TG_TABLE_NAME);
    RETURN NULL;
END
$$;

CREATE TRIGGER pools_deleted AFTER DELETE ON pools
    FOR EACH STATEMENT EXECUTE FUNCTION notify_changed();
CREATE TRIGGER subnets_deleted AFTER DELETE ON subnets
    FOR EACH STATEMENT EXECUTE FUNCTION notify_changed();
