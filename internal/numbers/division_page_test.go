package numbers

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
)

// TestDivisionPage: divisions searched, sorted by usage or by an element
// (a peer by its label, an attribute by its value), either way, paged.
func TestDivisionPage(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b, c := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b"), e.site(branch.Main, "site-c")
	p := e.pool("VLAN IDs per site and role", []Range{{Start: 100, End: 103, Weight: 2}, {Start: 1, End: 4, Weight: 1}}, "site", "role")
	for _, v := range []struct{ site, role string }{{b.ID, "user"}, {a.ID, "voice"}, {a.ID, "user"}, {a.ID, "user"}, {c.ID, "user"}, {c.ID, "user"}, {c.ID, "user"}} {
		e.fromPool(branch.Main, p.ID, "v", v.site, v.role)
	}
	labels := func(q DivisionQuery) (int, []string) {
		t.Helper()
		d, err := e.svc.DivisionPage(ctx, operator, p.ID, q)
		if err != nil {
			t.Fatalf("DivisionPage(%+v): %v", q, err)
		}
		out := make([]string, len(d.Divisions))
		for i, x := range d.Divisions {
			out[i] = x.DisplayLabel + " " + strconv.FormatInt(x.Figures.Used, 10)
			if x.Figures.Size != 8 {
				t.Errorf("DivisionPage(%+v): %s has size %d, want 8", q, x.DisplayLabel, x.Figures.Size)
			}
		}
		return d.Count, out
	}
	tests := []struct {
		q     DivisionQuery
		count int
		want  []string
	}{
		{DivisionQuery{}, 4, []string{"site-c / user 3", "site-a / user 2"}},
		{DivisionQuery{Limit: 2}, 4, []string{"site-c / user 3", "site-a / user 2"}},
		{DivisionQuery{Limit: 2, Offset: 3}, 4, nil},
		{DivisionQuery{Limit: 2, Offset: 10}, 4, nil},
		{DivisionQuery{Sort: "site", Limit: 4}, 4, []string{"site-a / user 2", "site-a / voice 1", "site-b / user 1", "site-c / user 3"}},
		{DivisionQuery{Sort: "site", Reverse: true, Limit: 1}, 4, []string{"site-c / user 3"}},
		{DivisionQuery{Sort: "role", Reverse: true, Limit: 1}, 4, []string{"site-a / voice 1"}},
		{DivisionQuery{Search: "site-a", Sort: SortByUsage, Reverse: true}, 2, []string{"site-a / voice 1", "site-a / user 2"}},
		{DivisionQuery{Search: "SITE-A", Limit: 5}, 2, []string{"site-a / user 2", "site-a / voice 1"}},
		{DivisionQuery{Search: "voice", Limit: 5}, 1, []string{"site-a / voice 1"}},
		{DivisionQuery{Search: "nowhere", Limit: 5}, 0, []string{}},
	}
	for _, tt := range tests {
		count, got := labels(tt.q)
		if tt.q.Limit == 0 {
			// The first two: the others tie.
			got = got[:min(2, len(got))]
		}
		if tt.q.Offset == 10 {
			// Past the last page: none, the count all the same.
			if count != 4 || len(got) != 0 {
				t.Errorf("DivisionPage(%+v) = %d %q, want 4 and none", tt.q, count, got)
			}
			continue
		}
		if tt.q.Offset == 3 {
			// The last of four by usage: site-a / voice or site-b / user,
			// both 1, by their values.
			if count != 4 || len(got) != 1 || !strings.HasSuffix(got[0], " 1") {
				t.Errorf("DivisionPage(%+v) = %d %q, want 4 and one division of 1", tt.q, count, got)
			}
			continue
		}
		if count != tt.count || !slices.Equal(got, tt.want) {
			t.Errorf("DivisionPage(%+v) = %d %q, want %d %q", tt.q, count, got, tt.count, tt.want)
		}
	}
	// A number given outside the ranges is not the pool's: its division
	// is not listed.
	e.given(branch.Main, "outside", b.ID, "voice", 500)
	if count, got := labels(DivisionQuery{Reverse: true, Limit: 1}); count != 4 || len(got) != 1 || !strings.HasSuffix(got[0], " 1") {
		t.Errorf("least used first = %d %q, want 4 and one division of 1", count, got)
	}
	_, err := e.svc.DivisionPage(ctx, operator, p.ID, DivisionQuery{Sort: "name"})
	wantRefusal(t, err, refusal.ErrInvalid, `"name" is not a scope element of pool VLAN IDs per site and role; sort by usage or by one of them`)
	if _, err := e.svc.DivisionPage(ctx, acme, p.ID, DivisionQuery{}); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("DivisionPage as a tenant: %v, want not found", err)
	}
}
