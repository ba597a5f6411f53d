package branch

import (
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

// ids returns the ids of the kind and of its elements by name.
func ids(t testing.TB, s schema.Schema, kind string) (string, map[string]string) {
	t.Helper()
	k, ok := s.Kind(kind)
	if !ok {
		t.Fatalf("no kind %s", kind)
	}
	out := map[string]string{}
	for _, a := range s.Attributes(kind) {
		out[a.Name] = a.ID
	}
	for _, r := range s.Relationships(kind) {
		out[r.Name] = r.ID
	}
	return k.ID, out
}

// TestRenameByID: renaming a kind, an attribute and a relationship by id
// keeps the objects' values and references; a filter and a label follow
// the new names.
func TestRenameByID(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	v := vlan(t, svc, Main, "users", 100, a.ID)
	s, err := svc.Schema(ctx, Main)
	if err != nil {
		t.Fatal(err)
	}
	siteID, siteElems := ids(t, s, "LocationSite")
	vlanID, vlanElems := ids(t, s, "IpamVLAN")

	changes := load(t, svc, Main, `version: "1.0"
nodes:
  - id: `+siteID+`
    name: Place
    namespace: Location
    attributes:
      - {id: `+siteElems["name"]+`, name: label, kind: Text, unique: true}
  - id: `+vlanID+`
    name: VLAN
    namespace: Ipam
    display_label: "{{ title__value }}"
    attributes:
      - {id: `+vlanElems["name"]+`, name: title, kind: Text}
    relationships:
      - {id: `+vlanElems["site"]+`, name: location, peer: LocationPlace, cardinality: one, optional: false}
    uniqueness_constraints:
      - ["location", "vlan_id__value"]
`)
	if len(changes) == 0 {
		t.Fatal("no change")
	}
	got, err := svc.Object(ctx, operator, Main, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Attributes["title"] != "users" || got.DisplayLabel != "users" || got.Relationships["location"][0] != a.ID || got.Attributes["vlan_id"] != int64(100) {
		t.Fatalf("after the renames: %+v", got)
	}
	place, err := svc.Object(ctx, operator, Main, a.ID)
	if err != nil || place.Kind != "LocationPlace" || place.Attributes["label"] != "site-a" {
		t.Fatalf("the site after the renames: %+v, %v", place, err)
	}
	page, err := svc.Objects(ctx, operator, Main, "IpamVLAN", Filter{Values: map[string]any{"title": "users"}, Peers: map[string][]string{"location": {a.ID}}}, 0, 0)
	if err != nil || page.Count != 1 {
		t.Fatalf("filtered by the new names: %+v, %v", page, err)
	}
	// The constraint kept its identity (its elements' ids): it still holds,
	// under its new name.
	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"title": "again", "vlan_id": 100},
		Relationships: map[string][]string{"location": {a.ID}}})
	wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'location-vlan_id'")
	_, err = svc.CreateObject(ctx, operator, Main, "LocationPlace", ObjectInput{Attributes: map[string]any{"label": "site-a"}})
	wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'label'")
}

// TestStateAbsent: an element with state: absent is removed, its values
// no longer read; a kind is removed once it has no objects.
func TestStateAbsent(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a := site(t, svc, Main, "site-a")
	v := create(t, svc, Main, "IpamVLAN", map[string]any{"name": "users", "vlan_id": 100, "role": "user"}, map[string][]string{"site": {a.ID}})

	load(t, svc, Main, `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: role, state: absent}
`)
	got, err := svc.Object(ctx, operator, Main, v.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Attributes["role"]; ok {
		t.Fatalf("role is still read: %+v", got)
	}
	_, err = svc.UpdateObject(ctx, operator, Main, v.ID, ObjectInput{Attributes: map[string]any{"role": "user"}})
	wantRefusal(t, err, refusal.ErrInvalid, "role: IpamVLAN has no attribute role")

	removeVLAN := `version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, state: absent}
`
	_, err = svc.LoadSchema(ctx, operator, Main, file(t, removeVLAN))
	msg := wantRefusal(t, err, refusal.ErrInvalid, "")
	if !strings.Contains(msg, "IpamVLAN") || !strings.Contains(msg, v.ID) {
		t.Fatalf("the refusal names neither the kind nor the object: %s", msg)
	}
	if _, err := svc.DeleteObject(ctx, operator, Main, v.ID); err != nil {
		t.Fatal(err)
	}
	load(t, svc, Main, removeVLAN)
	s, _ := svc.Schema(ctx, Main)
	if _, ok := s.Kind("IpamVLAN"); ok {
		t.Fatal("IpamVLAN is still there")
	}
	_, err = svc.Object(ctx, operator, Main, v.ID)
	wantRefusal(t, err, refusal.ErrNotFound, "")
}

// TestSchemaChangesCheckedAgainstData: a change the objects would violate
// is refused naming the object and the field, and changes nothing; a
// default value is given to the objects that lack one.
func TestSchemaChangesCheckedAgainstData(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := t.Context()
	load(t, svc, Main, vlans)
	a, b := site(t, svc, Main, "site-a"), site(t, svc, Main, "site-b")
	users := vlan(t, svc, Main, "users", 100, a.ID)
	vlan(t, svc, Main, "users", 100, b.ID)
	voice := create(t, svc, Main, "IpamVLAN", map[string]any{"name": "voice", "vlan_id": 200, "role": "voice", "tags": []any{"x"}},
		map[string][]string{"site": {a.ID}})
	e1 := create(t, svc, Main, "DcimInterface", map[string]any{"name": "eth0"}, nil)
	e2 := create(t, svc, Main, "DcimInterface", map[string]any{"name": "eth1"}, nil)
	if _, err := svc.UpdateObject(ctx, operator, Main, voice.ID, ObjectInput{Relationships: map[string][]string{"endpoints": {e1.ID, e2.ID}}}); err != nil {
		t.Fatal(err)
	}
	before, _ := svc.Schema(ctx, Main)

	for _, tt := range []struct {
		name, file string
		mentions   []string
	}{
		{"made required", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: role, kind: Dropdown, choices: [{name: user}, {name: voice}]}
`, []string{"IpamVLAN.role", users.ID}},
		{"added required without a default", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: mtu, kind: Number}
`, []string{"IpamVLAN.mtu", users.ID}},
		{"made unique", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: name, kind: Text, unique: true}
`, []string{"Violates uniqueness constraint 'name'", users.ID}},
		{"a constraint violated", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    uniqueness_constraints:
      - ["site", "vlan_id__value"]
      - ["name__value"]
`, []string{"Violates uniqueness constraint 'name'"}},
		{"a choice in use removed", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: role, kind: Dropdown, optional: true, choices: [{name: user}]}
`, []string{"IpamVLAN.role", voice.ID, `"voice"`}},
		{"another kind of value", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: name, kind: Number}
`, []string{"IpamVLAN.name", users.ID}},
		{"cardinality one with several peers", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    relationships:
      - {name: endpoints, peer: DcimEndpoint, cardinality: one}
`, []string{"IpamVLAN.endpoints", voice.ID}},
		{"a required relationship objects lack", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    relationships:
      - {name: endpoints, peer: DcimEndpoint, cardinality: many, optional: false}
`, []string{"IpamVLAN.endpoints", users.ID}},
		{"a peer kind the peers are not", `version: "1.0"
nodes:
  - name: Device
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
  - name: VLAN
    namespace: Ipam
    relationships:
      - {name: site, peer: DcimDevice, cardinality: one, optional: false}
`, []string{"IpamVLAN.site", a.ID}},
		{"a kind with objects removed", `version: "1.0"
nodes:
  - {name: Interface, namespace: Dcim, state: absent}
`, []string{"DcimInterface", e1.ID}},
	} {
		_, err := svc.LoadSchema(ctx, operator, Main, file(t, tt.file))
		if err == nil {
			t.Errorf("%s: loaded", tt.name)
			continue
		}
		msg := wantRefusal(t, err, refusal.ErrInvalid, "")
		t.Logf("%s: %s", tt.name, msg)
		for _, m := range tt.mentions {
			if !strings.Contains(msg, m) {
				t.Errorf("%s: the refusal %q does not mention %s", tt.name, msg, m)
			}
		}
		if after, _ := svc.Schema(ctx, Main); !sameSchema(after, before) {
			t.Errorf("%s: the refused load changed the schema", tt.name)
		}
	}

	// A required attribute with a default value is given to every object.
	load(t, svc, Main, `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: mtu, kind: Number, default_value: 1500}
`)
	page, err := svc.Objects(ctx, operator, Main, "IpamVLAN", Filter{Values: map[string]any{"mtu": 1500}}, 0, 0)
	if err != nil || page.Count != 3 {
		t.Fatalf("VLANs with the default mtu: %+v, %v", page, err)
	}
	// Making name unique per site works once the data allows it.
	if _, err := svc.UpdateObject(ctx, operator, Main, users.ID, ObjectInput{Attributes: map[string]any{"name": "users-a"}}); err != nil {
		t.Fatal(err)
	}
	load(t, svc, Main, `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: name, kind: Text, unique: true}
`)
	_, err = svc.CreateObject(ctx, operator, Main, "IpamVLAN", ObjectInput{Attributes: map[string]any{"name": "voice", "vlan_id": 300},
		Relationships: map[string][]string{"site": {b.ID}}})
	wantRefusal(t, err, refusal.ErrConflict, "Violates uniqueness constraint 'name'")
}
