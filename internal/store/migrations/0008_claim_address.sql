-- claim_address claims an address as store.insertAllocationSQL does: the
-- allocation inserted unless its address or its owner is taken and, when
-- it is, recorded in the audit log, in one statement. Clients behind a
-- connection pooler in transaction mode call it, as they cannot prepare a
-- statement by name: PL/pgSQL plans the statement once per server
-- connection and keeps the plan, so that they do not pay for planning it on
-- every claim (issue 14). store's TestClaimAddress checks that both store
-- the same.
CREATE FUNCTION claim_address(
    p_namespace text, p_name text, p_pool_uid uuid, p_address inet,
    p_owner_kind text, p_owner_uid text, p_owner_name text, p_owner_namespace text,
    p_subnet_uid uuid, p_created_by text, p_pool text
) RETURNS SETOF allocations LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY WITH a AS (
        INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
        VALUES (p_namespace, p_name, p_pool_uid, p_address, p_owner_kind, p_owner_uid, p_owner_name, p_owner_namespace, p_subnet_uid, p_created_by)
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
