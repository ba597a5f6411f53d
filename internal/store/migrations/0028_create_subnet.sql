-- create_subnet creates a subnet planned on a process's view of its VPC's
-- subnets in one statement, with all that the transaction of
-- internal/ipam's CreateSubnet does around the insert: the namespace's
-- quota lock, then the VPC's row lock (in that order, as every
-- transaction takes them: docs/allocation.md, "Quotas"), the quota of
-- subnets counted under them, the subnet inserted, the addresses of the
-- VPC's IPv4 pool in its prefix linked to it (store.LinkAllocations), and
-- the audit entry. It runs as a statement of its own (autocommit): one
-- round trip, atomic, and, as a PL/pgSQL function, each statement in it
-- takes its snapshot after the locks before it, as the statements of a
-- READ COMMITTED transaction do.
--
-- It answers status:
--   ok     stored; created_at is the subnet's;
--   stale  the VPC is not p_vpc_uid with the prefixes the plan was made in,
--          the pool p_pool is gone, or the transaction is not READ
--          COMMITTED;
--   quota  a quota's limit of subnets for the namespace is reached.
-- The insert has no ON CONFLICT clause: a name taken in the VPC, or a
-- sibling overlapping a prefix (subnets_no_overlap and
-- subnets_ipv6_no_overlap decide, once the transactions inserting a
-- sibling that overlaps have ended), raises the constraint's error, which
-- undoes the statement, as an address linked that is one of p_never (the
-- gateway, the network or broadcast address) raises IPS01; so each
-- exclusion constraint is checked once, where a speculative insert checks
-- it before and after. Every answer but ok, and every error an integrity
-- constraint or a deadlock raises, mean that nothing was stored and the
-- subnet is to be created in a transaction (store.ErrTransactionNeeded),
-- which says why in its words, or plans again on the siblings read afresh
-- when another create took a prefix planned.
CREATE FUNCTION create_subnet(
    p_vpc_uid uuid, p_namespace text, p_vpc_cidr cidr, p_vpc_ipv6_cidr cidr, p_patterns text[],
    p_uid uuid, p_name text, p_cidr cidr, p_gateway inet, p_ipv6_cidr cidr, p_ipv6_gateway inet, p_created_by text,
    p_pool text, p_first inet, p_last inet, p_never inet[],
    p_action text, p_object_kind text, p_object_name text, p_after jsonb
) RETURNS TABLE (status text, created_at timestamptz) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_limit integer;
    v_pool uuid;
    v_created timestamptz;
    v_held inet;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RETURN QUERY SELECT 'stale'::text, NULL::timestamptz;
        RETURN;
    END IF;

    -- The quota lock as store.LockQuotas takes it, then the VPC's row.
    PERFORM pg_advisory_xact_lock(hashtextextended('quota ' || p_namespace, 0))
    WHERE EXISTS (SELECT FROM quotas WHERE pattern = ANY (p_patterns));
    PERFORM 1 FROM vpcs v
    WHERE v.uid = p_vpc_uid AND v.namespace = p_namespace AND v.cidr = p_vpc_cidr
        AND v.ipv6_cidr IS NOT DISTINCT FROM p_vpc_ipv6_cidr
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'stale'::text, NULL::timestamptz;
        RETURN;
    END IF;

    -- The quota of subnets, as internal/ipam's checkQuota counts it: the
    -- lowest limit of the quotas matching the namespace, against its
    -- subnets counted under the namespace's lock.
    SELECT min(q.subnets) INTO v_limit FROM quotas q WHERE q.subnets IS NOT NULL AND q.pattern = ANY (p_patterns);
    IF v_limit IS NOT NULL THEN
        PERFORM pg_advisory_xact_lock(hashtextextended('quota ' || p_namespace, 0));
        IF (SELECT count(*) FROM subnets s WHERE s.vpc_uid IN (SELECT v.uid FROM vpcs v WHERE v.namespace = p_namespace)) >= v_limit THEN
            RETURN QUERY SELECT 'quota'::text, NULL::timestamptz;
            RETURN;
        END IF;
    END IF;

    SELECT p.uid INTO v_pool FROM pools p WHERE p.namespace = p_namespace AND p.name = p_pool;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'stale'::text, NULL::timestamptz;
        RETURN;
    END IF;

    INSERT INTO subnets (uid, vpc_uid, name, cidr, gateway, created_by, ipv6_cidr, ipv6_gateway)
    VALUES (p_uid, p_vpc_uid, p_name, p_cidr, p_gateway, p_created_by, p_ipv6_cidr, p_ipv6_gateway)
    RETURNING created_at INTO v_created;

    -- The addresses claimed before subnets had to hold every private
    -- address: p_first to p_last are the first and last addresses of
    -- p_cidr, bounds the index of (pool_uid, address) takes.
    WITH linked AS (
        UPDATE allocations a SET subnet_uid = p_uid
        WHERE a.pool_uid = v_pool AND a.subnet_uid IS NULL AND a.address BETWEEN p_first AND p_last
        RETURNING a.address
    )
    SELECT l.address INTO v_held FROM linked l WHERE l.address = ANY (p_never) LIMIT 1;
    IF v_held IS NOT NULL THEN
        RAISE EXCEPTION 'address % of subnet % is held already', host(v_held), p_cidr USING ERRCODE = 'IPS01';
    END IF;

    INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
    VALUES (p_created_by, p_action, p_namespace, p_object_kind, p_object_name, p_after);

    RETURN QUERY SELECT 'ok'::text, v_created;
END
$$;
