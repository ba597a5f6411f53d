-- The IP half, tightened: the database itself refuses overlapping subnets,
-- an owner's identity is what names it for good (a VM is its uid and NIC,
-- not its hostname) within its own namespace, every private address is
-- linked to the subnet it lies in, and allocations and pools carry what
-- manifests print.

-- Two subnets of one VPC never overlap, whatever the isolation level and
-- whichever process creates them: the exclusion constraint decides, as the
-- primary key of allocations does for addresses. btree_gist gives GiST the
-- uuid equality; it is a trusted extension (PostgreSQL 13 and later), so
-- the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS btree_gist;
ALTER TABLE subnets ADD CONSTRAINT subnets_no_overlap
    EXCLUDE USING gist (vpc_uid WITH =, cidr inet_ops WITH &&);

-- owner_ref is the part of an owner's name that identifies it: a VM's NIC
-- index (its name "<hostname>/<nic>" follows the hostname), the whole name
-- for the other kinds. An owner holds at most one address of a pool, and
-- owners of different namespaces are different owners.
ALTER TABLE allocations ADD COLUMN owner_ref text NOT NULL GENERATED ALWAYS AS (
    CASE WHEN owner_kind = 'VirtualMachine' THEN substring(owner_name FROM '[^/]*$') ELSE owner_name END
) STORED;

DO $$
DECLARE
    twice record;
BEGIN
    SELECT p.namespace, p.name AS pool, a.owner_uid, a.owner_ref, string_agg(host(a.address) || ' (' || a.owner_name || ')', ', ' ORDER BY a.address) AS held
    INTO twice
    FROM allocations a JOIN pools p ON p.uid = a.pool_uid
    GROUP BY p.namespace, p.name, a.pool_uid, a.owner_namespace, a.owner_kind, a.owner_uid, a.owner_ref
    HAVING count(*) > 1
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'VM % NIC % holds several addresses of pool %/%: %; release all but one (GraphQL: release) and run ipam migrate again',
            twice.owner_uid, twice.owner_ref, twice.namespace, twice.pool, twice.held;
    END IF;
END
$$;

ALTER TABLE allocations DROP CONSTRAINT allocations_owner_key;
ALTER TABLE allocations ADD CONSTRAINT allocations_owner_key
    UNIQUE (pool_uid, owner_namespace, owner_kind, owner_uid, owner_ref);

-- Every address of a private pool that lies in a subnet belongs to it: it
-- counts in the subnet's usage and keeps the subnet from being deleted.
UPDATE allocations a SET subnet_uid = s.uid
FROM pools p, subnets s
WHERE a.subnet_uid IS NULL AND p.uid = a.pool_uid AND s.vpc_uid = p.vpc_uid AND a.address <<= s.cidr;

-- What manifests print: an allocation's uid, a pool's labels.
ALTER TABLE allocations ADD COLUMN uid uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE pools ADD COLUMN labels jsonb NOT NULL DEFAULT '{}';

-- Security findings (issue 9, part 7): sessions end with a new password,
-- sign-in limits per user name and client address.

-- A console session keeps the session_generation its user had at sign-in
-- and ends when the user's differs: ipam user set-password and ipam user
-- sessions end draw a new one. It comes from a sequence, so that a user
-- deleted and created again under the same name never revives the
-- sessions of the one before. Sessions started before this migration
-- carry none, and end.
CREATE SEQUENCE users_session_generation_seq;
ALTER TABLE users ADD COLUMN session_generation bigint NOT NULL DEFAULT nextval('users_session_generation_seq');
ALTER SEQUENCE users_session_generation_seq OWNED BY users.session_generation;

-- Failed sign-ins are counted per user name and client address together
-- as well as per user name and per client address.
CREATE INDEX login_attempts_user_name_client ON login_attempts (user_name, client, at);
