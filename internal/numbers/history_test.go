package numbers

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/forecast"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
	"pivirt.hu/ipam/internal/usage"
)

// seedRanges are the ranges of the pool VLAN IDs per site with a
// second range: 1 100 numbers.
var seedRanges = []Range{{Start: 100, End: 199, Weight: 10}, {Start: 1000, End: 1999, Weight: 1}}

// divisionsBySite returns the pool's divisions (Divisions) by display
// label.
func (e *env) divisionsBySite(pool string) map[string]Division {
	e.t.Helper()
	l, err := e.svc.Divisions(e.t.Context(), operator, pool)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]Division{}
	for _, d := range l.Divisions {
		out[d.DisplayLabel] = d
	}
	return out
}

// history returns the division's history at step since the zero time.
func (e *env) history(pool string, d Division, step string) []usage.Point {
	e.t.Helper()
	points, err := e.svc.DivisionHistory(e.t.Context(), operator, pool, d.Input(), step, time.Time{})
	if err != nil {
		e.t.Fatalf("DivisionHistory(%s, %s): %v", d.DisplayLabel, step, err)
	}
	return points
}

// rows counts the history's rows of divisions.
func (e *env) rows() int {
	e.t.Helper()
	var n int
	if err := e.db.Get(&n, `SELECT count(*) FROM usage_history WHERE object_kind = 'division'`); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestDivisionHistory: the service writes the usage of each division of
// the pool VLAN IDs per site (site A and site B both got 100), one row an hour and
// one a day however often it writes, the figures those of Divisions after
// the last write of the hour, the size the pool's 1 100 numbers; a tenant
// reads none; a division or a step the pool does not have is refused in
// words that say what to give.
func TestDivisionHistory(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", seedRanges, "site")
	if _, n := e.fromPool(branch.Main, p.ID, "a0", a.ID, "user"); n != 100 {
		t.Fatalf("site A got %d, want 100", n)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "b0", b.ID, "user"); n != 100 {
		t.Fatalf("site B got %d, want 100", n)
	}
	at := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	for i := range 3 {
		if err := e.svc.RecordUsage(ctx, at.Add(time.Duration(i)*15*time.Minute), time.Time{}); err != nil {
			t.Fatal(err)
		}
		e.fromPool(branch.Main, p.ID, fmt.Sprint("a", i+1), a.ID, "user")
	}
	// A number given outside the ranges is held, not used.
	e.given(branch.Main, "a-outside", a.ID, "user", 4000)
	if err := e.svc.RecordUsage(ctx, at.Add(time.Hour), time.Time{}); err != nil {
		t.Fatal(err)
	}
	divisions := e.divisionsBySite(p.ID)
	siteA, siteB := divisions["site-a"], divisions["site-b"]
	if siteA.Figures.Used != 4 || siteA.Figures.Size != 1100 || siteB.Figures.Used != 1 {
		t.Fatalf("Divisions: site-a %+v, site-b %+v; want 4 and 1 used of 1100", siteA.Figures, siteB.Figures)
	}
	hour := at.Truncate(time.Hour)
	for _, c := range []struct {
		d    Division
		step string
		want []usage.Point
	}{
		{siteA, usage.Hour, []usage.Point{{At: hour, Used: 3, Size: 1100}, {At: hour.Add(time.Hour), Used: 4, Size: 1100}}},
		{siteA, usage.Day, []usage.Point{{At: hour.Add(-10 * time.Hour), Used: 4, Size: 1100}}},
		{siteB, usage.Hour, []usage.Point{{At: hour, Used: 1, Size: 1100}, {At: hour.Add(time.Hour), Used: 1, Size: 1100}}},
	} {
		got := e.history(p.ID, c.d, c.step)
		if !slices.EqualFunc(got, c.want, func(a, b usage.Point) bool { return a.At.Equal(b.At) && a.Used == b.Used && a.Size == b.Size }) {
			t.Errorf("the %s history of %s: %+v, want %+v", c.step, c.d.DisplayLabel, got, c.want)
		}
	}
	if last := e.history(p.ID, siteA, usage.Hour)[1]; last.Used != siteA.Figures.Used || last.Size != siteA.Figures.Size {
		t.Errorf("the last hour of site-a %+v differs from its figures %+v", last, siteA.Figures)
	}
	if n := e.rows(); n != 2*(2+1) {
		t.Errorf("%d rows of divisions after 4 writes over 2 hours of 2 divisions, want 6: two hours and a day each", n)
	}

	if _, err := e.svc.DivisionHistory(ctx, acme, p.ID, siteA.Input(), usage.Hour, time.Time{}); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("a tenant reads a division's history: %v, want not found", err)
	}
	if _, err := e.svc.DivisionForecast(ctx, acme, p.ID, siteA.Input(), siteA.Figures, at); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("a tenant reads a division's forecast: %v, want not found", err)
	}
	if busy, err := e.svc.BusiestDivisions(ctx, acme, 10); err != nil || len(busy) != 0 {
		t.Errorf("a tenant's busiest divisions: %+v, %v; want none", busy, err)
	}
	_, err := e.svc.DivisionHistory(ctx, operator, p.ID, nil, usage.Hour, time.Time{})
	wantRefusal(t, err, refusal.ErrInvalid, "pool VLAN IDs per site divides its numbers by site; the division has no value for site")
	_, err = e.svc.DivisionHistory(ctx, operator, p.ID, siteA.Input(), "week", time.Time{})
	wantRefusal(t, err, refusal.ErrInvalid, `step must be hour or day, not "week"`)
}

// TestDivisionHistoryCountsChanges: the numbers allocated from the pool
// and released in each hour are counted from the audit log into the
// division's hour and day; numbers given are neither.
func TestDivisionHistoryCountsChanges(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", seedRanges, "site")
	var first branch.Object
	for i := range 3 {
		o, _ := e.fromPool(branch.Main, p.ID, fmt.Sprint("a", i), a.ID, "user")
		if i == 0 {
			first = o
		}
	}
	e.fromPool(branch.Main, p.ID, "b0", b.ID, "user")
	e.given(branch.Main, "a-given", a.ID, "user", 150)
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, first.ID); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := e.svc.RecordUsage(ctx, now, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	divisions := e.divisionsBySite(p.ID)
	for _, c := range []struct {
		site             string
		used             int64
		claims, releases int64
	}{{"site-a", 3, 3, 1}, {"site-b", 1, 1, 0}} {
		for _, step := range []string{usage.Hour, usage.Day} {
			points := e.history(p.ID, divisions[c.site], step)
			if len(points) != 1 {
				t.Fatalf("the %s history of %s: %+v, want one point", step, c.site, points)
			}
			if pt := points[0]; pt.Used != c.used || pt.Claims != c.claims || pt.Releases != c.releases {
				t.Errorf("the %s of %s: %+v, want %d used, %d claims, %d releases", step, c.site, pt, c.used, c.claims, c.releases)
			}
		}
	}
}

// TestDivisionHistoryPruned: pruning drops the divisions' rows past their
// keeping, those of a division that holds no number any more, and those of
// a deleted pool.
func TestDivisionHistoryPruned(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", seedRanges, "site")
	e.fromPool(branch.Main, p.ID, "a0", a.ID, "user")
	vb, _ := e.fromPool(branch.Main, p.ID, "b0", b.ID, "user")
	other := e.pool("global", []Range{{Start: 1, End: 10, Weight: 1}})
	e.fromPool(branch.Main, other.ID, "g0", a.ID, "user")
	at := time.Date(2026, 11, 30, 10, 5, 0, 0, time.UTC)
	for _, when := range []time.Time{at, at.Add(time.Hour)} {
		if err := e.svc.RecordUsage(ctx, when, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	divisions := e.divisionsBySite(p.ID)
	if n := e.rows(); n != 3*3 {
		t.Fatalf("%d rows of divisions, want 9: two hours and a day of each of 3 divisions", n)
	}

	if err := store.PruneUsageHistory(ctx, e.db, at.Add(usage.HourlyKept+90*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if hours := e.history(p.ID, divisions["site-a"], usage.Hour); len(hours) != 1 || !hours[0].At.Equal(at.Truncate(time.Hour).Add(time.Hour)) {
		t.Errorf("after the first hour passed its keeping: %+v, want the second hour alone", hours)
	}
	if days := e.history(p.ID, divisions["site-a"], usage.Day); len(days) != 1 {
		t.Errorf("the day went with the hour: %+v", days)
	}

	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, vb.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.RecordUsage(ctx, at.Add(2*time.Hour), time.Time{}); err != nil { // folds: site B holds nothing now
		t.Fatal(err)
	}
	if err := store.PruneUsageHistory(ctx, e.db, at); err != nil {
		t.Fatal(err)
	}
	if points := e.history(p.ID, divisions["site-b"], usage.Day); len(points) != 0 {
		t.Errorf("site B holds nothing, its history is kept: %+v", points)
	}
	if points := e.history(p.ID, divisions["site-a"], usage.Day); len(points) != 1 {
		t.Errorf("site A's history went with site B's: %+v", points)
	}
	global := e.divisionsBySite(other.ID)[""]
	if points := e.history(other.ID, global, usage.Day); len(points) != 1 {
		t.Fatalf("the history of the pool without a scope: %+v, want a day", points)
	}
	if _, err := e.svc.DeletePool(ctx, operator, other.ID); err != nil {
		t.Fatal(err)
	}
	if err := store.PruneUsageHistory(ctx, e.db, at); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := e.db.Get(&left, `SELECT count(*) FROM usage_history WHERE object_uid = number_division_uid($1, '[]')`, other.ID); err != nil || left != 0 {
		t.Errorf("%d rows of a deleted pool's division left, %v", left, err)
	}
	if n := e.rows(); n != 3 {
		t.Errorf("%d rows of divisions left, want site A's 3 (hours of 11:00 and 12:00, the day)", n)
	}
}

// TestDivisionForecast: a division that got one number a day for three
// days, and one more now, is full in 1 096 days (its 1 100 numbers less
// the 4 it holds, at one a day); one with no history is not enough
// history yet; a full one is full.
func TestDivisionForecast(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b, c := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b"), e.site(branch.Main, "site-c")
	p := e.pool("VLAN IDs per site", seedRanges, "site")
	now := time.Now().UTC()
	hour := now.Truncate(time.Hour)
	for d := 3; d >= 1; d-- {
		e.fromPool(branch.Main, p.ID, fmt.Sprint("a", d), a.ID, "user")
		if err := e.svc.RecordUsage(ctx, hour.Add(-time.Duration(d)*24*time.Hour), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	e.fromPool(branch.Main, p.ID, "a0", a.ID, "user")
	e.fromPool(branch.Main, p.ID, "b0", b.ID, "user")
	divisions := e.divisionsBySite(p.ID)
	siteA := divisions["site-a"]
	f, err := e.svc.DivisionForecast(ctx, operator, p.ID, siteA.Input(), siteA.Figures, hour)
	if err != nil {
		t.Fatal(err)
	}
	if f.State != forecast.Filling || math.Abs(f.DaysLeft-1096) > 1e-6 || math.Abs(f.PerDay-1) > 1e-9 || f.Basis != 72*time.Hour ||
		f.String() != "full in about 3 years (at the rate of the last 3 days)" {
		t.Errorf("site A's forecast: %+v (%s), want full in 1096 days (about 3 years) at 1 a day over 3 days", f, f)
	}
	siteB := divisions["site-b"]
	if f, err := e.svc.DivisionForecast(ctx, operator, p.ID, siteB.Input(), siteB.Figures, hour); err != nil || f.State != forecast.NotEnoughHistory {
		t.Errorf("site B's forecast: %+v, %v; want not enough history yet", f, err)
	}
	small := e.pool("small", []Range{{Start: 1, End: 2, Weight: 1}}, "site")
	e.fromPool(branch.Main, small.ID, "c1", c.ID, "user")
	e.fromPool(branch.Main, small.ID, "c2", c.ID, "user")
	full := e.divisionsBySite(small.ID)["site-c"]
	if f, err := e.svc.DivisionForecast(ctx, operator, small.ID, full.Input(), full.Figures, hour); err != nil || f.State != forecast.Full {
		t.Errorf("a full division's forecast: %+v, %v; want full", f, err)
	}
}

// TestBusiestDivisions: the divisions of every pool by utilization, then
// numbers used, at most limit, each with its pool, label and figures, and
// named well enough for DivisionHistory.
func TestBusiestDivisions(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", seedRanges, "site")
	for i := range 3 {
		e.fromPool(branch.Main, p.ID, fmt.Sprint("a", i), a.ID, "user")
	}
	e.fromPool(branch.Main, p.ID, "b0", b.ID, "user")
	small := e.pool("small", []Range{{Start: 1, End: 10, Weight: 1}})
	e.fromPool(branch.Main, small.ID, "s0", b.ID, "user")
	e.fromPool(branch.Main, small.ID, "s1", a.ID, "user")
	// Every pool of vlan_id records every VLAN's number, but lists and
	// counts its own alone: this one has none.
	e.pool("outside", []Range{{Start: 3000, End: 3009, Weight: 1}}, "site")

	busy, err := e.svc.BusiestDivisions(ctx, operator, 10)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		pool, division string
		used           int64
		utilization    float64
	}
	var got []row
	for _, d := range busy {
		got = append(got, row{d.Pool.Name, d.Division.DisplayLabel, d.Division.Figures.Used, d.Division.Figures.Utilization})
	}
	want := []row{{"small", "", 2, 20}, {"VLAN IDs per site", "site-a", 3, 300.0 / 1100}, {"VLAN IDs per site", "site-b", 1, 100.0 / 1100}}
	if !slices.Equal(got, want) {
		t.Fatalf("BusiestDivisions = %+v, want %+v, and none of the pool outside", got, want)
	}
	if busy[1].Division.Entries[0].Value != a.ID || busy[1].Pool.ID != p.ID {
		t.Errorf("site A's entry: %+v of pool %s", busy[1].Division.Entries, busy[1].Pool.ID)
	}
	if top, err := e.svc.BusiestDivisions(ctx, operator, 2); err != nil || len(top) != 2 || top[1].Division.DisplayLabel != "site-a" {
		t.Errorf("the 2 busiest: %+v, %v", top, err)
	}
	// Written since the last fold: the next read counts it.
	e.fromPool(branch.Main, p.ID, "b1", b.ID, "user")
	if top, err := e.svc.BusiestDivisions(ctx, operator, 3); err != nil || top[2].Division.Figures.Used != 2 {
		t.Errorf("after a claim in site B: %+v, %v", top, err)
	}
	if err := e.svc.RecordUsage(ctx, time.Now(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range busy {
		if points := e.history(d.Pool.ID, d.Division, usage.Hour); len(points) != 1 {
			t.Errorf("the history of %s of %s: %+v, want this hour", d.Division.DisplayLabel, d.Pool.Name, points)
		}
	}
	if _, err := e.svc.BusiestDivisions(ctx, operator, -1); !errors.Is(err, refusal.ErrInvalid) {
		t.Errorf("limit -1: %v, want refused", err)
	}
}

// TestDivisionHistoryUnderClaims: writing the history while 8 goroutines
// create VLANs from the pool in two sites never makes a claim fail or a
// number go twice in a site, and adds no row per claim: one an hour and
// one a day per division; the claims are all counted.
func TestDivisionHistoryUnderClaims(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	sites := []string{e.site(branch.Main, "site-a").ID, e.site(branch.Main, "site-b").ID}
	p := e.pool("VLAN IDs per site", seedRanges, "site")
	endpoint := e.endpoint()
	const workers, each = 8, 6
	done := make(chan struct{})
	writer := make(chan error, 1)
	var writes int
	go func() {
		last := time.Time{}
		for {
			now := time.Now()
			if err := e.svc.RecordUsage(ctx, now, last); err != nil {
				writer <- err
				return
			}
			writes, last = writes+1, now
			select {
			case <-done:
				writer <- nil
				return
			default:
			}
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				in := branch.ObjectInput{Attributes: map[string]any{"name": fmt.Sprintf("v%d-%d", w, i), "role": "user"},
					Relationships: map[string][]string{"site": {sites[(w+i)%2]}, "endpoints": {endpoint}}}
				if _, err := e.svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", in, []FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	if err := <-writer; err != nil {
		t.Fatal(err)
	}
	if t.Failed() {
		return
	}
	if err := e.svc.RecordUsage(ctx, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, s := range sites {
		var numbers []int64
		if err := e.db.Select(&numbers, `SELECT number FROM number_allocations WHERE pool_id = $1 AND division = jsonb_build_array($2::text) ORDER BY number`, p.ID, s); err != nil {
			t.Fatal(err)
		}
		want := make([]int64, workers*each/2)
		for i := range want {
			want[i] = int64(100 + i)
		}
		if !slices.Equal(numbers, want) {
			t.Errorf("site %s holds %v, want 100..%d once each", s, numbers, 100+len(want)-1)
		}
	}
	var rows struct {
		Rows      int   `db:"rows"`
		Divisions int   `db:"divisions"`
		Hours     int   `db:"hours"`
		Claims    int64 `db:"claims"`
		Used      int64 `db:"used"`
	}
	if err := e.db.Get(&rows, `SELECT count(*) AS rows, count(DISTINCT object_uid) AS divisions, count(DISTINCT at) FILTER (WHERE step = 'hour') AS hours,
		coalesce(sum(claims) FILTER (WHERE step = 'hour'), 0) AS claims,
		coalesce(sum(used) FILTER (WHERE step = 'hour' AND at = (SELECT max(at) FROM usage_history WHERE step = 'hour')), 0) AS used
		FROM usage_history WHERE object_kind = 'division'`); err != nil {
		t.Fatal(err)
	}
	if rows.Divisions != 2 || rows.Rows > rows.Divisions*2*rows.Hours {
		t.Errorf("%d rows of %d divisions over %d hours after %d writes and %d claims: want one an hour and one a day per division", rows.Rows, rows.Divisions, rows.Hours, writes, workers*each)
	}
	if rows.Claims != workers*each || rows.Used != workers*each {
		t.Errorf("the divisions' hours count %d claims and %d used, want %d", rows.Claims, rows.Used, workers*each)
	}
	t.Logf("%d writes of the history during %d claims", writes, workers*each)
}
