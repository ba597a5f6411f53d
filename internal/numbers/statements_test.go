package numbers

import (
	"context"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// TestStatementsPerClaim counts what number pools add to a write of an
// object (docs/numbers.md, "What it costs"): nothing. The write is one
// statement (store.WriteObject), which records the numbers the object
// holds and claims its number from the pool.
func TestStatementsPerClaim(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	endpoint := e.endpoint()
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 4094, Weight: 1}}, "site")
	proxy, through := pgtest.NewProxy(t, e.url)
	db, err := store.Open(context.Background(), through)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{DB: db, URL: e.url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	vlan := func(name string, n any) branch.ObjectInput {
		in := branch.ObjectInput{Attributes: map[string]any{"name": name, "role": "user"}, Relationships: map[string][]string{"site": {a.ID}, "endpoints": {endpoint}}}
		if n != nil {
			in.Attributes["vlan_id"] = n
		}
		return in
	}
	// Warm up: the schema, the pool and the division's view are read once.
	if _, err := svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", vlan("warm", nil), []FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
		t.Fatal(err)
	}
	statements := func(what string, want int64, op func() error, orAfterOneMoreRace ...bool) {
		t.Helper()
		before := proxy.Statements()
		if err := op(); err != nil {
			t.Fatal(err)
		}
		if got := proxy.Statements() - before; got != want && (len(orAfterOneMoreRace) == 0 || got != want+2) {
			t.Errorf("%s: %d statements, want %d", what, got, want)
		}
	}
	statements("a site's creation", 1, func() error {
		_, err := svc.Branches().CreateObject(ctx, operator, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "s"}})
		return err
	})
	statements("a VLAN with a number given", 1, func() error {
		_, err := svc.Branches().CreateObject(ctx, operator, branch.Main, "IpamVLAN", vlan("given", 4000))
		return err
	})
	var claimed branch.Object
	statements("a VLAN from the pool", 1, func() (err error) {
		claimed, err = svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", vlan("claimed", nil), []FromPool{{Attribute: "vlan_id", Pool: p.ID}})
		return err
	})
	// The VLAN read, then deleted with its number released.
	statements("a VLAN's deletion", 2, func() error {
		_, err := svc.Branches().DeleteObject(ctx, operator, branch.Main, claimed.ID)
		return err
	})
	// A number another process took: the statement claims it, finds it
	// taken, and is made again with the next (the conflict read between).
	// On a loaded machine the notification of the deletion above may
	// reach svc's view after its first lost race and free that number in
	// it again: one more race lost, two statements more (seen once in
	// CI; the database decides every claim either way).
	if _, err := e.svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", vlan("elsewhere", nil), []FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
		t.Fatal(err)
	}
	statements("a VLAN from the pool, its first number taken elsewhere", 3, func() error {
		_, err := svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", vlan("raced", nil), []FromPool{{Attribute: "vlan_id", Pool: p.ID}})
		return err
	}, true)
}
