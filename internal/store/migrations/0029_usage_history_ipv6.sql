-- The usage history (migrations 0011, 0012) keeps the IPv6 side of
-- dual-stack spaces (migration 0027) beside their IPv4 side:
-- 'subnet-ipv6', a subnet's IPv6 prefix in addresses, under the uid
-- ipv6_side_uid(subnet uid), since the subnet's own uid names its IPv4
-- side; 'vpc-ipv6', a VPC's IPv6 prefix in prefixes of its subnets'
-- length (/64s), under the VPC's uid, which no other row uses.
ALTER TABLE usage_history
    DROP CONSTRAINT usage_history_object_kind_check,
    ADD CONSTRAINT usage_history_object_kind_check
        CHECK (object_kind IN ('pool', 'subnet', 'division', 'subnet-ipv6', 'vpc-ipv6'));

-- The IPv6 side of a subnet has no row of its own: its history is kept
-- under this uid, the same for the same subnet in every process.
CREATE FUNCTION ipv6_side_uid(uid uuid) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN md5('ipv6 ' || uid::text)::uuid;

-- The count of an hour's IPv6 claims finds each one's subnet as that of an
-- IPv4 claim (migration 0014): the last subnet of the VPC at or before the
-- address, one probe of a B-tree, faster than the exclusion constraint's
-- GiST index of migration 0027.
CREATE INDEX subnets_vpc_ipv6_cidr ON subnets (vpc_uid, ipv6_cidr) WHERE ipv6_cidr IS NOT NULL;
