package branch_test

import (
	"context"
	"reflect"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/schema/schematest"
	"pivirt.hu/ipam/internal/store"
)

// TestBranchDiffNumbers: a branch's diff lists the numbers of number pools
// its objects hold, by pool, division (named by its site's label) and
// number, marking those the object did not hold at the branch point; the
// numbers main's objects hold, which the branch did not change, are not
// the branch's. A pool's numbers are those of its ranges or allocated
// from it: not another pool's of the same attribute, nor a number given
// outside every range.
func TestBranchDiffNumbers(t *testing.T) {
	ctx := t.Context()
	url := pgtest.NewURL(t)
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := numbers.New(context.Background(), numbers.Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	op := auth.Actor{Name: "op", Role: auth.Operator}
	branches := svc.Branches()
	f, err := schema.Parse("vlans.yaml", []byte(schematest.SitesAndVLANs))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := branches.LoadSchema(ctx, op, branch.Main, f); err != nil {
		t.Fatal(err)
	}
	create := func(on, kind string, attrs map[string]any, rels map[string][]string, from ...numbers.FromPool) branch.Object {
		t.Helper()
		o, err := svc.CreateObject(ctx, op, on, kind, branch.ObjectInput{Attributes: attrs, Relationships: rels}, from)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	a := create(branch.Main, "LocationSite", map[string]any{"name": "site-a"}, nil)
	b := create(branch.Main, "LocationSite", map[string]any{"name": "site-b"}, nil)
	pool, err := svc.CreatePool(ctx, op, numbers.PoolInput{Name: "VLAN IDs per site", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 1}}, AllocationScope: []string{"site"}})
	if err != nil {
		t.Fatal(err)
	}
	from := numbers.FromPool{Attribute: "vlan_id", Pool: pool.ID}
	voice, err := svc.CreatePool(ctx, op, numbers.PoolInput{Name: "Voice VLAN IDs", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 200, End: 299, Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	users := create(branch.Main, "IpamVLAN", map[string]any{"name": "users"}, map[string][]string{"site": {a.ID}}, from)
	create(branch.Main, "IpamVLAN", map[string]any{"name": "voice"}, map[string][]string{"site": {a.ID}}, from)
	if _, err := branches.CreateBranch(ctx, op, "add-guests"); err != nil {
		t.Fatal(err)
	}
	guests := create("add-guests", "IpamVLAN", map[string]any{"name": "guests"}, map[string][]string{"site": {b.ID}}, from)
	phones := create("add-guests", "IpamVLAN", map[string]any{"name": "phones"}, map[string][]string{"site": {b.ID}},
		numbers.FromPool{Attribute: "vlan_id", Pool: voice.ID})
	create("add-guests", "IpamVLAN", map[string]any{"name": "lab", "vlan_id": 500}, map[string][]string{"site": {b.ID}})
	if _, err := branches.UpdateObject(ctx, op, "add-guests", users.ID, branch.ObjectInput{Attributes: map[string]any{"name": "users-b"}}); err != nil {
		t.Fatal(err)
	}

	d, err := branches.BranchDiff(ctx, op, "add-guests")
	if err != nil {
		t.Fatal(err)
	}
	want := []branch.HeldNumber{
		{PoolID: pool.ID, Pool: "VLAN IDs per site", Division: "site-a", Number: 100, Object: branch.Ref{ID: users.ID, Kind: "IpamVLAN", Label: "users-b"}},
		{PoolID: pool.ID, Pool: "VLAN IDs per site", Division: "site-b", Number: 100, Object: branch.Ref{ID: guests.ID, Kind: "IpamVLAN", Label: "guests"}, New: true},
		{PoolID: voice.ID, Pool: "Voice VLAN IDs", Number: 200, Object: branch.Ref{ID: phones.ID, Kind: "IpamVLAN", Label: "phones"}, New: true},
	}
	if !reflect.DeepEqual(d.Numbers, want) {
		t.Errorf("numbers:\n%+v\nwant\n%+v", d.Numbers, want)
	}
}
