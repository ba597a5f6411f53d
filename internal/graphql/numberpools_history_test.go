package graphql

import (
	"fmt"
	"testing"
	"time"
)

// divisionHistory is the query of a pool's divisions with their history
// and forecast.
const divisionHistory = `query($pool: ID!, $since: String!, $step: UsageStep!) { InfrahubNumberPoolDivisions(pool_id: $pool) { divisions {
	display_label figures { size used }
	history(since: $since, step: $step) { at used size claims releases }
	forecast { fullAt daysLeft basis } } } }`

// TestNumberPoolDivisionHistory: a division of a pool scoped by site has a
// history { at used size claims releases } and a forecast { fullAt
// daysLeft basis } as pools and subnets do: site A, which got one VLAN a
// day for three days and one now, fills up at one a day; site B, one VLAN
// all along, does not; claims are counted; since is checked; tenants see
// no number pool.
func TestNumberPoolDivisionHistory(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	pool := e.createPool(`{name: {value: "VLAN IDs per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"},
		ranges: [{start: 100, end: 199, weight: 10}, {start: 1000, end: 1999}], allocation_scope: {value: ["site"]}}`)
	if _, n := e.vlan(fromPool(pool, "b0", siteB)); n != 100 {
		t.Fatalf("site-b got %d, want 100", n)
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	for d := 3; d >= 1; d-- {
		_, n := e.vlan(fromPool(pool, fmt.Sprint("a", d), siteA))
		if d == 3 && n != 100 {
			t.Fatalf("site-a got %d, want 100", n)
		}
		if err := e.pools.RecordUsage(t.Context(), hour.Add(-time.Duration(d)*24*time.Hour), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	e.vlan(fromPool(pool, "a0", siteA))

	type point struct {
		At                           string
		Used, Size, Claims, Releases int
	}
	var out struct {
		InfrahubNumberPoolDivisions struct {
			Divisions []struct {
				DisplayLabel string `json:"display_label"`
				Figures      struct{ Size, Used int }
				History      []point
				Forecast     struct {
					FullAt   *string
					DaysLeft *float64
					Basis    string
				}
			}
		}
	}
	e.ok("op", divisionHistory, &out, "pool", pool, "since", hour.Add(-7*24*time.Hour).Format(time.RFC3339), "step", "HOUR")
	ds := out.InfrahubNumberPoolDivisions.Divisions
	if len(ds) != 2 || ds[0].DisplayLabel != "site-a" || ds[1].DisplayLabel != "site-b" {
		t.Fatalf("divisions %+v, want site-a then site-b", ds)
	}
	a, b := ds[0], ds[1]
	var want []point
	for d := 3; d >= 1; d-- {
		want = append(want, point{At: hour.Add(-time.Duration(d) * 24 * time.Hour).Format(time.RFC3339), Used: 4 - d, Size: 1100})
	}
	if fmt.Sprint(a.History) != fmt.Sprint(want) {
		t.Errorf("site-a's history %+v, want %+v", a.History, want)
	}
	// One a day until the last hour's point; now's, up to an hour later,
	// bends the line a little.
	if f := a.Forecast; f.Basis != "full in about 3 years (at the rate of the last 3 days)" ||
		f.FullAt == nil || f.DaysLeft == nil || *f.DaysLeft < 1096 || *f.DaysLeft > 1140 {
		days := "<null>"
		if f.DaysLeft != nil {
			days = fmt.Sprint(*f.DaysLeft)
		}
		t.Errorf("site-a's forecast %q, full at %s, %s days left; want full in about 3 years, 1096 days (1100 numbers, 4 used, one a day)", f.Basis, deref(f.FullAt), days)
	}
	if len(b.History) != 3 || b.History[2].Used != 1 || b.Forecast.Basis != "not filling up" || b.Forecast.FullAt != nil || b.Forecast.DaysLeft != nil {
		t.Errorf("site-b: history %+v, forecast %+v; want 3 points of 1 used, not filling up", b.History, b.Forecast)
	}

	if err := e.pools.RecordUsage(t.Context(), time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	e.ok("op", divisionHistory, &out, "pool", pool, "since", hour.Truncate(24*time.Hour).Format(time.RFC3339), "step", "DAY")
	for i, want := range []struct {
		used, claims int
	}{{4, 4}, {1, 1}} {
		h := out.InfrahubNumberPoolDivisions.Divisions[i].History
		if len(h) != 1 || h[0].Used != want.used || h[0].Claims != want.claims || h[0].Size != 1100 {
			t.Errorf("the day of %s: %+v, want %d used and %d claims", out.InfrahubNumberPoolDivisions.Divisions[i].DisplayLabel, h, want.used, want.claims)
		}
	}

	err := e.fails("op", codeInvalidArgument, `query($pool: ID!) { InfrahubNumberPoolDivisions(pool_id: $pool) { divisions { history(since: "yesterday") { at } } } }`, "pool", pool)
	if err.Message != "since: give a time in RFC 3339, such as 2026-11-24T00:00:00Z" {
		t.Errorf("since \"yesterday\": %q", err.Message)
	}
	err = e.fails("acme", codeInvalidArgument, divisionHistory, "pool", pool, "since", hour.Format(time.RFC3339), "step", "HOUR")
	if err.Message != `Cannot query field "InfrahubNumberPoolDivisions" on type "Query".` {
		t.Errorf("a tenant's query of divisions: %q, want no such field", err.Message)
	}
}
