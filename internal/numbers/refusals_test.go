package numbers

import (
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
)

// TestScopeRefusals: every refusal of a scope element, word for word, as INVALID_ARGUMENT on the field allocation_scope.
func TestScopeRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		node, attribute string
		scope           []string
		msg             string
	}{
		{"IpamVLAN", "vlan_id", []string{"nothing"}, `allocation_scope: "nothing" is not an attribute or a relationship of IpamVLAN`},
		{"DcimEndpoint", "vni", []string{"rack"}, `allocation_scope: "rack" is not declared on the generic DcimEndpoint`},
		{"DcimEndpoint", "vni", []string{"nothing"}, `allocation_scope: "nothing" is not an attribute or a relationship of DcimEndpoint`},
		{"IpamVLAN", "vlan_id", []string{"role__value"}, `allocation_scope: "role__value" is a path; write the name, role`},
		{"IpamVLAN", "vlan_id", []string{"note"}, `allocation_scope: "note" is optional; a scope element must be required on IpamVLAN`},
		{"IpamVLAN", "vlan_id", []string{"backup"}, `allocation_scope: "backup" is optional; a scope element must be required on IpamVLAN`},
		{"IpamVLAN", "vlan_id", []string{"endpoints"}, `allocation_scope: "endpoints" has cardinality many; a scope element must be a relationship of cardinality one`},
		{"IpamVLAN", "vlan_id", []string{"tags"}, `allocation_scope: "tags" is of kind List; a scope element must hold a single scalar value`},
		{"IpamVLAN", "vlan_id", []string{"site", "meta"}, `allocation_scope: "meta" is of kind JSON; a scope element must hold a single scalar value`},
		{"IpamVLAN", "vlan_id", []string{"vlan_id"}, `allocation_scope: "vlan_id" is the attribute the pool allocates; it cannot divide the pool`},
		{"IpamVLAN", "vlan_id", []string{"site", "role", "site"}, `allocation_scope: "site" appears more than once`},
		{"IpamVLAN", "tenant_id", []string{"site"}, `IpamVLAN.tenant_id is unique; a globally unique number cannot be allocated per division`},
	} {
		_, err := e.svc.CreatePool(t.Context(), operator, PoolInput{Name: "p", Node: tt.node, NodeAttribute: tt.attribute,
			Ranges: []Range{{Start: 1, End: 10, Weight: 1}}, AllocationScope: tt.scope})
		wantRefusal(t, err, refusal.ErrInvalid, tt.msg)
		if r := refusal.Classify(err); r.Code != refusal.CodeInvalidArgument || r.Field != "allocation_scope" {
			t.Errorf("%v: classified %+v", tt.scope, r)
		}
	}
	// A scope on a generic's own elements, and on a node's inherited ones,
	// is accepted; a unique attribute without a scope too.
	for _, in := range []PoolInput{
		{Name: "generic", Node: "DcimEndpoint", NodeAttribute: "vni", AllocationScope: []string{"fabric"}},
		{Name: "inherited", Node: "DcimInterface", NodeAttribute: "speed", AllocationScope: []string{"fabric", "rack"}},
		{Name: "unique", Node: "IpamVLAN", NodeAttribute: "tenant_id"},
	} {
		in.Ranges = []Range{{Start: 1, End: 10, Weight: 1}}
		if _, err := e.svc.CreatePool(t.Context(), operator, in); err != nil {
			t.Errorf("CreatePool(%s): %v", in.Name, err)
		}
	}
}

// TestPoolRefusals: what else a pool's creation and update refuse.
func TestPoolRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site")
	for _, tt := range []struct {
		in   PoolInput
		want error
		msg  string
	}{
		{PoolInput{Name: "x", Node: "IpamVlan", NodeAttribute: "vlan_id"}, refusal.ErrInvalid, "node: IpamVlan is not a kind of the default branch's schema"},
		{PoolInput{Name: "x", Node: "IpamVLAN", NodeAttribute: "vid"}, refusal.ErrInvalid, "node_attribute: IpamVLAN has no attribute vid"},
		{PoolInput{Name: "x", Node: "IpamVLAN", NodeAttribute: "name"}, refusal.ErrInvalid, "node_attribute: IpamVLAN.name is of kind Text; a number pool allocates a Number attribute"},
		{PoolInput{Name: "", Node: "IpamVLAN", NodeAttribute: "vlan_id"}, refusal.ErrInvalid, "name is required, such as VLAN IDs per site"},
		{PoolInput{Name: "VLAN IDs per site", Node: "IpamVLAN", NodeAttribute: "vlan_id"}, refusal.ErrConflict, "a number pool named VLAN IDs per site exists"},
		{PoolInput{Name: "x", Node: "IpamVLAN", NodeAttribute: "vlan_id", Ranges: []Range{{Start: 100, End: 199, Weight: 1}, {Start: 150, End: 250, Weight: 1}}},
			refusal.ErrInvalid, "ranges 100-199 and 150-250 overlap"},
		{PoolInput{Name: "x", Node: "IpamVLAN", NodeAttribute: "vlan_id", Ranges: []Range{{Start: 1, End: 10, Weight: 1}, {Start: 20, End: 30}}},
			refusal.ErrInvalid, "ranges[1].weight 0 is less than 1; a range's weight is 1 or more (1 when not given)"},
		{PoolInput{Name: "x", Node: "IpamVLAN", NodeAttribute: "vlan_id", Ranges: []Range{}}, refusal.ErrInvalid,
			"ranges is empty; a number pool needs at least one start-end range"},
	} {
		if tt.in.Ranges == nil {
			tt.in.Ranges = []Range{{Start: 1, End: 10, Weight: 1}}
		}
		_, err := e.svc.CreatePool(ctx, operator, tt.in)
		wantRefusal(t, err, tt.want, tt.msg)
	}
	name := "renamed"
	_, err := e.svc.UpdatePool(ctx, operator, p.ID, PoolUpdate{Name: &name, AllocationScope: []string{"site", "role"}})
	wantRefusal(t, err, refusal.ErrInvalid, "allocation_scope can't be changed after the pool is created")
	if got, _ := e.svc.Pool(ctx, operator, p.ID); got.Name != p.Name {
		t.Fatalf("a refused update changed the name to %q", got.Name)
	}
	got, err := e.svc.UpdatePool(ctx, operator, p.ID, PoolUpdate{Name: &name, AllocationScope: []string{"site"}, Ranges: []Range{{Start: 1, End: 5, Weight: 2}}})
	if err != nil || got.Name != name || len(got.Ranges) != 1 || got.Ranges[0] != (Range{Start: 1, End: 5, Weight: 2}) {
		t.Fatalf("UpdatePool = %+v, %v", got, err)
	}
	// Operators only: tenants see no pool.
	if _, err := e.svc.CreatePool(ctx, acme, PoolInput{Name: "t", Node: "IpamVLAN", NodeAttribute: "vlan_id", Ranges: []Range{{Start: 1, End: 2, Weight: 1}}}); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("a tenant's CreatePool: %v", err)
	}
	if pg, err := e.svc.Pools(ctx, acme, PoolFilter{}, 0, 0); err != nil || pg.Count != 0 {
		t.Errorf("a tenant's Pools: %+v, %v", pg, err)
	}
	if _, err := e.svc.Pool(ctx, acme, p.ID); !errors.Is(err, refusal.ErrNotFound) {
		t.Errorf("a tenant's Pool: %v", err)
	}
	if pg, err := e.svc.Pools(ctx, operator, PoolFilter{Name: name}, 0, 0); err != nil || pg.Count != 1 || pg.Pools[0].ID != p.ID {
		t.Errorf("Pools by name: %+v, %v", pg, err)
	}
}

// TestClaimRefusals: a claim from a pool not found, of another kind or
// attribute, and on a branch whose schema lacks a scope element, word for
// word.
func TestClaimRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	e.endpoint()
	if _, err := e.branches.CreateBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	e.load(branch.Main, `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: area, kind: Text, default_value: north}
`)
	p := e.pool("VLAN IDs per area", []Range{{Start: 1, End: 10, Weight: 1}}, "site", "area")
	other, err := e.svc.CreatePool(ctx, operator, PoolInput{Name: "speeds", Node: "DcimInterface", NodeAttribute: "speed", Ranges: []Range{{Start: 1, End: 9, Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	claim := func(branchName, attribute, pool string) error {
		_, err := e.svc.CreateObject(ctx, operator, branchName, "IpamVLAN", e.vlanInput("v", a.ID, "user", nil), []FromPool{{Attribute: attribute, Pool: pool}})
		return err
	}
	wantRefusal(t, claim("b1", "vlan_id", p.ID), refusal.ErrInvalid, `the scope element "area" of pool VLAN IDs per area does not exist on IpamVLAN on branch b1`)
	wantRefusal(t, claim(branch.Main, "vlan_id", "0190aaaa-0000-7000-8000-000000000000"), refusal.ErrNotFound, "number pool 0190aaaa-0000-7000-8000-000000000000 not found")
	wantRefusal(t, claim(branch.Main, "vlan_id", other.ID), refusal.ErrInvalid, "vlan_id: pool speeds allocates numbers for DcimInterface, not for IpamVLAN")
	wantRefusal(t, claim(branch.Main, "level", p.ID), refusal.ErrInvalid, "level: pool VLAN IDs per area allocates IpamVLAN.vlan_id, not level")
	if err := claim(branch.Main, "vlan_id", p.ID); err != nil {
		t.Fatalf("the claim on main: %v", err)
	}
}

// TestDivisionRefusals: the refusals of a division given to the queries.
func TestDivisionRefusals(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	scoped := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 10, Weight: 1}}, "site", "role")
	plain := e.pool("VLAN IDs", []Range{{Start: 1, End: 10, Weight: 1}})
	for _, tt := range []struct {
		pool     string
		division []EntryInput
		msg      string
	}{
		{scoped.ID, []EntryInput{{Path: "site", Value: a.ID}}, "pool VLAN IDs per site divides its numbers by site, role; the division has no value for role"},
		{scoped.ID, []EntryInput{{Path: "site", Value: a.ID}, {Path: "site", Value: a.ID}}, `the division entry "site" is given twice`},
		{scoped.ID, []EntryInput{{Path: "name", Value: "x"}}, `"name" is not a scope element of pool VLAN IDs per site`},
		{plain.ID, []EntryInput{{Path: "site", Value: a.ID}}, "pool VLAN IDs has no allocation scope; give no division"},
	} {
		_, err := e.svc.Utilization(ctx, operator, tt.pool, tt.division)
		wantRefusal(t, err, refusal.ErrInvalid, tt.msg)
	}
	// Allocations accepts some of the elements.
	if _, err := e.svc.Allocations(ctx, operator, scoped.ID, []EntryInput{{Path: "site", Value: a.ID}}, 0, 0); err != nil {
		t.Fatal(err)
	}
	_, err := e.svc.Allocations(ctx, operator, scoped.ID, []EntryInput{{Path: "role", Value: "user"}, {Path: "role", Value: "voice"}}, 0, 0)
	wantRefusal(t, err, refusal.ErrInvalid, `the division entry "role" is given twice`)
}
