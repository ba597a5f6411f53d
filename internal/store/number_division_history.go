package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// DivisionUsages returns the usage of every division of every number
// pool as number_division_usage holds it (fold the pools' marks first:
// FoldDivisionUsage), as records of the history (RecordUsage) under the
// uid number_division_uid(pool, division): used, the numbers of the pool's
// ranges it holds; size, the numbers in the ranges (their union, counted
// as candidates.NumberPool.Size counts them: ranges never overlap).
func DivisionUsages(ctx context.Context, ext Ext) ([]UsageRecord, error) {
	var scans []struct {
		UID  string `db:"uid"`
		Used int64  `db:"used"`
		Size int64  `db:"size"`
	}
	if err := sqlx.SelectContext(ctx, ext, &scans, `
		SELECT number_division_uid(u.pool_id, u.division) AS uid, u.used, p.size
		FROM number_pools n
			CROSS JOIN LATERAL (
				SELECT coalesce(sum(upper(r) - lower(r)), 0) AS size FROM unnest((SELECT range_agg(int8range((e->>'start')::bigint, (e->>'end')::bigint, '[]'))
					FROM jsonb_array_elements(n.ranges) e)) r
			) p
			JOIN number_division_usage u ON u.pool_id = n.id`); err != nil {
		return nil, fmt.Errorf("store: unable to read the usage of the number pools' divisions: %w", classify(err))
	}
	out := make([]UsageRecord, len(scans))
	for i, s := range scans {
		out[i] = UsageRecord{ObjectUID: s.UID, ObjectKind: "division", Used: s.Used, Size: s.Size}
	}
	return out, nil
}

// countDivisionChangesSQL counts the numbers allocated from the pools and
// released (the audit log's allocate and release of CoreNumberPool, which
// name the pool's id and the division) in the hours $1 (their starts,
// UTC), per division and hour, into the hours' rows of the history.
const countDivisionChangesSQL = `
	WITH changes AS (
		SELECT h.hour, a.action, coalesce(a.after, a.before) AS entry
		FROM unnest($1::timestamptz[]) h (hour)
		JOIN audit_log a ON a.at >= h.hour AND a.at < h.hour + interval '1 hour'
		WHERE a.object_kind = 'CoreNumberPool' AND a.action IN ('allocate', 'release')
	), counted AS (
		SELECT number_division_uid((entry->>'pool_id')::uuid, entry->'division') AS uid, hour,
			count(*) FILTER (WHERE action = 'allocate') AS claims, count(*) FILTER (WHERE action = 'release') AS releases
		FROM changes GROUP BY 1, hour
	)
	UPDATE usage_history h SET claims = c.claims, releases = c.releases
	FROM counted c
	WHERE h.object_uid = c.uid AND h.step = 'hour' AND h.at = c.hour AND h.object_kind = 'division'`

// BusiestDivisions returns, for every number pool, its perPool most used
// divisions as number_division_usage holds them (fold first), most used
// first, ties by division: each pool's read through its index of usage.
func BusiestDivisions(ctx context.Context, ext Ext, perPool int) ([]PoolDivisionUsage, error) {
	var scans []struct {
		Pool     string `db:"pool_id"`
		Division []byte `db:"division"`
		Used     int64  `db:"used"`
	}
	if err := sqlx.SelectContext(ctx, ext, &scans, `SELECT p.id AS pool_id, d.division, d.used
		FROM number_pools p CROSS JOIN LATERAL (
			SELECT u.division, u.used FROM number_division_usage u WHERE u.pool_id = p.id ORDER BY u.used DESC, u.division LIMIT $1
		) d
		ORDER BY p.id, d.used DESC, d.division`, perPool); err != nil {
		return nil, fmt.Errorf("store: unable to read the busiest divisions of the number pools: %w", classify(err))
	}
	out := make([]PoolDivisionUsage, len(scans))
	for i, s := range scans {
		d, err := Canonical(s.Division)
		if err != nil {
			return nil, fmt.Errorf("store: a division of pool %s cannot be read: %w", s.Pool, err)
		}
		out[i] = PoolDivisionUsage{Pool: s.Pool, DivisionUsage: DivisionUsage{Division: d, Used: s.Used}}
	}
	return out, nil
}

// A PoolDivisionUsage is a division of the pool with its usage.
type PoolDivisionUsage struct {
	Pool string
	DivisionUsage
}
