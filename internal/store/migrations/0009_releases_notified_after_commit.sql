-- A release ipam makes (store.ReleaseAllocation) no longer notifies inside
-- its transaction: PostgreSQL serialises the commits of notifying
-- transactions on one lock held through their WAL flush, so releases
-- committed one at a time (issue 14). The releasing process sends the
-- notification itself once the release committed, many in one transaction
-- (internal/ipam/notifier.go); the statement tells this trigger so by the
-- transaction's setting ipam.notify_released. Every other delete of
-- allocations (a subnet's, a VPC's, one by hand) is still announced here.
CREATE OR REPLACE FUNCTION allocations_notify_released() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    pool record;
BEGIN
    IF current_setting('ipam.notify_released', true) = 'after commit' THEN
        RETURN NULL;
    END IF;
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
