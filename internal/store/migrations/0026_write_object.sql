-- write_object writes one object's new version in one statement, with all
-- that a write in a transaction does around it (internal/branch/objects.go):
-- the branch held shared and objects locked (store.LockBranch), the peers
-- checked, the number claimed from a pool (store.ClaimNumber), the version
-- and its unique values (store.WriteVersion), the audit entries, and the
-- numbers the object holds recorded, those it no longer holds released
-- (internal/numbers/record.go: store.WriteHoldings, store.ReleaseNumbers).
-- It runs as a statement of its own (autocommit): one round trip, atomic,
-- and, as a PL/pgSQL function, planned once per server connection, also
-- through a connection pooler in transaction mode (docs/scaling.md).
--
-- It answers status:
--   ok        stored; change is the write's number, freed the numbers
--             (pool, division, number) whose holdings it deleted;
--   taken     the number claimed is allocated or held in the division, or
--             the pool is not at revision p_revision (or gone); nothing
--             stored: store.NumberClaimConflict says which;
--   stale     the branch is not as the writer read it (its id, branch point
--             or schema), or the transaction is not READ COMMITTED;
--   peers     a peer is not shown by the branch, or of a kind its
--             relationship does not take;
--   referred  an object the branch shows points at the object deleted;
--   unique    main at the branch point holds a unique value the write takes.
-- Every status but ok and taken, and the errors raised once something is
-- written (IPW01: the version replaced is not the branch's any more; a
-- unique value held by another object; a deadlock), mean that nothing was
-- stored and the write is to be made in a transaction, which says why in
-- the words of a write in a transaction (store.ErrTransactionNeeded).
CREATE FUNCTION write_object(
    p_branch integer, p_point bigint, p_schema_seq bigint,
    p_shared text[], p_exclusive text[],
    p_peers jsonb,
    p_referrers text[], p_referrer_docs jsonb[],
    p_at_point jsonb[],
    p_id uuid, p_kind text, p_data jsonb, p_deleted boolean, p_prev bigint,
    p_drop text[], p_add_constraints text[], p_add_hashes bytea[],
    p_actor text, p_action text, p_object_kind text, p_before jsonb, p_after jsonb, p_branch_name text,
    p_kinds text[],
    p_pool uuid, p_revision bigint, p_division jsonb, p_number bigint, p_identifier text, p_pool_name text
) RETURNS TABLE (status text, change bigint, freed jsonb) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_seq bigint;
    v_freed jsonb := '[]';
    v_pool record;
    v_old record;
    v_division jsonb;
    v_number bigint;
BEGIN
    -- Each statement below takes its own snapshot: the releases decide
    -- after their locks (store.ReleaseNumbers), which READ COMMITTED alone
    -- gives.
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RETURN QUERY SELECT 'stale'::text, NULL::bigint, NULL::jsonb;
        RETURN;
    END IF;

    -- The branch held shared, with the objects locked, as LockBranch does;
    -- a merge, a rebase or a schema load that moved it meanwhile fails the
    -- condition once its lock is released.
    PERFORM 1 FROM branches b
    WHERE b.id = p_branch
        AND (SELECT count(pg_advisory_xact_lock_shared(b.id, hashtext(o))) FROM unnest(p_shared) o) >= 0
        AND (SELECT count(pg_advisory_xact_lock(b.id, hashtext(o))) FROM unnest(p_exclusive) o) >= 0
        AND b.branched_from IS NOT DISTINCT FROM nullif(p_point, 0)
        AND b.schema_seq IS NOT DISTINCT FROM nullif(p_schema_seq, 0)
    FOR SHARE;
    IF NOT FOUND THEN
        RETURN QUERY SELECT 'stale'::text, NULL::bigint, NULL::jsonb;
        RETURN;
    END IF;

    -- Every peer the write gives is shown by the branch, of a kind its
    -- relationship takes (p_peers: peer id → node kinds taken).
    IF EXISTS (SELECT 1 FROM jsonb_each(p_peers) k(id, kinds)
        WHERE NOT EXISTS (SELECT 1 FROM (
                (SELECT o.kind, o.deleted FROM object_versions o
                    WHERE o.object_id = k.id::uuid AND o.branch_id = p_branch AND o.to_seq IS NULL)
                UNION ALL
                (SELECT o.kind, o.deleted FROM object_versions o
                    WHERE p_branch <> 1 AND o.object_id = k.id::uuid AND o.branch_id = 1
                        AND o.from_seq <= p_point AND (o.to_seq IS NULL OR o.to_seq > p_point))
                LIMIT 1) s
            WHERE NOT s.deleted AND k.kinds ? s.kind)) THEN
        RETURN QUERY SELECT 'peers'::text, NULL::bigint, NULL::jsonb;
        RETURN;
    END IF;

    -- A deletion: no object the branch shows of the kinds p_referrers
    -- points at the object (their data holds one of p_referrer_docs).
    IF cardinality(p_referrers) > 0 AND EXISTS (
        SELECT 1 FROM object_versions o
        WHERE o.branch_id = p_branch AND o.to_seq IS NULL AND NOT o.deleted AND o.kind = ANY (p_referrers)
            AND o.data @> ANY (p_referrer_docs) AND o.object_id <> p_id
        UNION ALL
        SELECT 1 FROM object_versions o
        WHERE p_branch <> 1 AND o.branch_id = 1 AND o.kind = ANY (p_referrers)
            AND o.from_seq <= p_point AND (o.to_seq IS NULL OR o.to_seq > p_point) AND NOT o.deleted
            AND o.data @> ANY (p_referrer_docs) AND o.object_id <> p_id
            AND NOT EXISTS (SELECT 1 FROM object_versions s WHERE s.object_id = o.object_id AND s.branch_id = p_branch AND s.to_seq IS NULL)) THEN
        RETURN QUERY SELECT 'referred'::text, NULL::bigint, NULL::jsonb;
        RETURN;
    END IF;

    -- On a branch, main at the branch point holds none of the unique
    -- values the write takes (store.HeldAtPoint).
    IF p_branch <> 1 AND cardinality(p_at_point) > 0 AND EXISTS (
        SELECT 1 FROM object_versions o
        WHERE o.branch_id = 1 AND o.kind = p_kind AND o.from_seq <= p_point AND (o.to_seq IS NULL OR o.to_seq > p_point)
            AND NOT o.deleted AND o.data @> ANY (p_at_point) AND o.object_id <> p_id
            AND NOT EXISTS (SELECT 1 FROM object_versions s WHERE s.object_id = o.object_id AND s.branch_id = p_branch AND s.to_seq IS NULL)) THEN
        RETURN QUERY SELECT 'unique'::text, NULL::bigint, NULL::jsonb;
        RETURN;
    END IF;

    -- The number claimed, as store.ClaimNumber claims it: the primary key
    -- of number_allocations decides, no lock.
    IF p_pool IS NOT NULL THEN
        INSERT INTO number_allocations (pool_id, division, number, identifier, object_id, branch, created_by)
        SELECT p_pool, p_division, p_number, p_identifier, p_id, p_branch_name, p_actor FROM number_pools p
        WHERE p.id = p_pool AND p.revision = p_revision
            AND NOT EXISTS (SELECT 1 FROM number_holdings h WHERE h.pool_id = p_pool AND h.division = p_division AND h.number = p_number)
        ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            RETURN QUERY SELECT 'taken'::text, NULL::bigint, NULL::jsonb;
            RETURN;
        END IF;
        INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after, branch)
        VALUES (p_actor, 'allocate', '', 'CoreNumberPool', p_pool_name, jsonb_build_object('pool', p_pool_name, 'pool_id', p_pool,
            'division', p_division, 'number', p_number, 'identifier', p_identifier, 'object', p_id), p_branch_name);
    END IF;

    -- The version, as store.WriteVersion writes it.
    IF p_prev = 0 THEN
        INSERT INTO object_versions (branch_id, object_id, kind, data, deleted, from_seq)
        VALUES (p_branch, p_id, p_kind, p_data, p_deleted, nextval('changes_seq'))
        ON CONFLICT (object_id, branch_id) WHERE to_seq IS NULL DO NOTHING
        RETURNING from_seq INTO v_seq;
    ELSIF p_branch = 1 THEN
        UPDATE object_versions SET to_seq = nextval('changes_seq')
        WHERE object_id = p_id AND branch_id = 1 AND to_seq IS NULL AND from_seq = p_prev
        RETURNING to_seq INTO v_seq;
        IF v_seq IS NOT NULL THEN
            INSERT INTO object_versions (branch_id, object_id, kind, data, deleted, from_seq)
            VALUES (1, p_id, p_kind, p_data, p_deleted, v_seq);
        END IF;
    ELSE
        UPDATE object_versions SET data = p_data, deleted = p_deleted, from_seq = nextval('changes_seq')
        WHERE object_id = p_id AND branch_id = p_branch AND to_seq IS NULL AND from_seq = p_prev AND kind = p_kind
        RETURNING from_seq INTO v_seq;
    END IF;
    IF v_seq IS NULL THEN
        RAISE EXCEPTION 'the object % changed meanwhile', p_id USING ERRCODE = 'IPW01';
    END IF;

    -- Its unique values: one another object holds fails the statement on
    -- the primary key of unique_values.
    DELETE FROM unique_values u WHERE u.branch_id = p_branch AND u.object_id = p_id AND u.constraint_id = ANY (p_drop);
    INSERT INTO unique_values (branch_id, constraint_id, value_hash, object_id)
    SELECT p_branch, k.c, k.h, p_id FROM unnest(p_add_constraints, p_add_hashes) WITH ORDINALITY k(c, h, n)
    ORDER BY k.n;

    IF p_action <> '' THEN
        INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, after, branch)
        VALUES (p_actor, p_action, '', p_object_kind, p_id::text, p_before, p_after, p_branch_name);
    END IF;

    -- The records of number pools (numbers.Service.record): in each pool of
    -- the object's kinds, its live holding on the branch replaced when what
    -- it holds changed; on main, a row a branch sees at its branch point is
    -- ended, not deleted; on another branch, holding nothing is a row.
    FOR v_pool IN SELECT p.id, p.attribute_id, p.scope FROM number_pools p WHERE p.kind_id = ANY (p_kinds) ORDER BY p.id LOOP
        v_division := NULL;
        v_number := NULL;
        IF NOT p_deleted AND jsonb_typeof(p_data -> v_pool.attribute_id) = 'number'
            AND (p_data ->> v_pool.attribute_id) ~ '^-?[0-9]+$' AND p_data ?& v_pool.scope THEN
            v_number := (p_data ->> v_pool.attribute_id)::bigint;
            SELECT coalesce(jsonb_agg(p_data -> x.e ORDER BY x.n), '[]') INTO v_division FROM unnest(v_pool.scope) WITH ORDINALITY x(e, n);
        END IF;
        SELECT h.division, h.number, h.from_seq INTO v_old FROM number_holdings h
        WHERE h.pool_id = v_pool.id AND h.object_id = p_id AND h.branch_id = p_branch AND h.to_seq IS NULL;
        IF FOUND THEN
            CONTINUE WHEN v_old.division IS NOT DISTINCT FROM v_division AND v_old.number IS NOT DISTINCT FROM v_number;
            IF p_branch = 1 AND EXISTS (SELECT 1 FROM branches b WHERE b.id <> 1 AND b.branched_from >= v_old.from_seq) THEN
                UPDATE number_holdings SET to_seq = v_seq
                WHERE pool_id = v_pool.id AND branch_id = 1 AND object_id = p_id AND from_seq = v_old.from_seq;
            ELSE
                DELETE FROM number_holdings
                WHERE pool_id = v_pool.id AND branch_id = p_branch AND object_id = p_id AND from_seq = v_old.from_seq;
                IF v_old.number IS NOT NULL THEN
                    v_freed := v_freed || jsonb_build_object('pool', v_pool.id, 'division', v_old.division, 'number', v_old.number);
                END IF;
            END IF;
        END IF;
        IF v_number IS NOT NULL OR p_branch <> 1 THEN
            INSERT INTO number_holdings (pool_id, branch_id, object_id, division, number, from_seq)
            VALUES (v_pool.id, p_branch, p_id, v_division, v_number, v_seq);
        END IF;
    END LOOP;

    -- The numbers no holding holds any more are released, as
    -- store.ReleaseNumbers releases them: their allocations locked first,
    -- then, in a statement whose snapshot follows the locks, deleted.
    IF jsonb_array_length(v_freed) > 0 THEN
        PERFORM 1 FROM number_allocations a
            JOIN jsonb_to_recordset(v_freed) k(pool uuid, division jsonb, number bigint)
                ON a.pool_id = k.pool AND a.division = k.division AND a.number = k.number
        ORDER BY a.pool_id, a.division, a.number FOR UPDATE OF a;
        IF FOUND THEN
            WITH gone AS (
                DELETE FROM number_allocations a USING jsonb_to_recordset(v_freed) k(pool uuid, division jsonb, number bigint)
                WHERE a.pool_id = k.pool AND a.division = k.division AND a.number = k.number
                    AND NOT EXISTS (SELECT 1 FROM number_holdings h WHERE h.pool_id = a.pool_id AND h.division = a.division AND h.number = a.number)
                RETURNING a.*
            )
            INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, before, branch)
            SELECT p_actor, 'release', '', 'CoreNumberPool', p.name, jsonb_build_object('pool', p.name, 'pool_id', p.id,
                'division', g.division, 'number', g.number, 'identifier', g.identifier, 'object', g.object_id, 'allocated_on', g.branch), p_branch_name
            FROM gone g JOIN number_pools p ON p.id = g.pool_id;
        END IF;
    END IF;

    RETURN QUERY SELECT 'ok'::text, v_seq, v_freed;
END
$$;
