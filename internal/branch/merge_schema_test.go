package branch

import (
	"errors"
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/refusal"
)

// hasAttribute reports whether the branch's schema gives the kind the
// attribute.
func hasAttribute(t *testing.T, svc *Service, branch, kind, attribute string) bool {
	t.Helper()
	s, err := svc.Schema(t.Context(), branch)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := s.Attribute(kind, attribute)
	return ok
}

// TestSchemaOnBranches: a branch's schema changes stay on it, main's do
// not reach it before a rebase; a merge brings the branch's to main, each
// side's elements kept; an element changed on both sides is a conflict.
func TestSchemaOnBranches(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	vlan(t, svc, Main, "users", 100, a.ID)
	newBranch(t, svc, "b1")
	load(t, svc, "b1", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: mtu, kind: Number, optional: true}
  - name: Device
    namespace: Dcim
    attributes:
      - {name: name, kind: Text, unique: true}
`)
	dev := create(t, svc, "b1", "DcimDevice", map[string]any{"name": "sw1"}, nil)
	load(t, svc, Main, `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: description, kind: Text, optional: true}
`)
	switch {
	case hasAttribute(t, svc, Main, "IpamVLAN", "mtu"):
		t.Fatal("main has the branch's attribute")
	case hasAttribute(t, svc, "b1", "LocationSite", "description"):
		t.Fatal("the branch has main's later attribute before a rebase")
	}
	_, err := svc.Objects(ctx, operator, Main, "DcimDevice", Filter{}, 0, 0)
	wantRefusal(t, err, refusal.ErrNotFound, "kind DcimDevice on branch main not found")

	b, err := svc.RebaseBranch(ctx, operator, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if !b.OwnSchema || !hasAttribute(t, svc, "b1", "LocationSite", "description") || !hasAttribute(t, svc, "b1", "IpamVLAN", "mtu") {
		t.Fatalf("after the rebase: %+v", b)
	}
	read(t, svc, "b1", dev.ID)

	b, err = svc.MergeBranch(ctx, operator, "b1")
	if err != nil {
		t.Fatal(err)
	}
	if b.OwnSchema || !hasAttribute(t, svc, Main, "IpamVLAN", "mtu") || !hasAttribute(t, svc, Main, "LocationSite", "description") {
		t.Fatalf("after the merge: %+v", b)
	}
	read(t, svc, Main, dev.ID)
	_, err = svc.CreateObject(ctx, operator, Main, "DcimDevice", ObjectInput{Attributes: map[string]any{"name": "sw1"}})
	wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'name'")

	// The same element changed on both sides.
	newBranch(t, svc, "b2")
	load(t, svc, "b2", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}, {name: video}]}
`)
	load(t, svc, Main, `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}, {name: data}]}
`)
	_, err = svc.MergeBranch(ctx, operator, "b2")
	var me *MergeError
	if !errors.As(err, &me) || !slices.Contains(me.Elements, ElementConflict{Kind: "IpamVLAN", Element: "role"}) {
		t.Fatalf("err = %v, want the role changed on both sides", err)
	}
	t.Log(err)
}

// TestMergedSchemaAgainstMainsObjects: a branch's schema change meets, at
// the merge, the objects main made since the branch point: a default
// value is given to them; a required value they lack refuses the merge.
func TestMergedSchemaAgainstMainsObjects(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	newBranch(t, svc, "defaults")
	newBranch(t, svc, "required")
	load(t, svc, "defaults", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: mtu, kind: Number, default_value: 1500}
`)
	load(t, svc, "required", `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: city, kind: Text, optional: true}
`)
	update(t, svc, "required", a.ID, map[string]any{"city": "Pécs"}, nil)
	load(t, svc, "required", `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    attributes:
      - {name: city, kind: Text}
`)
	// Made on main after both branch points.
	late := vlan(t, svc, Main, "late", 100, a.ID)
	site(t, svc, Main, "site-b")
	if _, err := svc.MergeBranch(ctx, operator, "defaults"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, svc, Main, late.ID); got.Attributes["mtu"] != int64(1500) {
		t.Fatalf("main's VLAN after the merge: %+v", got)
	}
	_, err := svc.MergeBranch(ctx, operator, "required")
	var me *MergeError
	if !errors.As(err, &me) || len(me.Invalid) == 0 {
		t.Fatalf("err = %v, want the sites main has without a city", err)
	}
	t.Log(err)
	if hasAttribute(t, svc, Main, "LocationSite", "city") {
		t.Fatal("the refused merge changed main's schema")
	}
}

// TestLabelsMerge: the labels a branch gives its kinds and elements
// (label:) reach main with the merge, main's own kept; a label changed to
// two different words on both sides is a conflict.
func TestLabelsMerge(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	newBranch(t, svc, "labels")
	load(t, svc, "labels", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    label: VLAN
    attributes:
      - {name: vlan_id, label: VLAN ID, kind: Number}
    relationships:
      - {name: site, label: Site of the VLAN, peer: LocationSite, cardinality: one, optional: false}
`)
	load(t, svc, Main, `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    label: Site
`)
	if _, err := svc.MergeBranch(ctx, operator, "labels"); err != nil {
		t.Fatal(err)
	}
	s, err := svc.Schema(ctx, Main)
	if err != nil {
		t.Fatal(err)
	}
	vlan, _ := s.Kind("IpamVLAN")
	site, _ := s.Kind("LocationSite")
	vlanID, _ := s.Attribute("IpamVLAN", "vlan_id")
	rel, _ := s.Relationship("IpamVLAN", "site")
	if vlan.Label != "VLAN" || site.Label != "Site" || vlanID.Label != "VLAN ID" || rel.Label != "Site of the VLAN" {
		t.Errorf("main's labels after the merge: IpamVLAN %q, LocationSite %q, vlan_id %q, site %q", vlan.Label, site.Label, vlanID.Label, rel.Label)
	}

	newBranch(t, svc, "relabel")
	load(t, svc, "relabel", "version: \"1.0\"\nnodes:\n  - {name: VLAN, namespace: Ipam, label: Virtual LAN}\n")
	load(t, svc, Main, "version: \"1.0\"\nnodes:\n  - {name: VLAN, namespace: Ipam, label: 802.1Q VLAN}\n")
	_, err = svc.MergeBranch(ctx, operator, "relabel")
	var me *MergeError
	if !errors.As(err, &me) || !slices.Contains(me.Elements, ElementConflict{Kind: "IpamVLAN"}) {
		t.Fatalf("err = %v, want the kind's label changed on both sides", err)
	}
}
