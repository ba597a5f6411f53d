package branch

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// TestHook: what number pools ask of a write. A hook fills a value in the
// write's transaction before the required values are checked; its error
// refuses the write; a value it sets is checked as the input's are.
func TestHook(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")

	var seen *Write
	fromPool := func(ctx context.Context, w *Write) error {
		seen = w
		if w.Tx == nil || w.After.Relationships["site"][0] != a.ID {
			t.Errorf("the hook sees %+v", w.After)
		}
		return w.SetAttribute("vlan_id", 100)
	}
	v, err := svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "users"},
		Relationships: map[string][]string{"site": {a.ID}}, Hook: fromPool})
	if err != nil {
		t.Fatal(err)
	}
	if v.Attributes["vlan_id"] != int64(100) || seen.Before != nil || seen.Branch.Name != Main {
		t.Fatalf("created %+v (hook saw %+v)", v, seen)
	}
	refused := errors.New("pool exhausted")
	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "voice"},
		Relationships: map[string][]string{"site": {a.ID}}, Hook: func(context.Context, *Write) error { return refused }})
	if !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the hook's", err)
	}
	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "voice"},
		Relationships: map[string][]string{"site": {a.ID}}, Hook: func(_ context.Context, w *Write) error { return w.SetAttribute("vlan_id", "x") }})
	wantRefusal(t, err, refusal.ErrInvalid, "")
	u, err := svc.UpdateObject(ctx, operator, Main, v.ID, ObjectInput{Attributes: map[string]any{"vlan_id": nil},
		Hook: func(_ context.Context, w *Write) error {
			seen = w
			return w.SetAttribute("vlan_id", 101)
		}})
	if err != nil || u.Attributes["vlan_id"] != int64(101) || seen.Before.Attributes["vlan_id"] != int64(100) {
		t.Fatalf("updated %+v, %v (hook saw before %+v)", u, err, seen.Before)
	}
}

// recorded collects what a Recorder is told.
type recorded struct {
	mu      sync.Mutex
	changes []ObjectsChange
	refuse  error
}

func (r *recorded) record(_ context.Context, tx *store.Tx, c ObjectsChange) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tx == nil {
		return errors.New("no transaction")
	}
	r.changes = append(r.changes, c)
	return r.refuse
}

// take returns what was recorded since the last call.
func (r *recorded) take() []ObjectsChange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.changes
	r.changes = nil
	return out
}

// TestRecorder: the recorder is told, in the change's transaction, of
// every write and deletion of an object (and of the objects whose
// relationships lost it), of a merge (main's new versions, then the
// branch emptied), of a rebase (the branch's versions at its new point,
// those it dropped) and of a branch's deletion; its error refuses the
// change.
func TestRecorder(t *testing.T) {
	r := &recorded{}
	db, err := store.Open(t.Context(), pgtest.NewURL(t))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(t.Context(), Config{DB: db, Recorder: r.record})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	v := vlan(t, svc, Main, "users", 100, a.ID)
	kindID, elems := ids(t, must(svc.Schema(ctx, Main)), "IpamVLAN")
	changes := r.take()
	if len(changes) != 2 {
		t.Fatalf("%d changes recorded for two creations", len(changes))
	}
	c := changes[1]
	if c.Branch.Name != Main || c.Actor != operator.Name || c.Seq == 0 || len(c.Versions) != 1 || c.Versions[0].ID != v.ID ||
		c.Versions[0].Kind != kindID || string(c.Versions[0].Data[elems["vlan_id"]]) != "100" || c.Versions[0].Deleted {
		t.Fatalf("the VLAN's creation: %+v", c)
	}
	if _, ok := c.Schema.Kind("IpamVLAN"); !ok {
		t.Fatal("the change has no schema")
	}

	newBranch(t, svc, "b1")
	update(t, svc, "b1", v.ID, map[string]any{"vlan_id": 101}, nil)
	w := vlan(t, svc, "b1", "voice", 102, a.ID)
	if changes := r.take(); len(changes) != 2 || changes[0].Branch.Name != "b1" || string(changes[0].Versions[0].Data[elems["vlan_id"]]) != "101" {
		t.Fatalf("writes on b1: %+v", changes)
	}
	if _, err := svc.RebaseBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	changes = r.take()
	if len(changes) != 1 || !changes[0].Rebased || changes[0].Branch.Name != "b1" || len(changes[0].Versions) != 2 || changes[0].Seq != changes[0].Branch.Point {
		t.Fatalf("the rebase: %+v", changes)
	}
	if _, err := svc.MergeBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	changes = r.take()
	if len(changes) != 2 || changes[0].Branch.Name != Main || len(changes[0].Versions) != 2 || !changes[1].Emptied || changes[1].Branch.Name != "b1" ||
		changes[1].Branch.Point != changes[0].Seq {
		t.Fatalf("the merge: %+v", changes)
	}
	// A rebase of a branch whose objects end as main has them drops them.
	update(t, svc, "b1", w.ID, map[string]any{"name": "phones"}, nil)
	update(t, svc, Main, w.ID, map[string]any{"name": "phones"}, nil)
	r.take()
	if _, err := svc.RebaseBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if changes := r.take(); len(changes) != 1 || !slices.Equal(changes[0].Dropped, []string{w.ID}) || len(changes[0].Versions) != 0 {
		t.Fatalf("the rebase that drops: %+v", changes)
	}
	if _, err := svc.DeleteObject(ctx, operator, Main, v.ID); err != nil {
		t.Fatal(err)
	}
	if changes := r.take(); len(changes) != 1 || !changes[0].Versions[0].Deleted || changes[0].Versions[0].ID != v.ID {
		t.Fatalf("the deletion: %+v", changes)
	}
	// Deleting a peer: the objects that lose it, then the deletion.
	eth := create(t, svc, Main, "DcimInterface", map[string]any{"name": "eth0"}, nil)
	x := create(t, svc, Main, "IpamVLAN", map[string]any{"name": "x", "vlan_id": 7}, map[string][]string{"site": {a.ID}, "endpoints": {eth.ID}})
	r.take()
	if _, err := svc.DeleteObject(ctx, operator, Main, eth.ID); err != nil {
		t.Fatal(err)
	}
	if changes := r.take(); len(changes) != 2 || changes[0].Versions[0].ID != x.ID || changes[1].Versions[0].ID != eth.ID || !changes[1].Versions[0].Deleted {
		t.Fatalf("the deletion of a peer: %+v", changes)
	}
	if _, err := svc.DeleteBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	if changes := r.take(); len(changes) != 1 || !changes[0].Deleted || changes[0].Branch.Name != "b1" {
		t.Fatalf("the branch's deletion: %+v", changes)
	}
	// The recorder's error refuses the change: nothing is stored.
	r.refuse = errors.New("refused")
	if _, err := svc.CreateObject(ctx, operator, Main, "LocationSite", ObjectInput{Attributes: map[string]any{"name": "site-b"}}); !errors.Is(err, r.refuse) {
		t.Fatalf("err = %v, want the recorder's", err)
	}
	if n := count(t, svc, Main, "LocationSite"); n != 1 {
		t.Fatalf("%d sites, want 1", n)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
