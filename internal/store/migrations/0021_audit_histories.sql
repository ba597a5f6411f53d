-- Every object's page shows its own history (store.AuditFilter.Object),
-- read newest first down an index that holds the object's entries in the
-- order of their ids, so that a quiet object's few entries are found as
-- fast among millions of others as a busy one's (docs/operations.md,
-- "The audit log"):
--
-- audit_log_object: an object's own entries by kind, namespace and name
-- (a pool, a VPC, a subnet "<vpc>/<subnet>", an object of a kind by its
-- id…), in the C collation so that a VPC's subnets are one range of
-- names. Claims and releases of addresses and numbers, the bulk of the
-- log, are left out: the two indexes below hold them.
CREATE INDEX audit_log_object ON audit_log (object_kind, namespace, (object_name COLLATE "C"), id)
    WHERE object_kind <> 'IPAllocation' AND object_kind <> 'CoreNumberPool';

-- audit_log_allocations: the claims, releases and renames of a pool's
-- addresses, by subnet (NULL for none, and for the entries written before
-- this migration, which did not name it).
CREATE INDEX audit_log_allocations ON audit_log (namespace, (coalesce(after, before) ->> 'pool'), (coalesce(after, before) ->> 'subnet'), id)
    WHERE object_kind = 'IPAllocation';

-- audit_log_numbers: a number pool's entries by its id, whether the
-- pool's own (its document's id) or of its numbers (pool_id): its name
-- may change.
CREATE INDEX audit_log_numbers ON audit_log ((coalesce(coalesce(after, before) ->> 'pool_id', coalesce(after, before) ->> 'id')), id)
    WHERE object_kind = 'CoreNumberPool';

-- claim_address (migrations 0008 and 0020) records a claim's subnet too,
-- as store.insertAllocationSQL does (audit.Allocation).
CREATE OR REPLACE FUNCTION claim_address(
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
            'ownerNamespace', a.owner_namespace,
            'subnet', (SELECT s.name FROM subnets s WHERE s.uid = a.subnet_uid))
        FROM a
    )
    SELECT * FROM a;
END
$$;
