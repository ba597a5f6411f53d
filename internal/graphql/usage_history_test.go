package graphql

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/store"
)

// usageShape is the part of a query of every pool's, subnet's and
// division's usage that docs/operations.md writes: a query gets it with
// since's "..." a variable and one of the steps.
const usageShape = `history(since: "...", step: HOUR|DAY) { at used size } forecast { fullAt daysLeft basis } }`

// usageQuery is usageShape with since $since and step.
func usageQuery(step string) string {
	return strings.NewReplacer(`"..."`, "$since", "HOUR|DAY", step).Replace(usageShape)
}

// TestUsageHistoryAndForecast: a subnet's usage { history(since:, step:)
// { at used size } forecast { fullAt daysLeft basis } } reads the history
// and fits the line; a pool without history says so.
func TestUsageHistoryAndForecast(t *testing.T) {
	e := newEnv(t)
	e.seed()
	ctx := context.Background()
	for i := range 3 {
		if _, err := e.svc.AttachInterface(ctx, testActors["acme"], ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprintf("vm-%d", i), Hostname: fmt.Sprintf("vm-%d", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	var subnet string
	if err := e.db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	// One address a day for the last three days.
	hour := time.Now().UTC().Truncate(time.Hour)
	for d := 3; d >= 1; d-- {
		if err := store.RecordUsage(ctx, e.db, []store.UsageRecord{{ObjectUID: subnet, ObjectKind: "subnet", Used: int64(3 - d), Size: 253}}, hour.Add(-time.Duration(d)*24*time.Hour), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	var out struct {
		VPC struct {
			Subnets []struct {
				Usage struct {
					History []struct {
						At   string
						Used int
						Size int
					}
					Forecast struct {
						FullAt   *string
						DaysLeft *float64
						Basis    string
					}
				}
			}
			Pool struct {
				Usage struct {
					Forecast struct {
						FullAt   *string
						DaysLeft *float64
						Basis    string
					}
				}
			}
		}
	}
	since := hour.Add(-4 * 24 * time.Hour).Format(time.RFC3339)
	e.ok("acme", `query($since: String!) { vpc(namespace: "acme/prod", name: "main") {
		subnets { usage { `+usageQuery("HOUR")+` }
		pool { usage { forecast { fullAt daysLeft basis } } } } }`, &out, "since", since)
	u := out.VPC.Subnets[0].Usage
	if len(u.History) != 3 || u.History[0].At != hour.Add(-72*time.Hour).Format(time.RFC3339) || u.History[0].Used != 0 || u.History[2].Used != 2 || u.History[2].Size != 253 {
		t.Errorf("history = %+v, want the three days' hours", u.History)
	}
	if !regexp.MustCompile(`^full in about 2[45]\d days \(at the rate of the last 3 days\)$`).MatchString(u.Forecast.Basis) ||
		u.Forecast.FullAt == nil || u.Forecast.DaysLeft == nil || *u.Forecast.DaysLeft < 240 || *u.Forecast.DaysLeft > 260 {
		t.Errorf("forecast = %+v %v %v, want full in about 250 days", u.Forecast, deref(u.Forecast.FullAt), u.Forecast.DaysLeft)
	}
	if f := out.VPC.Pool.Usage.Forecast; f.Basis != "not enough history yet" || f.FullAt != nil || f.DaysLeft != nil {
		t.Errorf("the pool's forecast = %+v, want not enough history yet", f)
	}

	var days struct {
		VPC struct {
			Subnets []struct {
				Usage struct{ History []struct{ Used int } }
			}
		}
	}
	e.ok("acme", `query($since: String!) { vpc(namespace: "acme/prod", name: "main") { subnets { usage { `+usageQuery("DAY")+` } } }`, &days, "since", since)
	if h := days.VPC.Subnets[0].Usage.History; len(h) != 3 || h[2].Used != 2 {
		t.Errorf("days = %+v, want a day a point", h)
	}
	err := e.fails("acme", codeInvalidArgument, `{ vpc(namespace: "acme/prod", name: "main") { subnets { usage { history(since: "last week") { at } } } } }`)
	if err.Message != "since: give a time in RFC 3339, such as 2026-11-24T00:00:00Z" {
		t.Errorf("since \"last week\": %q", err.Message)
	}
}

// TestUsageHistoryWithoutSince: usage { history { … } } without since
// answers the last 7 days, hours by default, with step: DAY the days from
// the one 7 days ago began in (as the charts read days).
func TestUsageHistoryWithoutSince(t *testing.T) {
	e := newEnv(t)
	e.seed()
	var subnet string
	if err := e.db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	hour := time.Now().UTC().Truncate(time.Hour)
	for _, ago := range []time.Duration{8 * 24 * time.Hour, 3 * 24 * time.Hour, time.Hour} {
		if err := store.RecordUsage(t.Context(), e.db, []store.UsageRecord{{ObjectUID: subnet, ObjectKind: "subnet", Used: 1, Size: 253}}, hour.Add(-ago), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	type history struct {
		VPC struct {
			Subnets []struct {
				Usage struct{ History []struct{ At string } }
			}
		}
	}
	ats := func(h history) []string {
		var out []string
		for _, p := range h.VPC.Subnets[0].Usage.History {
			out = append(out, p.At)
		}
		return out
	}
	var hours, days history
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { subnets { usage { history { at used size claims releases } } } } }`, &hours)
	if got, want := ats(hours), []string{hour.Add(-72 * time.Hour).Format(time.RFC3339), hour.Add(-time.Hour).Format(time.RFC3339)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history without since: %v, want the hours of the last 7 days %v", got, want)
	}
	e.ok("acme", `{ vpc(namespace: "acme/prod", name: "main") { subnets { usage { history(step: DAY) { at } } } } }`, &days)
	day := func(ago time.Duration) string { return hour.Add(-ago).Truncate(24 * time.Hour).Format(time.RFC3339) }
	want := []string{day(72 * time.Hour), day(time.Hour)}
	if want[0] == want[1] {
		want = want[1:]
	}
	if got := ats(days); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history(step: DAY) without since: %v, want the days of the last 7 days %v", got, want)
	}
}

// TestDivisionHistoryWithoutSince: a number pool's division's history
// without since answers the last 7 days too.
func TestDivisionHistoryWithoutSince(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	site := e.site("site-a")
	pool := e.createPool(`{name: {value: "VLAN IDs per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"},
		ranges: [{start: 100, end: 199}], allocation_scope: {value: ["site"]}}`)
	e.vlan(fromPool(pool, "a0", site))
	hour := time.Now().UTC().Truncate(time.Hour)
	for _, ago := range []time.Duration{8 * 24 * time.Hour, 3 * 24 * time.Hour} {
		if err := e.pools.RecordUsage(t.Context(), hour.Add(-ago), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	var out struct {
		InfrahubNumberPoolDivisions struct {
			Divisions []struct{ History []struct{ At string } }
		}
	}
	e.ok("op", `query($pool: ID!) { InfrahubNumberPoolDivisions(pool_id: $pool) { divisions { history { at used size claims releases } } } }`, &out, "pool", pool)
	ds := out.InfrahubNumberPoolDivisions.Divisions
	if want := hour.Add(-72 * time.Hour).Format(time.RFC3339); len(ds) != 1 || len(ds[0].History) != 1 || ds[0].History[0].At != want {
		t.Errorf("divisions %+v, want one whose history is the hour %s", ds, want)
	}
}
