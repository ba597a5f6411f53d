package numbers

import (
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// TestGenericPool: a pool of a generic allocates to the objects of the
// nodes that inherit from it, divided by the generic's elements.
func TestGenericPool(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	p, err := e.svc.CreatePool(ctx, operator, PoolInput{Name: "VNIs per fabric", Node: "DcimEndpoint", NodeAttribute: "vni",
		Ranges: []Range{{Start: 5000, End: 5999, Weight: 1}}, AllocationScope: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	claim := func(name, fabric string) int64 {
		o, err := e.svc.CreateObject(ctx, operator, branch.Main, "DcimInterface",
			branch.ObjectInput{Attributes: map[string]any{"name": name, "fabric": fabric, "rack": "r1"}}, []FromPool{{Attribute: "vni", Pool: p.ID}})
		if err != nil {
			t.Fatal(err)
		}
		return o.Attributes["vni"].(int64)
	}
	if a, b, c := claim("i1", "f1"), claim("i2", "f1"), claim("i3", "f2"); a != 5000 || b != 5001 || c != 5000 {
		t.Fatalf("got %d, %d, %d; want 5000, 5001, 5000", a, b, c)
	}
	d, err := e.svc.Divisions(ctx, operator, p.ID)
	if err != nil || d.Count != 2 || d.Divisions[0].DisplayLabel != "f1" || d.Divisions[0].Figures.Used != 2 {
		t.Fatalf("Divisions = %+v, %v", d, err)
	}
}

// TestPoolFindsWhatBranchesHold: a pool created after objects were made
// records what every branch shows: a branch's own objects, and main's
// versions a branch still sees.
func TestPoolFindsWhatBranchesHold(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	e.endpoint()
	v := e.given(branch.Main, "old", a.ID, "user", 100)
	e.newBranch("b1")
	e.given("b1", "on-b1", a.ID, "user", 101)
	if _, err := e.branches.UpdateObject(ctx, operator, branch.Main, v.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": 104}}); err != nil {
		t.Fatal(err)
	}
	p := e.pool("late", []Range{{Start: 100, End: 110, Weight: 1}}, "site")
	// Taken: 100 (b1 sees main's old version), 101 (b1's), 104 (main).
	for _, want := range []int64{102, 103, 105} {
		if _, n := e.fromPool(branch.Main, p.ID, "new", a.ID, "user"); n != want {
			t.Fatalf("got %d, want %d", n, want)
		}
	}
	if got := e.used(p.ID, a.ID); got != 6 {
		t.Fatalf("site A uses %d, want 6", got)
	}
}

// TestFollowedAcrossServices: a number freed by one service is free in
// the other's view as soon as the database tells it; a pool's new ranges
// are claimed from at once, whatever a service cached.
func TestFollowedAcrossServices(t *testing.T) {
	e := newEnv(t)
	other := openEnv(t, e.url)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	p := e.pool("followed", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
	v, _ := e.fromPool(branch.Main, p.ID, "v1", a.ID, "user")
	e.fromPool(branch.Main, p.ID, "v2", a.ID, "user")
	if _, n := other.fromPool(branch.Main, p.ID, "v3", a.ID, "user"); n != 3 {
		t.Fatalf("the other service got %d, want 3", n)
	}
	if _, err := other.branches.DeleteObject(ctx, operator, branch.Main, v.ID); err != nil {
		t.Fatal(err)
	}
	// e's view learns of the release from the database's notification.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var freed bool
		e.svc.views.divisions.IfLoaded(viewKey{p.ID, `["` + a.ID + `"]`}).Read(func(taken candidates.NumberSet) { freed = !taken.Contains(1) })
		if freed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the release was not followed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "v4", a.ID, "user"); n != 1 {
		t.Fatalf("got %d after the release elsewhere, want 1", n)
	}
	if _, err := other.svc.UpdatePool(ctx, operator, p.ID, PoolUpdate{Ranges: []Range{{Start: 50, End: 60, Weight: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, n := e.fromPool(branch.Main, p.ID, "v5", a.ID, "user"); n != 50 {
		t.Fatalf("got %d after the ranges changed, want 50", n)
	}
}

// TestPoolDeletedWhileClaiming: a claim that meets a pool being deleted
// waits for the deletion (seen waiting for a lock), then is refused: the
// pool is not found.
func TestPoolDeletedWhileClaiming(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	p := e.pool("doomed", []Range{{Start: 1, End: 10, Weight: 1}}, "site")
	e.fromPool(branch.Main, p.ID, "v1", a.ID, "user")
	deleting, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	defer letGo() // a failure lets the deletion end
	deleted := make(chan error, 1)
	go func() {
		deleted <- store.InTx(ctx, e.db, func(tx *store.Tx) error {
			if err := store.DeleteNumberPool(ctx, tx, p.ID, store.AuditEntry{Actor: "op", Action: "delete", ObjectKind: PoolKind, ObjectName: p.Name}); err != nil {
				return err
			}
			close(deleting)
			<-release
			return nil
		})
	}()
	<-deleting
	claimDone, claimed := goDo(func() error {
		_, err := e.svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", e.vlanInput("v2", a.ID, "user", nil), []FromPool{{Attribute: "vlan_id", Pool: p.ID}})
		return err
	})
	pgtest.WaitForLock(t, e.db, "the claim from the pool being deleted", pgtest.LockWait{}, claimDone)
	letGo()
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	<-claimDone
	wantRefusal(t, *claimed, refusal.ErrNotFound, "number pool "+p.ID+" not found")
	// A write that records numbers while the pool goes is tried again
	// without it.
	if _, err := e.branches.CreateObject(ctx, operator, branch.Main, "IpamVLAN", e.vlanInput("v3", a.ID, "user", 7)); err != nil {
		t.Fatal(err)
	}
}
