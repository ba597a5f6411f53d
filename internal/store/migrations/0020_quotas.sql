-- quotas bound what each namespace matching a pattern may hold
-- (docs/allocation.md, "Quotas"): a limit of each kind, NULL for none.
-- Every namespace the pattern matches has its own limit: "acme/*" with
-- floating_ips 2 lets acme/prod hold 2 and acme/dev 2.
CREATE TABLE quotas (
    pattern text PRIMARY KEY,
    vpcs integer CHECK (vpcs >= 0),
    subnets integer CHECK (subnets >= 0),
    floating_ips integer CHECK (floating_ips >= 0),
    addresses integer CHECK (addresses >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    updated_by text NOT NULL,
    CHECK (num_nonnulls(vpcs, subnets, floating_ips, addresses) > 0)
);

-- claim_address (migration 0008) takes the patterns that match the owner's
-- namespace (store.NamespacePatterns) and inserts nothing when a quota of
-- addresses is set for one of them, as store.insertAllocationSQL does:
-- such a claim is made again under the namespace's lock, counted
-- (internal/ipam's claimUnderQuota).
DROP FUNCTION claim_address(text, text, uuid, inet, text, text, text, text, uuid, text, text);
CREATE FUNCTION claim_address(
    p_namespace text, p_name text, p_pool_uid uuid, p_address inet,
    p_owner_kind text, p_owner_uid text, p_owner_name text, p_owner_namespace text,
    p_subnet_uid uuid, p_created_by text, p_pool text, p_patterns text[]
) RETURNS SETOF allocations LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY WITH a AS (
        INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
        SELECT p_namespace, p_name, p_pool_uid, p_address, p_owner_kind, p_owner_uid, p_owner_name, p_owner_namespace, p_subnet_uid, p_created_by
        WHERE NOT EXISTS (SELECT FROM quotas WHERE addresses IS NOT NULL AND pattern = ANY (p_patterns))
        ON CONFLICT DO NOTHING
        RETURNING *
    ), audit AS (
        INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after)
        SELECT a.created_by, 'allocate', a.namespace, 'IPAllocation', a.name, jsonb_build_object(
            'pool', p_pool, 'address', host(a.address),
            'owner', jsonb_build_object('kind', a.owner_kind, 'uid', a.owner_uid, 'name', a.owner_name),
            'ownerNamespace', a.owner_namespace)
        FROM a
    )
    SELECT * FROM a;
END
$$;
