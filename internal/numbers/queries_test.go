package numbers

import (
	"testing"

	"pivirt.hu/ipam/internal/branch"
)

// TestQueries: the queries of usage (docs/numbers.md, "Usage") over a scoped pool and a pool without a
// scope: divisions most used first, ties by label; a division's figures
// and its ranges'; allocations of some of the scope elements, paged; the
// whole pool's figures, its scope ignored.
func TestQueries(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b, c := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b"), e.site(branch.Main, "site-c")
	p := e.pool("VLAN IDs per site and role", []Range{{Start: 100, End: 103, Weight: 2}, {Start: 1, End: 4, Weight: 1}}, "site", "role")
	for _, v := range []struct{ site, role string }{{b.ID, "user"}, {a.ID, "voice"}, {a.ID, "user"}, {a.ID, "user"}, {c.ID, "user"}, {a.ID, "user"}, {a.ID, "user"}, {a.ID, "user"}} {
		e.fromPool(branch.Main, p.ID, "v", v.site, v.role)
	}
	d, err := e.svc.Divisions(ctx, operator, p.ID)
	if err != nil || d.Count != 4 {
		t.Fatalf("Divisions = %+v, %v", d, err)
	}
	for i, want := range []struct {
		label string
		used  int64
	}{{"site-a / user", 5}, {"site-a / voice", 1}, {"site-b / user", 1}, {"site-c / user", 1}} {
		if got := d.Divisions[i]; got.DisplayLabel != want.label || got.Figures.Used != want.used || got.Figures.Size != 8 {
			t.Errorf("division %d = %s %+v, want %s used %d", i, got.DisplayLabel, got.Figures, want.label, want.used)
		}
	}
	u, err := e.svc.Utilization(ctx, operator, p.ID, []EntryInput{{Path: "role", Value: "user"}, {Path: "site", Value: a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if u.Figures != (Figures{Size: 8, Used: 5, Utilization: 62.5}) || len(u.Ranges) != 2 ||
		u.Ranges[0].Figures != (Figures{Size: 4, Used: 4, Utilization: 100}) || u.Ranges[1].Figures != (Figures{Size: 4, Used: 1, Utilization: 25}) {
		t.Fatalf("Utilization = %+v", u)
	}
	al, err := e.svc.Allocations(ctx, operator, p.ID, []EntryInput{{Path: "site", Value: a.ID}}, 3, 1)
	if err != nil || al.Count != 6 || len(al.Allocations) != 3 {
		t.Fatalf("Allocations = %+v, %v", al, err)
	}
	// Site A holds 1, 100 (voice), 100 (user), 101, 102, 103.
	for i, want := range []int64{100, 100, 101} {
		x := al.Allocations[i]
		if x.Value != want || x.Branch != branch.Main || x.Holder.Kind != "IpamVLAN" || x.Division[0].DisplayLabel != "site-a" {
			t.Errorf("allocation %d = %+v, want %d", i, x, want)
		}
	}
	whole, err := e.svc.ResourcePoolUtilization(ctx, operator, p.ID)
	if err != nil || whole.Count != 2 || whole.Utilization != 62.5 || whole.Ranges[0].DisplayLabel != "100-103" || whole.Ranges[0].Kind != RangeKind ||
		whole.Ranges[0].Weight != 2 || whole.Ranges[1].Utilization != 25 || whole.Ranges[0].ID != p.ID+"-1" {
		t.Fatalf("ResourcePoolUtilization = %+v, %v (8 holders of 5 numbers in all)", whole, err)
	}

	// A pool without a scope: one division without entries, once a number
	// of its own is held; the VLANs' numbers (1 among them) were recorded
	// at its creation, and are skipped, not listed.
	plain, err := e.svc.CreatePool(ctx, operator, PoolInput{Name: "levels", Node: "IpamVLAN", NodeAttribute: "level", Ranges: []Range{{Start: 2, End: 9, Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := e.svc.Divisions(ctx, operator, plain.ID); err != nil || d.Count != 0 {
		t.Fatalf("Divisions of a pool whose objects' numbers are all outside = %+v, %v; want none", d, err)
	}
	o, err := e.svc.UpdateObject(ctx, operator, branch.Main, al.Allocations[0].Holder.ID, branch.ObjectInput{Attributes: map[string]any{"level": nil}},
		[]FromPool{{Attribute: "level", Pool: plain.ID}})
	if err != nil || o.Attributes["level"] != int64(2) {
		t.Fatalf("level from the pool: %v, %v", o.Attributes, err)
	}
	d, err = e.svc.Divisions(ctx, operator, plain.ID)
	if err != nil || d.Count != 1 || len(d.Divisions[0].Entries) != 0 || d.Divisions[0].DisplayLabel != "" || d.Divisions[0].Figures.Used != 1 {
		t.Fatalf("Divisions of a pool without a scope = %+v, %v", d, err)
	}
	if u, err := e.svc.Utilization(ctx, operator, plain.ID, nil); err != nil || u.Figures != (Figures{Size: 8, Used: 1, Utilization: 12.5}) {
		t.Fatalf("Utilization without a division = %+v, %v", u, err)
	}
}
