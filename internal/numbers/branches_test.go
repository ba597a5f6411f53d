package numbers

import (
	"testing"

	"pivirt.hu/ipam/internal/branch"
)

// newBranch creates a branch.
func (e *env) newBranch(name string) {
	e.t.Helper()
	if _, err := e.branches.CreateBranch(e.t.Context(), operator, name); err != nil {
		e.t.Fatal(err)
	}
}

// used returns the figure used of the division of the pool for the site.
func (e *env) used(pool, site string) int64 {
	e.t.Helper()
	u, err := e.svc.Utilization(e.t.Context(), operator, pool, []EntryInput{{Path: "site", Value: site}})
	if err != nil {
		e.t.Fatal(err)
	}
	return u.Figures.Used
}

// TestReservedOnEveryBranch: a number allocated on any branch is reserved
// on every branch, and counts in its site wherever the figures are read.
func TestReservedOnEveryBranch(t *testing.T) {
	e := newEnv(t)
	a := e.site(branch.Main, "site-a")
	e.endpoint()
	p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
	e.newBranch("b1")
	e.newBranch("b2")
	for _, step := range []struct {
		branch string
		want   int64
	}{{"b1", 100}, {branch.Main, 101}, {"b2", 102}, {"b1", 103}} {
		if _, n := e.fromPool(step.branch, p.ID, "v", a.ID, "user"); n != step.want {
			t.Fatalf("on %s got %d, want %d", step.branch, n, step.want)
		}
	}
	if got := e.used(p.ID, a.ID); got != 4 {
		t.Errorf("site A uses %d, want 4 (every branch)", got)
	}
	u, err := e.svc.ResourcePoolUtilization(t.Context(), operator, p.ID)
	if err != nil || u.Count != 1 || u.Utilization != 4 || u.UtilizationDefaultBranch != 1 || u.UtilizationBranches != 3 {
		t.Fatalf("ResourcePoolUtilization = %+v, %v", u, err)
	}
	al, err := e.svc.ResourcePoolAllocated(t.Context(), operator, p.ID, "", 0, 0)
	if err != nil || al.Count != 4 {
		t.Fatalf("ResourcePoolAllocated = %+v, %v", al, err)
	}
	for i, want := range []string{"b1", branch.Main, "b2", "b1"} {
		if n := al.Nodes[i]; n.Branch != want || n.Kind != "IpamVLAN" || n.DisplayLabel != "v" || n.Identifier != n.ID {
			t.Errorf("allocated %d = %+v, want on %s", i, n, want)
		}
	}
}

// TestCountedPerBranch: a number counts in a division when, on one branch,
// the object holds it and belongs to the division: a VLAN moved on a
// branch counts in both sites.
func TestCountedPerBranch(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "v", a.ID, "user")
	e.newBranch("b1")
	if _, err := e.branches.UpdateObject(ctx, operator, "b1", v.ID, branch.ObjectInput{Relationships: map[string][]string{"site": {b.ID}}}); err != nil {
		t.Fatal(err)
	}
	if e.used(p.ID, a.ID) != 1 || e.used(p.ID, b.ID) != 1 {
		t.Fatalf("site A uses %d, site B %d; want 1 each", e.used(p.ID, a.ID), e.used(p.ID, b.ID))
	}
	// On main, site B's 100 is taken too (held on b1).
	if _, n := e.fromPool(branch.Main, p.ID, "w", b.ID, "user"); n != 101 {
		t.Fatalf("site B on main got %d, want 101", n)
	}
	d, err := e.svc.Divisions(ctx, operator, p.ID)
	if err != nil || d.Count != 2 || d.Divisions[0].DisplayLabel != "site-b" || d.Divisions[0].Figures.Used != 2 {
		t.Fatalf("Divisions = %+v, %v", d, err)
	}
	// Deleting b1 frees what only its objects held: site B's 100.
	if _, err := e.branches.DeleteBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if e.used(p.ID, b.ID) != 1 {
		t.Errorf("site B uses %d after b1's deletion, want 1", e.used(p.ID, b.ID))
	}
	if _, n := e.fromPool(branch.Main, p.ID, "x", b.ID, "user"); n != 100 {
		t.Fatalf("site B got %d after b1's deletion, want 100", n)
	}
}

// TestBranchDeletionFrees: deleting a branch frees the numbers that only
// its objects held, not those main's objects hold.
func TestBranchDeletionFrees(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	e.endpoint()
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	e.fromPool(branch.Main, p.ID, "main", a.ID, "user") // 1
	e.newBranch("b1")
	e.fromPool("b1", p.ID, "b1-a", a.ID, "user") // 2
	e.fromPool("b1", p.ID, "b1-b", a.ID, "user") // 3
	if _, err := e.branches.DeleteBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if got := e.used(p.ID, a.ID); got != 1 {
		t.Fatalf("site A uses %d, want 1", got)
	}
	for _, want := range []int64{2, 3, 4} {
		if _, n := e.fromPool(branch.Main, p.ID, "again", a.ID, "user"); n != want {
			t.Fatalf("got %d, want %d", n, want)
		}
	}
}

// TestMainHistory: a number main's object gave up stays reserved while a
// branch still shows the object holding it; rebasing the branch frees it.
func TestMainHistory(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "old", a.ID, "user") // 1
	e.newBranch("b1")
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, v.ID); err != nil {
		t.Fatal(err)
	}
	if got := e.used(p.ID, a.ID); got != 1 {
		t.Fatalf("site A uses %d, want 1 (b1 shows the VLAN)", got)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "new", a.ID, "user"); n != 2 {
		t.Fatalf("got %d while b1 shows 1, want 2", n)
	}
	if _, err := e.branches.RebaseBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if got := e.used(p.ID, a.ID); got != 1 {
		t.Fatalf("site A uses %d after the rebase, want 1", got)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "reuse", a.ID, "user"); n != 1 {
		t.Fatalf("got %d after the rebase, want 1", n)
	}
	// An object of main made after a branch's point is none of its
	// business: deleting it frees its number at once.
	w, _ := e.fromPool(branch.Main, p.ID, "late", a.ID, "user") // 3
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, w.ID); err != nil {
		t.Fatal(err)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "reuse", a.ID, "user"); n != 3 {
		t.Fatalf("got %d, want 3", n)
	}
}

// TestMergeAndRebase: merges and rebases keep the records: the numbers a
// branch's objects took are main's after the merge, still taken, and
// what the branch gave up is freed.
func TestMergeAndRebase(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	e.endpoint()
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "v", a.ID, "user") // A 1
	e.newBranch("b1")
	e.fromPool("b1", p.ID, "w", a.ID, "user") // A 2
	// On b1, v gives up 1 for another number of site B.
	if _, err := e.svc.UpdateObject(ctx, operator, "b1", v.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil},
		Relationships: map[string][]string{"site": {b.ID}}}, []FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
		t.Fatal(err)
	}
	e.fromPool(branch.Main, p.ID, "x", a.ID, "user") // A 3 (1 held on main, 2 on b1)
	if _, err := e.branches.RebaseBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if e.used(p.ID, a.ID) != 3 || e.used(p.ID, b.ID) != 1 {
		t.Fatalf("after the rebase site A uses %d, site B %d; want 3 and 1", e.used(p.ID, a.ID), e.used(p.ID, b.ID))
	}
	if _, err := e.branches.MergeBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	// main now holds v in site B; site A's 1 is free, 2 and 3 are held.
	if e.used(p.ID, a.ID) != 2 || e.used(p.ID, b.ID) != 1 {
		t.Fatalf("after the merge site A uses %d, site B %d; want 2 and 1", e.used(p.ID, a.ID), e.used(p.ID, b.ID))
	}
	al, err := e.svc.Allocations(ctx, operator, p.ID, nil, 0, 0)
	if err != nil || al.Count != 3 {
		t.Fatalf("Allocations = %+v, %v", al, err)
	}
	for _, x := range al.Allocations {
		if x.Branch != branch.Main {
			t.Errorf("%+v is not on main after the merge", x)
		}
	}
	for _, want := range []int64{1, 4} {
		if _, n := e.fromPool(branch.Main, p.ID, "after", a.ID, "user"); n != want {
			t.Fatalf("got %d after the merge, want %d", n, want)
		}
	}
	if _, n := e.fromPool("b1", p.ID, "on-b1", b.ID, "user"); n != 2 {
		t.Fatalf("site B on b1 got %d, want 2", n)
	}
}
