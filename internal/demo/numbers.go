package demo

import (
	"context"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/schema"
)

// seedSchema is the example of docs/numbers.md: sites, and VLANs with a
// required site and a role.
const seedSchema = `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number}
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}, {name: management}]}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
`

// pendingSchema is the branch's pending change of the schema: a
// description of each VLAN.
const pendingSchema = `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: description, kind: Text, optional: true}
`

// DemoBranch is the demo's branch with pending changes.
const DemoBranch = "add-guest-vlans"

// DemoPool is the demo's number pool, scoped by site.
const DemoPool = "VLAN IDs per site"

// loadNumbers loads the example of docs/numbers.md: the kinds LocationSite and
// IpamVLAN, sites site-a and site-b, the pool VLAN IDs per site scoped by
// site, VLANs of both sites from it (both sites have 100), and a branch
// with a pending change of the schema and a VLAN, not merged.
func loadNumbers(ctx context.Context, nums *numbers.Service) error {
	op := auth.System
	branches := nums.Branches()
	if err := loadSchema(ctx, branches, branch.Main, "demo-vlans.yaml", seedSchema); err != nil {
		return err
	}
	sites := map[string]string{}
	for _, name := range []string{"site-a", "site-b"} {
		o, err := branches.CreateObject(ctx, op, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": name}})
		if err != nil {
			return err
		}
		sites[name] = o.ID
	}
	pool, err := nums.CreatePool(ctx, op, numbers.PoolInput{Name: DemoPool, Description: "VLAN IDs, distinct within each site",
		Node: "IpamVLAN", NodeAttribute: "vlan_id", AllocationScope: []string{"site"},
		Ranges: []numbers.Range{{Start: 100, End: 199, Weight: 10}, {Start: 1000, End: 1999, Weight: 1}}})
	if err != nil {
		return err
	}
	vlan := func(on, name, site, role string) error {
		attrs := map[string]any{"name": name}
		if role != "" {
			attrs["role"] = role
		}
		_, err := nums.CreateObject(ctx, op, on, "IpamVLAN", branch.ObjectInput{Attributes: attrs,
			Relationships: map[string][]string{"site": {sites[site]}}},
			[]numbers.FromPool{{Attribute: "vlan_id", Pool: pool.ID}})
		return err
	}
	for _, v := range []struct{ name, site, role string }{
		{"users-site-a", "site-a", "user"}, {"voice-site-a", "site-a", "voice"}, {"mgmt-site-a", "site-a", "management"},
		{"users-site-b", "site-b", "user"}, {"voice-site-b", "site-b", "voice"},
	} {
		if err := vlan(branch.Main, v.name, v.site, v.role); err != nil {
			return err
		}
	}
	if _, err := branches.CreateBranch(ctx, op, DemoBranch); err != nil {
		return err
	}
	if err := loadSchema(ctx, branches, DemoBranch, "demo-description.yaml", pendingSchema); err != nil {
		return err
	}
	return vlan(DemoBranch, "guests-site-a", "site-a", "")
}

// loadSchema loads one schema file, named file, on the branch.
func loadSchema(ctx context.Context, branches *branch.Service, on, file, text string) error {
	f, err := schema.Parse(file, []byte(text))
	if err != nil {
		return err
	}
	_, err = branches.LoadSchema(ctx, auth.System, on, f)
	return err
}
