-- Dual stack: IPv6 pools, VPCs and subnets beside the IPv4 ones, exact at
-- 128 bits (docs/allocation.md). Nothing of IPv4 changes: every IPv4 row
-- stays valid as it is, every column added is empty or has its default.

-- A pool is of one family, its prefix's: the gateway lies in the prefix
-- (pools_gateway_check), so it is of the same family. A public IPv6 pool
-- hands out addresses (router uplinks) or, with a delegated prefix length,
-- aligned prefixes of that one length to VPCs (delegated_prefixes below).
ALTER TABLE pools DROP CONSTRAINT pools_cidr_check;
ALTER TABLE pools ADD COLUMN delegated_prefix_length integer NOT NULL DEFAULT 0;
ALTER TABLE pools ADD CONSTRAINT pools_delegated_prefix_length CHECK (
    delegated_prefix_length = 0
    OR kind = 'public' AND family(cidr) = 6 AND delegated_prefix_length BETWEEN masklen(cidr) AND 128
);

-- A VPC has a private pool of each family it has: vpc-<name> and, with an
-- IPv6 prefix, vpc-<name>-v6.
DROP INDEX pools_vpc_uid;
CREATE UNIQUE INDEX pools_vpc_uid_family ON pools (vpc_uid, family(cidr)) WHERE vpc_uid IS NOT NULL;

-- A VPC's IPv6 prefix is given (a ULA, say) or delegated from a public
-- delegation pool of its zone (ipv6_delegated: a row of delegated_prefixes
-- holds it, and goes with the VPC). ipv6_key is the secret of its stable
-- opaque host addresses (ipv6_addressing STABLE_OPAQUE), drawn when the
-- VPC is made with its IPv6 prefix and never shown.
ALTER TABLE vpcs
    ADD COLUMN ipv6_cidr cidr CONSTRAINT vpcs_ipv6_cidr_family CHECK (family(ipv6_cidr) = 6),
    ADD COLUMN ipv6_delegated boolean NOT NULL DEFAULT false,
    ADD COLUMN ipv6_addressing text NOT NULL DEFAULT 'LOWEST_FREE'
        CONSTRAINT vpcs_ipv6_addressing_check CHECK (ipv6_addressing IN ('LOWEST_FREE', 'STABLE_OPAQUE')),
    ADD COLUMN ipv6_key bytea CONSTRAINT vpcs_ipv6_key_length CHECK (octet_length(ipv6_key) = 32),
    ADD CONSTRAINT vpcs_ipv6 CHECK (
        CASE WHEN ipv6_cidr IS NULL THEN NOT ipv6_delegated AND ipv6_addressing = 'LOWEST_FREE' AND ipv6_key IS NULL
        ELSE ipv6_key IS NOT NULL END
    );

-- The prefixes public delegation pools gave to VPCs: aligned prefixes of
-- the pool's delegated_prefix_length, so that of two claims of one prefix
-- the primary key refuses the second, as allocations_pkey does for
-- addresses; a VPC holds one at most, and gives it back when it goes.
-- Deleting the pool is refused while it has delegated a prefix.
CREATE TABLE delegated_prefixes (
    pool_uid uuid NOT NULL REFERENCES pools (uid),
    prefix cidr NOT NULL CHECK (family(prefix) = 6),
    vpc_uid uuid NOT NULL REFERENCES vpcs (uid) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    created_by text NOT NULL,
    CONSTRAINT delegated_prefixes_pkey PRIMARY KEY (pool_uid, prefix),
    CONSTRAINT delegated_prefixes_vpc_key UNIQUE (vpc_uid)
);

-- A release of a delegated prefix tells the other processes' views of the
-- pool, as a release of an address does (migrations 0002 and 0009): the
-- view of a delegation pool holds the first address of each prefix it
-- gave.
CREATE FUNCTION delegated_prefixes_notify_released() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('ipam_released', gone.pool_uid::text || ' ' || host(gone.prefix)) FROM gone;
    RETURN NULL;
END
$$;

CREATE TRIGGER delegated_prefixes_released AFTER DELETE ON delegated_prefixes
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION delegated_prefixes_notify_released();

-- A subnet has an IPv4 prefix and, in a VPC with an IPv6 prefix, may have
-- an IPv6 one with its gateway. Two subnets of a VPC never overlap in
-- either family.
ALTER TABLE subnets
    ADD COLUMN ipv6_cidr cidr CONSTRAINT subnets_ipv6_cidr_family CHECK (family(ipv6_cidr) = 6),
    ADD COLUMN ipv6_gateway inet CONSTRAINT subnets_ipv6_gateway_inside CHECK (ipv6_gateway <<= ipv6_cidr),
    ADD CONSTRAINT subnets_ipv6_gateway CHECK ((ipv6_cidr IS NULL) = (ipv6_gateway IS NULL)),
    ADD CONSTRAINT subnets_ipv6_no_overlap EXCLUDE USING gist (vpc_uid WITH =, ipv6_cidr inet_ops WITH &&)
        WHERE (ipv6_cidr IS NOT NULL);

-- An allocation holds one address of either family.
ALTER TABLE allocations DROP CONSTRAINT allocations_address_check;
ALTER TABLE allocations ADD CONSTRAINT allocations_address_host
    CHECK (masklen(address) = CASE family(address) WHEN 4 THEN 32 ELSE 128 END);

-- The sizes of IPv6 spaces pass bigint's 2^63 - 1 (a /64 holds 2^64
-- addresses): the usage history keeps exact integers of up to 39 digits.
ALTER TABLE usage_history
    ALTER COLUMN used TYPE numeric(39, 0),
    ALTER COLUMN size TYPE numeric(39, 0);
