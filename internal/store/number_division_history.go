package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The usage history of the divisions of number pools (docs/operations.md): rows of
// usage_history of object_kind 'division', under the uid
// number_division_uid(pool, division) (migration 0012), written from
// number_division_usage as the folds keep it (docs/numbers.md).

// recordDivisionUsageSQL writes the usage of every division that
// number_division_usage holds as the usage of the hour $1 and of the day
// $2: used, the numbers of the pool's ranges it holds; size, the numbers in
// the ranges (their union, counted as candidates.NumberPool.Size counts
// them: ranges never overlap), read in the statement's snapshot.
const recordDivisionUsageSQL = `
	INSERT INTO usage_history (object_uid, object_kind, step, at, used, size)
	SELECT number_division_uid(u.pool_id, u.division), 'division', s.step, s.at, u.used, p.size
	FROM number_pools n
		CROSS JOIN LATERAL (
			SELECT coalesce(sum(upper(r) - lower(r)), 0) AS size FROM unnest((SELECT range_agg(int8range((e->>'start')::bigint, (e->>'end')::bigint, '[]'))
				FROM jsonb_array_elements(n.ranges) e)) r
		) p
		JOIN number_division_usage u ON u.pool_id = n.id
		CROSS JOIN (VALUES ('hour', $1::timestamptz), ('day', $2::timestamptz)) AS s (step, at)
	ON CONFLICT (object_uid, step, at) DO UPDATE SET used = excluded.used, size = excluded.size`

// RecordDivisionUsage writes the usage of every division of every number
// pool, as number_division_usage holds it (fold the pools' marks first:
// FoldDivisionUsage), as the usage of the hour and of the day of at (UTC),
// replacing what was written earlier in that hour or day, in one
// statement; then counts the divisions' claims and releases in the hours
// from since's to at's (CountDivisionChanges).
func RecordDivisionUsage(ctx context.Context, db *DB, at, since time.Time) error {
	if _, err := db.ExecContext(ctx, recordDivisionUsageSQL, usageHour(at), usageDay(at)); err != nil {
		return fmt.Errorf("store: unable to record the usage history of the number pools' divisions: %w", classify(err))
	}
	return CountDivisionChanges(ctx, db, since, at)
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

// sumDivisionDaysSQL sets the claims and releases of the divisions' days
// from $1 to $2 to the sums of their hours.
const sumDivisionDaysSQL = `
	UPDATE usage_history d SET claims = s.claims, releases = s.releases
	FROM (
		SELECT object_uid, date_trunc('day', at, 'UTC') AS day, sum(claims) AS claims, sum(releases) AS releases
		FROM usage_history WHERE step = 'hour' AND object_kind = 'division' AND at >= $1 AND at < $2
		GROUP BY object_uid, date_trunc('day', at, 'UTC')
	) s
	WHERE d.object_uid = s.object_uid AND d.step = 'day' AND d.at = s.day
		AND (d.claims, d.releases) IS DISTINCT FROM (s.claims, s.releases)`

// CountDivisionChanges counts the numbers claimed from the pools and
// released in each division, in every hour from since's to until's (UTC)
// and in the hours of the entries committed since the last count, into the
// history rows of those hours, and sums them into their days' rows, as
// CountChanges does for pools and subnets: hours counted whole, those
// without a row not counted, as background work.
func CountDivisionChanges(ctx context.Context, db *DB, since, until time.Time) error {
	return countHours(ctx, db, "CoreNumberPool", countDivisionChangesSQL, sumDivisionDaysSQL, "of the number pools' divisions", since, until)
}

// PruneDivisionHistory removes the divisions' rows past their keeping at
// now (HourlyUsageKept, DailyUsageKept), and those of the divisions that
// number_division_usage no longer holds: divisions that show no number
// any more (as of their last fold) and those of pools deleted.
func PruneDivisionHistory(ctx context.Context, ext Ext, now time.Time) error {
	if _, err := ext.ExecContext(ctx, `DELETE FROM usage_history
		WHERE object_kind = 'division' AND ((step = 'hour' AND at < $1) OR (step = 'day' AND at < $2))`,
		usageHour(now.Add(-HourlyUsageKept)), usageDay(now.Add(-DailyUsageKept))); err != nil {
		return fmt.Errorf("store: unable to prune the usage history of the number pools' divisions: %w", classify(err))
	}
	if _, err := ext.ExecContext(ctx, `DELETE FROM usage_history h
		WHERE h.object_kind = 'division'
			AND NOT EXISTS (SELECT FROM number_division_usage u WHERE number_division_uid(u.pool_id, u.division) = h.object_uid)`); err != nil {
		return fmt.Errorf("store: unable to prune the usage history of the number pools' divisions: %w", classify(err))
	}
	return nil
}

// DivisionHistory returns the history of the division (canonical JSON)
// of the pool at step ("hour" or "day") since since, oldest first.
func DivisionHistory(ctx context.Context, ext Ext, pool string, division json.RawMessage, step string, since time.Time) ([]UsagePoint, error) {
	var scans []struct {
		At       time.Time `db:"at"`
		Used     int64     `db:"used"`
		Size     int64     `db:"size"`
		Claims   int64     `db:"claims"`
		Releases int64     `db:"releases"`
	}
	if err := sqlx.SelectContext(ctx, ext, &scans, `SELECT at, used, size, claims, releases FROM usage_history
		WHERE object_uid = number_division_uid($1::uuid, $2::jsonb) AND step = $3 AND at >= $4 ORDER BY at`,
		pool, string(division), step, since); err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history of a division of pool %s: %w", pool, classify(err))
	}
	points := make([]UsagePoint, len(scans))
	for i, s := range scans {
		points[i] = UsagePoint{At: s.At, Used: s.Used, Size: s.Size, Claims: s.Claims, Releases: s.Releases}
	}
	return points, nil
}

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
