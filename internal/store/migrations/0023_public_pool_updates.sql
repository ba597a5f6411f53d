-- A public pool's gateway, excludes and zone may change (ipam's
-- UpdatePublicPool); its prefix never does, nor any part of a private
-- pool's spec. spec_version counts the changes of a public pool's spec,
-- from 1; a private pool's stays 0. A claim in a public pool carries the
-- version of the spec it chose its address under, and stores nothing when
-- the pool's is another: its statement reads the pool's row FOR KEY SHARE,
-- which waits for an update in progress (the update locks the row FOR
-- UPDATE) and then reads the row as that update left it
-- (docs/allocation.md, "When a public pool's spec changes").
ALTER TABLE pools ADD COLUMN spec_version bigint NOT NULL DEFAULT 0;
UPDATE pools SET spec_version = 1 WHERE kind = 'public';
ALTER TABLE pools ADD CONSTRAINT pools_spec_version CHECK ((kind = 'public') = (spec_version > 0));

-- The other processes drop their cached pools when a pool's spec changes,
-- as when one is deleted (migration 0002): the claims' check above decides,
-- this only spares them a stale figure or a claim made twice.
CREATE TRIGGER pools_updated AFTER UPDATE OF gateway, exclude, zone ON pools
    FOR EACH STATEMENT EXECUTE FUNCTION notify_changed();

-- claim_address (migrations 0008, 0020 and 0021) takes the version of the public
-- pool's spec the claim was chosen under, 0 for a private pool, as
-- store.insertAllocationSQL does.
DROP FUNCTION claim_address(text, text, uuid, inet, text, text, text, text, uuid, text, text, text[]);
CREATE FUNCTION claim_address(
    p_namespace text, p_name text, p_pool_uid uuid, p_address inet,
    p_owner_kind text, p_owner_uid text, p_owner_name text, p_owner_namespace text,
    p_subnet_uid uuid, p_created_by text, p_pool text, p_spec_version bigint, p_patterns text[]
) RETURNS SETOF allocations LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY WITH a AS (
        INSERT INTO allocations (namespace, name, pool_uid, address, owner_kind, owner_uid, owner_name, owner_namespace, subnet_uid, created_by)
        SELECT p_namespace, p_name, p_pool_uid, p_address, p_owner_kind, p_owner_uid, p_owner_name, p_owner_namespace, p_subnet_uid, p_created_by
        WHERE (p_spec_version = 0 OR EXISTS (SELECT FROM pools WHERE uid = p_pool_uid AND spec_version = p_spec_version FOR KEY SHARE))
            AND NOT EXISTS (SELECT FROM quotas WHERE addresses IS NOT NULL AND pattern = ANY (p_patterns))
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
