package store

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// A UsageRecord is the usage of a pool or subnet at a time.
type UsageRecord struct {
	ObjectUID  string
	ObjectKind string // "pool" or "subnet"
	Used, Size int64
}

// How long the history keeps its rows.
const (
	HourlyUsageKept = 35 * 24 * time.Hour
	DailyUsageKept  = 400 * 24 * time.Hour
)

// RecordUsage writes records as the usage of the hour and of the day of
// at (UTC), replacing what was written earlier in that hour or day, in one
// statement.
func RecordUsage(ctx context.Context, ext Ext, records []UsageRecord, at time.Time) error {
	uids, kinds := make(pq.StringArray, len(records)), make(pq.StringArray, len(records))
	used, size := make(pq.Int64Array, len(records)), make(pq.Int64Array, len(records))
	for i, r := range records {
		uids[i], kinds[i], used[i], size[i] = r.ObjectUID, r.ObjectKind, r.Used, r.Size
	}
	hour, day := usageHour(at), usageDay(at)
	_, err := ext.ExecContext(ctx, `
		INSERT INTO usage_history (object_uid, object_kind, step, at, used, size)
		SELECT r.object_uid, r.object_kind, s.step, s.at, r.used, r.size
		FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bigint[]) AS r (object_uid, object_kind, used, size),
			(VALUES ('hour', $5::timestamptz), ('day', $6::timestamptz)) AS s (step, at)
		ON CONFLICT (object_uid, step, at) DO UPDATE SET used = excluded.used, size = excluded.size`,
		uids, kinds, used, size, hour, day)
	if err != nil {
		return fmt.Errorf("store: unable to record the usage history: %w", classify(err))
	}
	return nil
}

// PruneUsageHistory removes the rows past their keeping at now, and those
// of pools and subnets that are gone.
func PruneUsageHistory(ctx context.Context, ext Ext, now time.Time) error {
	if _, err := ext.ExecContext(ctx, `DELETE FROM usage_history WHERE (step = 'hour' AND at < $1) OR (step = 'day' AND at < $2)`,
		usageHour(now.Add(-HourlyUsageKept)), usageDay(now.Add(-DailyUsageKept))); err != nil {
		return fmt.Errorf("store: unable to prune the usage history: %w", classify(err))
	}
	if _, err := ext.ExecContext(ctx, `
		DELETE FROM usage_history h
		WHERE (h.object_kind = 'pool' AND NOT EXISTS (SELECT FROM pools p WHERE p.uid = h.object_uid))
		   OR (h.object_kind = 'subnet' AND NOT EXISTS (SELECT FROM subnets s WHERE s.uid = h.object_uid))`); err != nil {
		return fmt.Errorf("store: unable to prune the usage history: %w", classify(err))
	}
	return nil
}

// usageHour and usageDay are the starts of the hour and of the day (UTC)
// of at.
func usageHour(at time.Time) time.Time { return at.UTC().Truncate(time.Hour) }

func usageDay(at time.Time) time.Time {
	at = at.UTC()
	return time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
}

// A UsagePoint is a row of the history.
type UsagePoint struct {
	At         time.Time
	Used, Size int64
}

// UsageHistory returns the history of the object uid at step ("hour" or
// "day") since since, oldest first.
func UsageHistory(ctx context.Context, ext Ext, uid, step string, since time.Time) ([]UsagePoint, error) {
	var points []UsagePoint
	rows, err := ext.QueryxContext(ctx, `SELECT at, used, size FROM usage_history WHERE object_uid = $1 AND step = $2 AND at >= $3 ORDER BY at`, uid, step, since)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var p UsagePoint
		if err := rows.Scan(&p.At, &p.Used, &p.Size); err != nil {
			return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
		}
		points = append(points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
	}
	return points, nil
}
