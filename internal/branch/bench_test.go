package branch

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// The figures of docs/benchmarks.md ("Branches and objects of kinds"): a branch's creation on a
// database of 100 objects and of 100 000, a read by id on a branch and on
// main, a merge of 100 changes into 100 and into 100 000 objects. Run:
//
//	go test -run '^$' -bench . -benchtime 200x ./internal/branch
//
// Each compares two measurements taken alternately in one run and reports
// their ratio.

// filled returns a service on a fresh database whose main holds n sites
// (a unique name each) besides the schema of sites and VLANs, and one
// site's id, written by SQL as a migration would (a million creations
// through the service would take minutes).
func filled(b *testing.B, n int) (*Service, *store.DB, string) {
	b.Helper()
	svc, db, _ := newService(b)
	load(b, svc, Main, sites)
	s, err := svc.Schema(b.Context(), Main)
	if err != nil {
		b.Fatal(err)
	}
	kind, elems := ids(b, s, "LocationSite")
	constraint := kind + "/" + elems["name"]
	_, err = db.Exec(`WITH o AS (
			INSERT INTO object_versions (branch_id, object_id, kind, data, from_seq)
			SELECT 1, gen_random_uuid(), $1, jsonb_build_object($2::text, 'site-' || i), nextval('changes_seq')
			FROM generate_series(1, $4) i
			RETURNING object_id, data
		)
		INSERT INTO unique_values (branch_id, constraint_id, value_hash, object_id)
		SELECT 1, $3, sha256(convert_to(jsonb_build_array(data -> $2::text)::text, 'UTF8')), object_id FROM o`,
		kind, elems["name"], constraint, n)
	if err != nil {
		b.Fatal(err)
	}
	// Vacuumed and analysed now, so that autovacuum does not do it while
	// the benchmark runs.
	if _, err := db.Exec(`VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	// The hash SQL wrote is the service's: a duplicate is refused.
	if _, err := svc.CreateObject(b.Context(), operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "site-1"}}); err == nil {
		b.Fatal("the fill's unique values are not the service's")
	}
	var id string
	if err := db.Get(&id, `SELECT object_id FROM object_versions ORDER BY object_id LIMIT 1 OFFSET $1`, n/2); err != nil {
		b.Fatal(err)
	}
	return svc, db, id
}

// pair times two operations alternately, b.N times each, so that a noisy
// machine slows both alike, and reports each one's time per operation and
// the ratio of the second's to the first's.
func pair(b *testing.B, names [2]string, setup func(i int), ops [2]func(i int)) {
	b.Helper()
	var took [2]time.Duration
	b.ResetTimer()
	for i := range b.N {
		if setup != nil {
			b.StopTimer()
			setup(i)
			b.StartTimer()
		}
		for j, op := range ops {
			start := time.Now()
			op(i)
			took[j] += time.Since(start)
		}
	}
	b.StopTimer()
	for j, name := range names {
		b.ReportMetric(float64(took[j].Microseconds())/float64(b.N), "µs/"+name)
	}
	b.ReportMetric(float64(took[1])/float64(took[0]), "ratio")
}

// BenchmarkCreateBranch creates branches on main holding 100 objects and
// 100 000: one row, whatever main holds (target: ratio ≤ 2).
func BenchmarkCreateBranch(b *testing.B) {
	small, _, _ := filled(b, 100)
	large, _, _ := filled(b, 100_000)
	ctx := context.Background()
	create := func(svc *Service) func(int) {
		return func(i int) {
			if _, err := svc.CreateBranch(ctx, operator, fmt.Sprint("b", i)); err != nil {
				b.Fatal(err)
			}
		}
	}
	pair(b, [2]string{"100", "100000"}, nil, [2]func(int){create(small), create(large)})
}

// BenchmarkReadByID reads an object of main's by id among 100 000, on main
// and through a branch that has 100 changes of its own (none of this
// object): main's version at the branch point (target: ratio ≤ 1.5).
func BenchmarkReadByID(b *testing.B) {
	svc, db, id := filled(b, 100_000)
	ctx := context.Background()
	newBranch(b, svc, "b1")
	for i := range 100 {
		site(b, svc, "b1", fmt.Sprint("branch-site-", i))
	}
	if _, err := db.Exec(`ANALYZE`); err != nil {
		b.Fatal(err)
	}
	reader := func(branch string) func(int) {
		read(b, svc, branch, id) // caches the branch, as a serving process has
		return func(int) {
			if _, err := svc.Object(ctx, operator, branch, id); err != nil {
				b.Fatal(err)
			}
		}
	}
	pair(b, [2]string{"main", "branch"}, nil, [2]func(int){reader(Main), reader("b1")})
}

// BenchmarkMerge merges 100 changes (50 sites created, 50 of main's
// renamed) into main holding 100 objects and 100 000 (target: ratio ≤ 2).
// Each merge's changes are made first, untimed.
func BenchmarkMerge(b *testing.B) {
	ctx := context.Background()
	var svcs [2]*Service
	var mains [2][]string
	for j, n := range []int{100, 100_000} {
		var db *store.DB
		svcs[j], db, _ = filled(b, n)
		if err := db.Select(&mains[j], `SELECT object_id FROM object_versions WHERE branch_id = 1 ORDER BY object_id LIMIT 50`); err != nil {
			b.Fatal(err)
		}
	}
	setup := func(i int) {
		for j, svc := range svcs {
			name := fmt.Sprint("b", i)
			newBranch(b, svc, name)
			for k := range 50 {
				site(b, svc, name, fmt.Sprintf("new-%d-%d", i, k))
				update(b, svc, name, mains[j][k], map[string]any{"name": fmt.Sprintf("renamed-%d-%d", i, k)}, nil)
			}
		}
	}
	merge := func(svc *Service) func(int) {
		return func(i int) {
			if _, err := svc.MergeBranch(ctx, operator, fmt.Sprint("b", i)); err != nil {
				b.Fatal(err)
			}
		}
	}
	pair(b, [2]string{"100", "100000"}, setup, [2]func(int){merge(svcs[0]), merge(svcs[1])})
}

// BenchmarkCreateObject creates VLANs (with a site) on main and on a
// branch, and reports the statements each costs.
func BenchmarkCreateObject(b *testing.B) {
	other, _, url := newService(b)
	load(b, other, Main, vlans)
	a := site(b, other, Main, "site-a")
	newBranch(b, other, "b1")
	svc, proxy := proxiedService(b, url, false)
	var made atomic.Int64
	for _, branch := range []string{Main, "b1"} {
		b.Run("branch="+branch, func(b *testing.B) {
			ctx := context.Background()
			if _, err := svc.Schema(ctx, branch); err != nil {
				b.Fatal(err)
			}
			before := proxy.Statements()
			b.ResetTimer()
			for range b.N {
				i := made.Add(1)
				_, err := svc.CreateObject(ctx, operator, branch, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": fmt.Sprint("v", i), "vlan_id": i},
					Relationships: map[string][]string{"site": {a.ID}}})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(proxy.Statements()-before)/float64(b.N), "statements/op")
		})
	}
}
