package store

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/usage"
)

// The usage history (docs/operations.md) keeps, in usage_history, one row
// an hour and one a day of the usage of every space: pools and subnets
// (object_kind 'pool', 'subnet'), divisions of number pools ('division',
// under the uid number_division_uid(pool, division) of migration 0012),
// and the IPv6 side of dual-stack spaces (migration 0029): a subnet's IPv6
// prefix ('subnet-ipv6', under IPv6SideUID(subnet uid)) and a VPC's IPv6
// prefix in prefixes of its subnets' length ('vpc-ipv6', under the VPC's
// uid).
// One implementation records, counts, prunes and reads it for every kind
// of space; what differs is told by a historyKind.

// A UsageRecord is the usage of a space at a time.
type UsageRecord struct {
	ObjectUID  string
	ObjectKind string // "pool", "subnet", "subnet-ipv6", "vpc-ipv6" or "division"
	Used, Size int64
	// UsedCount and SizeCount, when not both zero, are the figures exact
	// (an IPv6 space's, which may pass int64), written in place of Used
	// and Size.
	UsedCount, SizeCount candidates.Count
}

// figures returns the record's figures in decimal.
func (r UsageRecord) figures() (used, size string) {
	if r.UsedCount.IsZero() && r.SizeCount.IsZero() {
		return strconv.FormatInt(r.Used, 10), strconv.FormatInt(r.Size, 10)
	}
	return r.UsedCount.String(), r.SizeCount.String()
}

// A historyKind is what the history's rows of some kinds of space differ
// by: how their claims and releases are counted from the audit log.
type historyKind struct {
	// objects are the object_kinds of the rows.
	objects []string
	// audit is the object_kind of the audit log's claims and releases,
	// and the row of usage_history_counted that orders their counts.
	audit string
	// count counts the claims and releases of the hours $1 into the
	// hours' rows.
	count string
	// what names the history in errors.
	what string
}

// The kinds of the history: addresses (pools and subnets), numbers
// (divisions of number pools).
var historyKinds = []historyKind{
	{objects: []string{"pool", "subnet", "subnet-ipv6", "vpc-ipv6"}, audit: "IPAllocation", count: countChangesSQL, what: "of the usage history"},
	{objects: []string{"division"}, audit: "CoreNumberPool", count: countDivisionChangesSQL, what: "of the number pools' divisions"},
}

// RecordUsage writes records as the usage of the hour and of the day of
// at (UTC), replacing what was written earlier in that hour or day, in one
// statement; then counts the claims and releases of the kinds of space of
// the records (pools and subnets, divisions) in the hours from since's to
// at's, and in those of the ones committed since the last count
// (CountChanges).
func RecordUsage(ctx context.Context, db *DB, records []UsageRecord, at, since time.Time) error {
	uids, kinds := make(pq.StringArray, len(records)), make(pq.StringArray, len(records))
	used, size := make(pq.StringArray, len(records)), make(pq.StringArray, len(records))
	for i, r := range records {
		uids[i], kinds[i] = r.ObjectUID, r.ObjectKind
		used[i], size[i] = r.figures()
	}
	hour, day := usageHour(at), usageDay(at)
	_, err := db.ExecContext(ctx, `
		INSERT INTO usage_history (object_uid, object_kind, step, at, used, size)
		SELECT r.object_uid, r.object_kind, s.step, s.at, r.used, r.size
		FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::numeric[]) AS r (object_uid, object_kind, used, size),
			(VALUES ('hour', $5::timestamptz), ('day', $6::timestamptz)) AS s (step, at)
		ON CONFLICT (object_uid, step, at) DO UPDATE SET used = excluded.used, size = excluded.size`,
		uids, kinds, used, size, hour, day)
	if err != nil {
		return fmt.Errorf("store: unable to record the usage history: %w", classify(err))
	}
	for _, k := range historyKinds {
		if slices.ContainsFunc(records, func(r UsageRecord) bool { return slices.Contains(k.objects, r.ObjectKind) }) {
			if err := countHours(ctx, db, k, since, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// countChangesSQL counts the claims and releases of the audit log in the
// hours $1 (their starts, UTC), per pool and subnet and hour, into the
// hours' rows of the history. A subnet's are the changes of its VPC's pool
// inside its prefix: the last subnet at or before the address, if it
// holds it, one probe of subnets_vpc_cidr (migration 0014) for an IPv4
// address, of subnets_vpc_ipv6_cidr (migration 0029) for an IPv6 one,
// counted into the row of the subnet's IPv6 side (ipv6_side_uid); either
// whatever the VPC's number of subnets.
// A VPC's IPv6 prefix ('vpc-ipv6') counts no claim: its subnets are not
// allocations.
const countChangesSQL = `
	WITH changes AS MATERIALIZED (
		SELECT h.hour, a.action = 'allocate' AS claim, a.namespace,
			coalesce(a.after, a.before)->>'pool' AS pool, (coalesce(a.after, a.before)->>'address')::inet AS address
		FROM unnest($1::timestamptz[]) h (hour)
		JOIN audit_log a ON a.at >= h.hour AND a.at < h.hour + interval '1 hour'
		WHERE a.object_kind = 'IPAllocation' AND a.action IN ('allocate', 'release')
	), of_pools AS MATERIALIZED (
		SELECT p.uid, p.vpc_uid, c.hour, c.claim, c.address FROM changes c JOIN pools p ON p.namespace = c.namespace AND p.name = c.pool
	), counted AS (
		SELECT uid, hour, count(*) FILTER (WHERE claim) AS claims, count(*) FILTER (WHERE NOT claim) AS releases
		FROM of_pools GROUP BY uid, hour
		UNION ALL
		SELECT s.uid, c.hour, count(*) FILTER (WHERE c.claim), count(*) FILTER (WHERE NOT c.claim)
		FROM of_pools c
		CROSS JOIN LATERAL (SELECT s.uid, s.cidr FROM subnets s WHERE s.vpc_uid = c.vpc_uid AND s.cidr <= c.address ORDER BY s.cidr DESC LIMIT 1) s
		WHERE c.vpc_uid IS NOT NULL AND family(c.address) = 4 AND s.cidr >>= c.address
		GROUP BY s.uid, c.hour
		UNION ALL
		SELECT ipv6_side_uid(s.uid), c.hour, count(*) FILTER (WHERE c.claim), count(*) FILTER (WHERE NOT c.claim)
		FROM of_pools c
		CROSS JOIN LATERAL (SELECT s.uid, s.ipv6_cidr FROM subnets s WHERE s.vpc_uid = c.vpc_uid AND s.ipv6_cidr <= c.address ORDER BY s.ipv6_cidr DESC LIMIT 1) s
		WHERE c.vpc_uid IS NOT NULL AND family(c.address) = 6 AND s.ipv6_cidr >>= c.address
		GROUP BY s.uid, c.hour
	)
	UPDATE usage_history h SET claims = c.claims, releases = c.releases
	FROM counted c
	WHERE h.object_uid = c.uid AND h.step = 'hour' AND h.at = c.hour`

// sumDaysSQL sets the claims and releases of the days from $1 to $2 of
// the spaces of the object_kinds $3 to the sums of their hours.
const sumDaysSQL = `
	UPDATE usage_history d SET claims = s.claims, releases = s.releases
	FROM (
		SELECT object_uid, date_trunc('day', at, 'UTC') AS day, sum(claims) AS claims, sum(releases) AS releases
		FROM usage_history WHERE step = 'hour' AND object_kind = ANY($3::text[]) AND at >= $1 AND at < $2
		GROUP BY object_uid, date_trunc('day', at, 'UTC')
	) s
	WHERE d.object_uid = s.object_uid AND d.step = 'day' AND d.at = s.day
		AND (d.claims, d.releases) IS DISTINCT FROM (s.claims, s.releases)`

// CountChanges counts the claims and releases of every kind of space in
// the audit log (of pools and subnets, of the divisions of number pools),
// in every hour from since's to until's (UTC) and in the hours of the
// entries committed since the last count (countHours), into the history
// rows of those hours, and sums them into their days' rows. The hours are
// counted whole (since zero: until's alone): whichever process counts,
// and however often, an hour that has a row gets the same figures. Hours
// without a row (no process wrote the usage in them) are not counted. A
// busy hour's count outlasts a request's statement timeout (about 10 µs a
// claim or release, BenchmarkCountChanges): it runs as background work
// (inBackground).
func CountChanges(ctx context.Context, db *DB, since, until time.Time) error {
	for _, k := range historyKinds {
		if err := countHours(ctx, db, k, since, until); err != nil {
			return err
		}
	}
	return nil
}

// lateHoursSQL returns the hours (UTC, as Unix times) of the audit log's
// claims and releases of objects of kind $2 that the snapshot $1 (the
// previous count's) did not see and this statement's sees, those that have
// a row of the history; and this statement's snapshot. An entry's xid is
// its transaction's (audit_log.xid's default); an xid past the snapshot's xmax
// (entries restored from another cluster) is left for a later count.
const lateHoursSQL = `
	SELECT coalesce(array_agg(DISTINCT extract(epoch FROM l.hour)::bigint), '{}'), pg_current_snapshot()::text
	FROM (
		SELECT date_bin('1 hour', a.at, '2000-01-01 00:00:00+00') AS hour
		FROM audit_log a
		WHERE a.xid >= pg_snapshot_xmin($1::pg_snapshot) AND a.xid < pg_snapshot_xmax(pg_current_snapshot())
			AND NOT pg_visible_in_snapshot(a.xid, $1::pg_snapshot)
			AND a.object_kind = $2 AND a.action IN ('allocate', 'release')
	) l
	WHERE EXISTS (SELECT FROM usage_history h WHERE h.step = 'hour' AND h.at = l.hour)`

// countHours runs k.count (the changes in the hours $1 into the hours'
// rows) over the whole hours from since's to until's (since zero: until's
// alone) and the hours of the audit log's entries of objects of kind
// k.audit that committed since the last count, then sums the days of
// those hours (sumDaysSQL), as background work.
//
// An entry bears its transaction's start, and may commit after a count of
// its hour: a claim that began in an hour and waited on a lock past the
// next hour's first count. So the counts of a kind follow the audit log in
// commit order: they take usage_history_counted's row of kind in turn
// (FOR UPDATE), each reads, with a snapshot taken once the previous count
// committed, the hours of the entries the previous count's snapshot did
// not see (lateHoursSQL), counts them with the others, and leaves its
// snapshot for the next. An entry is thus seen first by one count, which
// counts its hour (TestUsageHistoryCountsLateCommit).
func countHours(ctx context.Context, db *DB, k historyKind, since, until time.Time) error {
	kind, what := k.audit, k.what
	if since.IsZero() || since.After(until) {
		since = until
	}
	from, to := usageHour(since), usageHour(until).Add(time.Hour)
	return inBackground(ctx, db, func(tx *Tx) error {
		var counted string
		if err := tx.GetContext(ctx, &counted, `SELECT counted::text FROM usage_history_counted WHERE object_kind = $1 FOR UPDATE`, kind); err != nil {
			return fmt.Errorf("store: unable to read the last count %s: %w", what, classify(err))
		}
		var late pq.Int64Array
		var seen string
		if err := tx.QueryRowxContext(ctx, lateHoursSQL, counted, kind).Scan(&late, &seen); err != nil {
			return fmt.Errorf("store: unable to read the changes committed since the last count %s: %w", what, classify(err))
		}
		hours := map[time.Time]bool{}
		for h := from; h.Before(to); h = h.Add(time.Hour) {
			hours[h] = true
		}
		first := from
		for _, u := range late {
			h := time.Unix(u, 0).UTC()
			hours[h] = true
			if h.Before(first) {
				first = h
			}
		}
		list := make(pq.StringArray, 0, len(hours))
		for h := range hours {
			list = append(list, h.Format(time.RFC3339))
		}
		if _, err := tx.ExecContext(ctx, k.count, list); err != nil {
			return fmt.Errorf("store: unable to count the claims and releases %s: %w", what, classify(err))
		}
		if _, err := tx.ExecContext(ctx, sumDaysSQL, usageDay(first), usageDay(until).Add(24*time.Hour), pq.StringArray(k.objects)); err != nil {
			return fmt.Errorf("store: unable to count the claims and releases %s: %w", what, classify(err))
		}
		if _, err := tx.ExecContext(ctx, `UPDATE usage_history_counted SET counted = $2::pg_snapshot WHERE object_kind = $1`, kind, seen); err != nil {
			return fmt.Errorf("store: unable to record the last count %s: %w", what, classify(err))
		}
		return nil
	})
}

// backgroundTimeout bounds a statement of background work (the usage
// history's counts), which no request waits for: under the 15 minutes
// between two writes of the history.
const backgroundTimeout = "10min"

// inBackground runs fn in a transaction whose statements are bounded by
// backgroundTimeout, not by a request's.
func inBackground(ctx context.Context, db *DB, fn func(tx *Tx) error) error {
	return InTx(ctx, db, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `SET LOCAL statement_timeout = '`+backgroundTimeout+`'`); err != nil {
			return fmt.Errorf("store: unable to set the statement timeout of background work: %w", classify(err))
		}
		return fn(tx)
	})
}

// PruneUsageHistory removes the rows past their keeping at now
// (usage.HourlyKept, usage.DailyKept), and those of the spaces that are
// gone: pools and subnets deleted, the IPv6 sides of subnets and VPCs
// deleted (a subnet or a VPC never loses its IPv6 prefix), and the divisions that
// number_division_usage no longer holds (divisions that show no number any
// more, as of their last fold, and those of pools deleted).
func PruneUsageHistory(ctx context.Context, ext Ext, now time.Time) error {
	if _, err := ext.ExecContext(ctx, `DELETE FROM usage_history WHERE (step = 'hour' AND at < $1) OR (step = 'day' AND at < $2)`,
		usageHour(now.Add(-usage.HourlyKept)), usageDay(now.Add(-usage.DailyKept))); err != nil {
		return fmt.Errorf("store: unable to prune the usage history: %w", classify(err))
	}
	if _, err := ext.ExecContext(ctx, `
		DELETE FROM usage_history h
		WHERE (h.object_kind = 'pool' AND NOT EXISTS (SELECT FROM pools p WHERE p.uid = h.object_uid))
		   OR (h.object_kind = 'subnet' AND NOT EXISTS (SELECT FROM subnets s WHERE s.uid = h.object_uid))
		   OR (h.object_kind = 'subnet-ipv6' AND NOT EXISTS (SELECT FROM subnets s WHERE s.ipv6_cidr IS NOT NULL AND ipv6_side_uid(s.uid) = h.object_uid))
		   OR (h.object_kind = 'vpc-ipv6' AND NOT EXISTS (SELECT FROM vpcs v WHERE v.uid = h.object_uid AND v.ipv6_cidr IS NOT NULL))
		   OR (h.object_kind = 'division' AND NOT EXISTS (SELECT FROM number_division_usage u WHERE number_division_uid(u.pool_id, u.division) = h.object_uid))`); err != nil {
		return fmt.Errorf("store: unable to prune the usage history: %w", classify(err))
	}
	return nil
}

// IPv6SideUID is the uid the history keeps the IPv6 side of the subnet
// uid under (object_kind 'subnet-ipv6'): ipv6_side_uid(uid) of migration
// 0029, the same in every process.
func IPv6SideUID(uid string) string {
	sum := md5.Sum([]byte("ipv6 " + uid))
	h := hex.EncodeToString(sum[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// usageHour and usageDay are the starts of the hour and of the day (UTC)
// of at.
func usageHour(at time.Time) time.Time { return at.UTC().Truncate(time.Hour) }

func usageDay(at time.Time) time.Time {
	at = at.UTC()
	return time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
}

// UsageHistory returns the history of the space uid at step (usage.Hour
// or usage.Day) since since, oldest first.
func UsageHistory(ctx context.Context, ext Ext, uid, step string, since time.Time) ([]usage.Point, error) {
	histories, err := UsageHistories(ctx, ext, []string{uid}, step, since)
	return histories[uid], err
}

// DivisionHistory returns the history of the division (canonical JSON) of
// the number pool at step since since, oldest first: that of its uid,
// number_division_uid(pool, division).
func DivisionHistory(ctx context.Context, ext Ext, pool string, division json.RawMessage, step string, since time.Time) ([]usage.Point, error) {
	histories, err := usageHistories(ctx, ext, `ARRAY[number_division_uid($3::uuid, $4::jsonb)]`, step, since, pool, string(division))
	var points []usage.Point
	for _, p := range histories { // the division's alone
		points = p
	}
	return points, err
}

// UsageHistories returns the history of each space of uids at step since
// since, oldest first, in one statement.
func UsageHistories(ctx context.Context, ext Ext, uids []string, step string, since time.Time) (map[string][]usage.Point, error) {
	return usageHistories(ctx, ext, `$3::uuid[]`, step, since, pq.StringArray(uids))
}

// usageHistories reads the history of the spaces whose uids the array
// expression names, from the parameter $3 on (args), at step since since.
func usageHistories(ctx context.Context, ext Ext, uids, step string, since time.Time, args ...any) (map[string][]usage.Point, error) {
	out := map[string][]usage.Point{}
	rows, err := ext.QueryxContext(ctx, `SELECT object_uid, at, used::text, size::text, claims, releases FROM usage_history
		WHERE object_uid = ANY(`+uids+`) AND step = $1 AND at >= $2 ORDER BY object_uid, at`, append([]any{step, since}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var uid, used, size string
		var p usage.Point
		if err := rows.Scan(&uid, &p.At, &used, &size, &p.Claims, &p.Releases); err != nil {
			return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
		}
		if err := pointFigures(&p, used, size); err != nil {
			return nil, err
		}
		out[uid] = append(out[uid], p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
	}
	return out, nil
}

// pointFigures reads a row's used and size (numeric, in text) into p: its
// ints where size fits int64, else its exact counts too, the ints at most
// math.MaxInt64.
func pointFigures(p *usage.Point, used, size string) error {
	u, err := candidates.ParseCount(used)
	if err != nil {
		return fmt.Errorf("store: the usage history holds the figure %q: %w", used, err)
	}
	z, err := candidates.ParseCount(size)
	if err != nil {
		return fmt.Errorf("store: the usage history holds the figure %q: %w", size, err)
	}
	if n, ok := z.Uint64(); ok && n <= math.MaxInt64 {
		m, _ := u.Uint64()
		p.Used, p.Size = int64(m), int64(n)
		return nil
	}
	p.UsedCount, p.SizeCount = u, z
	p.Size = math.MaxInt64
	if m, ok := u.Uint64(); ok && m <= math.MaxInt64 {
		p.Used = int64(m)
	} else {
		p.Used = math.MaxInt64
	}
	return nil
}

// ImportUsage writes the points of the object uid of kind as its hours
// (at truncated to the hour) and its days (the day's last figures, and the
// sum of its claims and releases), replacing the rows of those hours and
// days, in one statement. A point's figures are exact where it has its
// counts (an IPv6 space's).
func ImportUsage(ctx context.Context, ext Ext, uid, kind string, points []usage.Point) error {
	at := make(pq.StringArray, len(points))
	used, size := make(pq.StringArray, len(points)), make(pq.StringArray, len(points))
	claims, releases := make(pq.Int64Array, len(points)), make(pq.Int64Array, len(points))
	for i, p := range points {
		at[i] = usageHour(p.At).Format(time.RFC3339)
		used[i], size[i] = UsageRecord{Used: p.Used, Size: p.Size, UsedCount: p.UsedCount, SizeCount: p.SizeCount}.figures()
		claims[i], releases[i] = p.Claims, p.Releases
	}
	_, err := ext.ExecContext(ctx, `
		WITH p AS (
			SELECT * FROM unnest($3::timestamptz[], $4::numeric[], $5::numeric[], $6::bigint[], $7::bigint[]) AS p (at, used, size, claims, releases)
		), rows AS (
			(SELECT DISTINCT ON (at) 'hour' AS step, at, used, size, claims, releases FROM p ORDER BY at)
			UNION ALL
			(SELECT 'day', day, (array_agg(used ORDER BY at DESC))[1], (array_agg(size ORDER BY at DESC))[1], sum(claims), sum(releases)
			FROM (SELECT date_trunc('day', at, 'UTC') AS day, * FROM p) d GROUP BY day)
		)
		INSERT INTO usage_history (object_uid, object_kind, step, at, used, size, claims, releases)
		SELECT $1, $2, step, at, used, size, claims, releases FROM rows
		ON CONFLICT (object_uid, step, at) DO UPDATE
			SET used = excluded.used, size = excluded.size, claims = excluded.claims, releases = excluded.releases`,
		uid, kind, at, used, size, claims, releases)
	if err != nil {
		return fmt.Errorf("store: unable to import the usage history of %s %s: %w", kind, uid, classify(err))
	}
	return nil
}

// A UsageFit is what a forecast's line is fitted from, summed by the
// database over an object's hours (forecast.Sums, with x in days before
// the time given).
type UsageFit struct {
	N, X, Y, XX, XY float64
	First           time.Time
}

// UsageFits sums the hourly history since since of every object that has
// one, x counted in days before last, in one statement that returns a row
// per object.
func UsageFits(ctx context.Context, ext Ext, since, last time.Time) (map[string]UsageFit, error) {
	out := map[string]UsageFit{}
	rows, err := ext.QueryxContext(ctx, `
		SELECT object_uid, count(*), sum(x), sum(y), sum(x * x), sum(x * y), min(at)
		FROM (SELECT object_uid, at, used::float8 AS y, date_part('epoch', at - $2::timestamptz) / 86400 AS x
			FROM usage_history WHERE step = 'hour' AND at >= $1) h
		GROUP BY object_uid`, since, last)
	if err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var uid string
		var f UsageFit
		if err := rows.Scan(&uid, &f.N, &f.X, &f.Y, &f.XX, &f.XY, &f.First); err != nil {
			return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
		}
		out[uid] = f
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: unable to read the usage history: %w", classify(err))
	}
	return out, nil
}
