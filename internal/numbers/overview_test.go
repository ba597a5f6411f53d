package numbers

import (
	"errors"
	"pivirt.hu/ipam/internal/refusal"
	"reflect"
	"testing"

	"pivirt.hu/ipam/internal/branch"
)

// TestPoolOverview: a pool's page reads the whole pool's figures (a
// number of two divisions once), a page of its divisions, and the open
// division's figures, label, numbers and strips, which agree with
// Utilization and Allocations; a long range is drawn by blocks.
func TestPoolOverview(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b, c := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b"), e.site(branch.Main, "site-c")
	p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 103, Weight: 2}, {Start: 1001, End: 3000, Weight: 1}}, "site")
	for i := range 3 {
		e.fromPool(branch.Main, p.ID, "a"+string(rune('0'+i)), a.ID, "user")
	}
	e.fromPool(branch.Main, p.ID, "b0", b.ID, "user")
	e.given(branch.Main, "a-given", a.ID, "user", 2500)

	o, err := e.svc.PoolOverview(ctx, operator, p.ID, OverviewQuery{Divisions: DivisionQuery{Limit: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Figures{Size: 2004, Used: 4, Utilization: 100 * 4.0 / 2004}); o.Figures != want || o.Pool.ID != p.ID {
		t.Errorf("PoolOverview figures = %+v of %s, want %+v of %s", o.Figures, o.Pool.ID, want, p.ID)
	}
	if o.Divisions.Count != 2 || o.Division != nil {
		t.Errorf("PoolOverview without a division: %d divisions, division %v; want 2 and none open", o.Divisions.Count, o.Division)
	}

	siteA := []EntryInput{{Path: "site", Value: a.ID}}
	o, err = e.svc.PoolOverview(ctx, operator, p.ID, OverviewQuery{Division: siteA, Divisions: DivisionQuery{Limit: 1}, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := o.Division
	if d == nil || d.Label != "site-a" || len(o.Divisions.Divisions) != 1 {
		t.Fatalf("PoolOverview(site-a) = %+v, want site-a open and one division to switch to", o)
	}
	usage, err := e.svc.Utilization(ctx, operator, p.ID, siteA)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Usage, usage) {
		t.Errorf("PoolOverview(site-a) usage = %+v, want Utilization's %+v", d.Usage, usage)
	}
	allocs, err := e.svc.Allocations(ctx, operator, p.ID, siteA, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Allocations, allocs) || allocs.Count != 4 {
		t.Errorf("PoolOverview(site-a) numbers = %+v, want Allocations' %+v (4 in all)", d.Allocations, allocs)
	}
	if len(d.Strips) != 2 {
		t.Fatalf("PoolOverview(site-a) has %d strips, want one per range", len(d.Strips))
	}
	short := []StripCell{{First: 100, Last: 100, Taken: 1}, {First: 101, Last: 101, Taken: 1}, {First: 102, Last: 102, Taken: 1}, {First: 103, Last: 103}}
	if !reflect.DeepEqual(d.Strips[0].Cells, short) || d.Strips[0].Range != usage.Ranges[0] {
		t.Errorf("strip of 100-103 = %+v, want %+v", d.Strips[0], short)
	}
	long := d.Strips[1].Cells
	if len(long) != 1000 || long[0] != (StripCell{First: 1001, Last: 1002}) || long[999] != (StripCell{First: 2999, Last: 3000}) {
		t.Errorf("strip of 1001-3000 has %d cells from %+v to %+v, want 1000 blocks of 2", len(long), long[0], long[len(long)-1])
	}
	for _, cell := range long {
		if taken := cell.First == 2499; (cell.Taken == 1) != taken || cell.Taken > 1 {
			t.Errorf("strip of 1001-3000: %+v, want 2500 alone taken", cell)
		}
	}

	// A division that holds no number: its peer's label all the same.
	o, err = e.svc.PoolOverview(ctx, operator, p.ID, OverviewQuery{Division: []EntryInput{{Path: "site", Value: c.ID}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := o.Division; d.Label != "site-c" || d.Usage.Figures.Used != 0 || d.Allocations.Count != 0 {
		t.Errorf("PoolOverview(site-c) = %q, %d used, %d numbers; want site-c, none", d.Label, d.Usage.Figures.Used, d.Allocations.Count)
	}

	// A pool without a scope has its own division open, without a label.
	whole := e.pool("VLAN IDs", []Range{{Start: 5000, End: 5009, Weight: 1}})
	e.fromPool(branch.Main, whole.ID, "w0", a.ID, "user")
	o, err = e.svc.PoolOverview(ctx, operator, whole.ID, OverviewQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if d := o.Division; d == nil || d.Label != "" || d.Usage.Figures.Used != 1 || len(d.Strips) != 1 || len(d.Strips[0].Cells) != 10 || o.Divisions.Count != 0 {
		t.Errorf("PoolOverview(no scope) = %+v, want its own division open: 1 used, a strip of 10", o)
	}

	sums, err := e.svc.PoolSummaries(ctx, operator)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].Pool.ID != whole.ID || sums[0].Figures.Used != 1 || sums[1].Figures.Used != 4 {
		t.Errorf("PoolSummaries = %+v, want both pools by name, 1 and 4 used", sums)
	}

	// Tenants see no pool; a division must name every scope element.
	if _, err := e.svc.PoolOverview(ctx, acme, p.ID, OverviewQuery{}); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("PoolOverview as a tenant: %v, want not found", err)
	}
	if _, err := e.svc.PoolOverview(ctx, operator, p.ID, OverviewQuery{Division: []EntryInput{}}); err == nil {
		t.Error("PoolOverview with an empty division: no refusal")
	}
}
