package store_test

import (
	"testing"
	"time"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// TestCountChangesInCommitOrder: a claim of an address and one of a
// number, written in a transaction that began in an hour and commits after
// a count of the next hour (which covered their hour without seeing them),
// are counted in their hour by the next count, once, whatever hours that
// count covers.
func TestCountChangesInCommitOrder(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := t.Context()
	pool := privatePool(t, db)
	const numberPool, division = "5b0c7e0e-8d8f-4c1a-9e35-0f6e5a1b2c3d", `{"site": "a"}`
	var divisionUID string
	if err := db.Get(&divisionUID, `SELECT number_division_uid($1::uuid, $2::jsonb)`, numberPool, division); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var began time.Time
	if err := tx.Get(&began, `SELECT now()`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`INSERT INTO audit_log (actor, action, namespace, object_kind, object_name, after) VALUES
		('test', 'allocate', 'acme/prod', 'IPAllocation', 'vpc-main-10-42-1-2', '{"pool": "vpc-main", "address": "10.42.1.2"}'),
		('test', 'allocate', '', 'CoreNumberPool', 'VLAN IDs', jsonb_build_object('pool_id', $1::text, 'division', $2::jsonb, 'number', 100))`,
		numberPool, division); err != nil {
		t.Fatal(err)
	}
	hour := began.UTC().Truncate(time.Hour)
	next := hour.Add(time.Hour)
	for _, o := range []struct{ uid, kind string }{{pool, "pool"}, {divisionUID, "division"}} {
		if err := store.ImportUsage(ctx, db, o.uid, o.kind, []usage.Point{{At: hour, Used: 1, Size: 10}, {At: next, Used: 1, Size: 10}}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(since, until time.Time) {
		t.Helper()
		if err := store.CountChanges(ctx, db, since, until); err != nil {
			t.Fatal(err)
		}
	}
	count(hour, next.Add(time.Minute))
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	count(next.Add(time.Minute), next.Add(16*time.Minute))
	count(next.Add(16*time.Minute), next.Add(31*time.Minute))
	for _, uid := range []string{pool, divisionUID} {
		hours, err := store.UsageHistory(ctx, db, uid, "hour", hour)
		if err != nil {
			t.Fatal(err)
		}
		if len(hours) != 2 || hours[0].Claims != 1 || hours[1].Claims != 0 {
			t.Errorf("the hours of %s: %+v, want 1 claim in %s and none in %s", uid, hours, hour, next)
		}
		days, err := store.UsageHistory(ctx, db, uid, "day", hour.Truncate(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var claims int64
		for _, d := range days {
			claims += d.Claims
		}
		if claims != 1 {
			t.Errorf("the days of %s: %+v, want 1 claim in all", uid, days)
		}
	}
}
