package schema

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestApplySeedExample(t *testing.T) {
	s, changes := mustApply(t, Schema{}, sequentialIDs(), string(seedExample))
	if len(changes) != 11 || changes[0].String() != "added generic DcimEndpoint (id id-1)" || changes[10].String() != "added relationship IpamVLAN.endpoints (id id-11)" {
		t.Errorf("Changes:\n%v", changes)
	}
	vlan, ok := s.Kind("IpamVLAN")
	if !ok {
		t.Fatal(`Kind("IpamVLAN") not found`)
	}
	want := Kind{
		ID: "id-5", Namespace: "Ipam", Name: "VLAN", DisplayLabel: "{{ name__value }}",
		Attributes: []Attribute{
			{ID: "id-6", Name: "name", Kind: Text, DeclaredBy: "IpamVLAN"},
			{ID: "id-7", Name: "vlan_id", Kind: Number, DeclaredBy: "IpamVLAN"},
			{ID: "id-8", Name: "role", Kind: Dropdown, Optional: true, Choices: []string{"user", "voice"}, DeclaredBy: "IpamVLAN"},
			{ID: "id-9", Name: "tags", Kind: List, Optional: true, DeclaredBy: "IpamVLAN"},
		},
		Relationships: []Relationship{
			{ID: "id-10", Name: "site", Peer: "LocationSite", Cardinality: One, Optional: false, DeclaredBy: "IpamVLAN"},
			{ID: "id-11", Name: "endpoints", Peer: "DcimEndpoint", Cardinality: Many, Optional: true, DeclaredBy: "IpamVLAN"},
		},
		UniquenessConstraints: [][]string{{"site", "vlan_id__value"}},
	}
	if !reflect.DeepEqual(vlan, want) {
		t.Errorf("Kind(IpamVLAN) = %+v\nwant %+v", vlan, want)
	}
	if vlan.FullName() != "IpamVLAN" {
		t.Errorf("FullName() = %q", vlan.FullName())
	}
	var names []string
	for _, k := range s.Kinds() {
		names = append(names, k.FullName())
	}
	if want := []string{"DcimEndpoint", "LocationSite", "IpamVLAN"}; !slices.Equal(names, want) {
		t.Errorf("Kinds() = %v, want %v", names, want)
	}
	if site, ok := s.Relationship("IpamVLAN", "site"); !ok || site.ID != "id-10" || site.Cardinality != One || site.Optional {
		t.Errorf(`Relationship("IpamVLAN", "site") = %+v, %v`, site, ok)
	}
	if a, ok := s.Attribute("LocationSite", "name"); !ok || !a.Unique || a.ID != "id-4" {
		t.Errorf(`Attribute("LocationSite", "name") = %+v, %v`, a, ok)
	}
	if e, ok := s.Element("id-7"); !ok || e.Type != AttributeElement || e.Kind != "IpamVLAN" || e.Attribute.Name != "vlan_id" {
		t.Errorf(`Element("id-7") = %+v, %v`, e, ok)
	}
	if e, ok := s.Element("id-1"); !ok || e.Type != GenericElement || e.Kind != "DcimEndpoint" {
		t.Errorf(`Element("id-1") = %+v, %v`, e, ok)
	}
	if e, ok := s.Element("id-10"); !ok || e.Type != RelationshipElement || e.Relationship.Peer != "LocationSite" {
		t.Errorf(`Element("id-10") = %+v, %v`, e, ok)
	}
	for _, missing := range []func() bool{
		func() bool { _, ok := s.Kind("IpamVlan"); return ok },
		func() bool { _, ok := s.Attribute("IpamVLAN", "site"); return ok },
		func() bool { _, ok := s.Relationship("IpamVLAN", "name"); return ok },
		func() bool { _, ok := s.Element("id-12"); return ok },
		func() bool { return s.Attributes("Ipam") != nil || s.Inheritors("DcimEndpoint") != nil },
		func() bool { _, ok := (Schema{}).Kind("IpamVLAN"); return ok || (Schema{}).Kinds() != nil },
	} {
		if missing() {
			t.Error("an accessor found what the schema lacks")
		}
	}
}

func TestApplyInheritance(t *testing.T) {
	s, _ := mustApply(t, Schema{}, sequentialIDs(), generics([]string{
		"{name: Named, namespace: Base, attributes: [{name: name, kind: Text}]}",
		"{name: Endpoint, namespace: Dcim, inherit_from: [BaseNamed], attributes: [{name: mtu, kind: Number, default_value: 1500}]}",
		"{name: Tagged, namespace: Base, inherit_from: [BaseNamed], relationships: [{name: tags, peer: BaseNamed}]}",
	},
		"{name: Interface, namespace: Dcim, inherit_from: [DcimEndpoint, BaseTagged], attributes: [{name: speed, kind: Number}], uniqueness_constraints: [[name__value]], display_label: '{{ name__value }} ({{ mtu__value }})'}",
		"{name: Port, namespace: Dcim, inherit_from: [BaseTagged]}",
	))
	// BaseNamed id-1, name id-2; DcimEndpoint id-3, mtu id-4; BaseTagged
	// id-5, tags id-6; DcimInterface id-7, speed id-8; DcimPort id-9.
	var got []string
	for _, a := range s.Attributes("DcimInterface") {
		got = append(got, a.DeclaredBy+"."+a.Name+" "+a.ID)
	}
	for _, r := range s.Relationships("DcimInterface") {
		got = append(got, r.DeclaredBy+"."+r.Name+" "+r.ID)
	}
	if want := []string{"BaseNamed.name id-2", "DcimEndpoint.mtu id-4", "DcimInterface.speed id-8", "BaseTagged.tags id-6"}; !slices.Equal(got, want) {
		t.Errorf("DcimInterface's elements = %v, want %v", got, want)
	}
	if a, ok := s.Attribute("DcimInterface", "mtu"); !ok || a.DefaultValue != "1500" || a.DeclaredBy != "DcimEndpoint" {
		t.Errorf(`Attribute("DcimInterface", "mtu") = %+v, %v`, a, ok)
	}
	for generic, want := range map[string][]string{
		"BaseNamed": {"DcimInterface", "DcimPort"}, "DcimEndpoint": {"DcimInterface"}, "BaseTagged": {"DcimInterface", "DcimPort"}, "DcimPort": nil,
	} {
		if got := s.Inheritors(generic); !slices.Equal(got, want) {
			t.Errorf("Inheritors(%s) = %v, want %v", generic, got, want)
		}
	}
	if port, _ := s.Kind("DcimPort"); !reflect.DeepEqual(port, Kind{ID: "id-9", Namespace: "Dcim", Name: "Port", InheritFrom: []string{"BaseTagged"}}) {
		t.Errorf("Kind(DcimPort) = %#v", port)
	}
	k, _ := s.Kind("DcimInterface")
	if !slices.Equal(k.InheritFrom, []string{"DcimEndpoint", "BaseTagged"}) || len(k.Attributes) != 1 || k.DisplayLabel != "{{ name__value }} ({{ mtu__value }})" {
		t.Errorf("Kind(DcimInterface) = %+v", k)
	}
}

func TestApplyRenamesByID(t *testing.T) {
	s := seedSchema(t)
	next, changes := mustApply(t, s, noNewID, generics([]string{"{id: id-1, name: Endpoint, namespace: Net, attributes: [{id: id-2, name: label, kind: Text}]}"},
		"{id: id-3, name: Place, namespace: Location}",
		"{id: id-5, name: VLAN, namespace: Ipam, attributes: [{id: id-7, name: vid, kind: Number}, {id: id-6, name: title, kind: Text}], relationships: [{id: id-10, name: place, peer: LocationPlace, cardinality: one, optional: false}]}",
	))
	want := strings.Join([]string{
		"changed generic NetEndpoint (id id-1): namespace Dcim → Net",
		"changed attribute NetEndpoint.label (id id-2): name name → label",
		"changed node LocationPlace (id id-3): name Site → Place",
		"changed attribute IpamVLAN.title (id id-6): name name → title",
		"changed attribute IpamVLAN.vid (id id-7): name vlan_id → vid",
		"changed relationship IpamVLAN.place (id id-10): name site → place",
	}, "\n")
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	vlan, _ := next.Kind("IpamVLAN")
	// The references follow: the peers, the constraint, the display label.
	if vlan.DisplayLabel != "{{ title__value }}" || !reflect.DeepEqual(vlan.UniquenessConstraints, [][]string{{"place", "vid__value"}}) ||
		vlan.Relationships[0].Peer != "LocationPlace" || vlan.Relationships[1].Peer != "NetEndpoint" {
		t.Errorf("Kind(IpamVLAN) = %+v", vlan)
	}
	// An element keeps its place among its kind's.
	if vlan.Attributes[0].Name != "title" || vlan.Attributes[1].Name != "vid" {
		t.Errorf("IpamVLAN's attributes = %+v", vlan.Attributes)
	}
	if e, ok := next.Element("id-7"); !ok || e.Attribute.Name != "vid" {
		t.Errorf(`Element("id-7") = %+v`, e)
	}
	if _, ok := next.Kind("LocationSite"); ok {
		t.Error("LocationSite is still a kind")
	}
	// The schema Apply was called on is unchanged.
	if string(s.YAML()) != string(seedSchema(t).YAML()) {
		t.Errorf("Apply changed its receiver:\n%s", s.YAML())
	}

	// A generic renamed, the inherit_from of its nodes follows.
	s, _ = mustApply(t, Schema{}, sequentialIDs(), generics([]string{"{name: Named, namespace: Base}"}, "{name: Site, namespace: Location, inherit_from: [BaseNamed]}"))
	s, _ = mustApply(t, s, noNewID, generics([]string{"{id: id-1, name: Labelled, namespace: Base}"}))
	if site, _ := s.Kind("LocationSite"); !slices.Equal(site.InheritFrom, []string{"BaseLabelled"}) {
		t.Errorf("LocationSite inherits from %v", site.InheritFrom)
	}
}

// TestApplySwapsNames swaps two elements' names by id, and adds an element
// under a name another element leaves in the same load.
func TestApplySwapsNames(t *testing.T) {
	s, _ := mustApply(t, Schema{}, sequentialIDs(), nodes("{name: VLAN, namespace: Ipam, attributes: [{name: a, kind: Text}, {name: b, kind: Number}]}"))
	s, changes := mustApply(t, s, moreIDs(), nodes("{name: VLAN, namespace: Ipam, attributes: [{name: b, kind: Text}, {id: id-2, name: b_old, kind: Text}, {id: id-3, name: a, kind: Number}]}"))
	want := "added attribute IpamVLAN.b (id new-1)\nchanged attribute IpamVLAN.b_old (id id-2): name a → b_old\nchanged attribute IpamVLAN.a (id id-3): name b → a"
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	if a, _ := s.Attribute("IpamVLAN", "a"); a.ID != "id-3" {
		t.Errorf(`Attribute("IpamVLAN", "a") = %+v`, a)
	}
}

func TestApplyAbsent(t *testing.T) {
	s := seedSchema(t)
	next, changes := mustApply(t, s, noNewID, nodes(
		"{name: VLAN, namespace: Ipam, uniqueness_constraints: [], attributes: [{name: vlan_id, state: absent}, {name: colour, state: absent}], relationships: [{name: site, state: absent}]}",
		"{name: Site, namespace: Location, state: absent}",
		"{name: Rack, namespace: Location, state: absent}",
	))
	want := strings.Join([]string{
		"changed node IpamVLAN (id id-5): uniqueness_constraints [[site, vlan_id__value]] → none",
		"removed attribute IpamVLAN.vlan_id (id id-7)",
		"removed relationship IpamVLAN.site (id id-10)",
		"removed node LocationSite (id id-3)",
		"removed attribute LocationSite.name (id id-4)",
	}, "\n")
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	for _, id := range []string{"id-3", "id-4", "id-7", "id-10"} {
		if e, ok := next.Element(id); ok {
			t.Errorf("Element(%s) = %+v, removed", id, e)
		}
	}
	// Removing what is not there changes nothing.
	if _, changes := mustApply(t, next, noNewID, nodes("{name: Site, namespace: Location, state: absent}")); len(changes) != 0 {
		t.Errorf("Changes: %v", changes)
	}
	// A generic and what inherits from it, removed together.
	_, changes = mustApply(t, s, noNewID, generics([]string{"{name: Endpoint, namespace: Dcim, state: absent}"},
		"{name: VLAN, namespace: Ipam, relationships: [{name: endpoints, state: absent}]}"))
	if len(changes) != 3 {
		t.Errorf("Changes:\n%v", changes)
	}
}

func TestApplyIsIncremental(t *testing.T) {
	s := seedSchema(t)
	// A kind's fields a file does not write stay; the elements it omits
	// stay; an element it writes takes the defaults of what it omits.
	next, changes := mustApply(t, s, moreIDs(), nodes("{name: VLAN, namespace: Ipam, attributes: [{name: role, kind: Dropdown, choices: [{name: user}]}, {name: mtu, kind: Number, optional: true}]}"))
	want := "added attribute IpamVLAN.mtu (id new-1)\nchanged attribute IpamVLAN.role (id id-8): optional true → false, choices [user, voice] → [user]"
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	vlan, _ := next.Kind("IpamVLAN")
	if vlan.DisplayLabel == "" || len(vlan.UniquenessConstraints) != 1 || len(vlan.Attributes) != 5 {
		t.Errorf("Kind(IpamVLAN) = %+v", vlan)
	}
	// Written empty, they are cleared.
	_, changes = mustApply(t, s, noNewID, nodes(`{name: VLAN, namespace: Ipam, display_label: "", uniqueness_constraints: []}`))
	want = `changed node IpamVLAN (id id-5): display_label "{{ name__value }}" → none, uniqueness_constraints [[site, vlan_id__value]] → none`
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
}

// TestApplyLabels: a kind's label is written as its display_label is (a
// file that omits it keeps it, "" clears it); an attribute's and a
// relationship's are part of the element written whole; each change of
// one is listed.
func TestApplyLabels(t *testing.T) {
	s := seedSchema(t)
	s, changes := mustApply(t, s, noNewID, nodes(`{name: VLAN, namespace: Ipam, label: VLAN, attributes: [{name: vlan_id, label: "VLAN ID", kind: Number}],`+
		` relationships: [{name: site, label: "Site of the VLAN", peer: LocationSite, cardinality: one, optional: false}]}`))
	want := strings.Join([]string{
		`changed node IpamVLAN (id id-5): label none → "VLAN"`,
		`changed attribute IpamVLAN.vlan_id (id id-7): label none → "VLAN ID"`,
		`changed relationship IpamVLAN.site (id id-10): label none → "Site of the VLAN"`,
	}, "\n")
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	vlan, _ := s.Kind("IpamVLAN")
	vlanID, _ := s.Attribute("IpamVLAN", "vlan_id")
	site, _ := s.Relationship("IpamVLAN", "site")
	name, _ := s.Attribute("IpamVLAN", "name")
	if vlan.Label != "VLAN" || vlanID.Label != "VLAN ID" || site.Label != "Site of the VLAN" || name.Label != "" {
		t.Errorf("labels: kind %q, vlan_id %q, site %q, name %q", vlan.Label, vlanID.Label, site.Label, name.Label)
	}
	if e, ok := s.Element(vlanID.ID); !ok || e.Attribute.Label != "VLAN ID" {
		t.Errorf("Element(%s) = %+v", vlanID.ID, e)
	}
	// A file that omits the kind's label keeps it; an attribute written
	// without its label loses it.
	s, changes = mustApply(t, s, noNewID, nodes(`{name: VLAN, namespace: Ipam, attributes: [{name: vlan_id, kind: Number}]}`))
	if want := `changed attribute IpamVLAN.vlan_id (id id-7): label "VLAN ID" → none`; changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	if vlan, _ := s.Kind("IpamVLAN"); vlan.Label != "VLAN" {
		t.Errorf("the kind's label, not written, became %q", vlan.Label)
	}
	_, changes = mustApply(t, s, noNewID, nodes(`{name: VLAN, namespace: Ipam, label: ""}`))
	if want := `changed node IpamVLAN (id id-5): label "VLAN" → none`; changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
}

// TestApplyChecksLabels: a file made in code, which Parse did not read,
// has its labels checked as Parse checks them.
func TestApplyChecksLabels(t *testing.T) {
	long := strings.Repeat("x", MaxHumanLabelLength+1)
	f := File{Name: "code", Kinds: []KindSpec{{Namespace: "Ipam", Name: "VLAN", Label: &long,
		Attributes:    []AttributeSpec{{Name: "vlan_id", Label: "VLAN ID ", Kind: Number}},
		Relationships: []RelationshipSpec{{Name: "peer", Label: "a\tb", Peer: "IpamVLAN", Cardinality: One}}}}}
	_, _, err := Schema{}.Apply(sequentialIDs(), f)
	want := `code: IpamVLAN: label "` + strings.Repeat("x", 64) + `…" is longer than 64 characters` +
		"\n" + `code: IpamVLAN.vlan_id: label "VLAN ID " begins or ends with a space; remove it` +
		"\n" + `code: IpamVLAN.peer: label "a\tb" holds a control character or is not UTF-8; write it on one line`
	if err == nil || err.Error() != want {
		t.Errorf("Apply: %v\nwant\n%s", err, want)
	}
}

func TestApplyChanges(t *testing.T) {
	s := seedSchema(t)
	_, changes := mustApply(t, s, moreIDs(), generics([]string{"{name: Named, namespace: Base, attributes: [{name: label, kind: Text, optional: true}]}"},
		`{name: VLAN, namespace: Ipam, inherit_from: [BaseNamed], display_label: "{{ name__value }}", uniqueness_constraints: [[site, vlan_id__value], [name__value]],`+
			` attributes: [{name: name, kind: Text, unique: true}, {name: vlan_id, kind: Text, default_value: "100"}, {name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}], default_value: user}],`+
			` relationships: [{name: site, peer: DcimEndpoint, cardinality: one, optional: true}, {name: endpoints, peer: LocationSite, cardinality: one}]}`))
	want := strings.Join([]string{
		"added generic BaseNamed (id new-1)",
		"added attribute BaseNamed.label (id new-2)",
		"changed node IpamVLAN (id id-5): inherit_from none → [BaseNamed], uniqueness_constraints [[site, vlan_id__value]] → [[site, vlan_id__value], [name__value]]",
		"changed attribute IpamVLAN.name (id id-6): unique false → true",
		`changed attribute IpamVLAN.vlan_id (id id-7): kind Number → Text, default_value none → "100"`,
		`changed attribute IpamVLAN.role (id id-8): default_value none → "user"`,
		"changed relationship IpamVLAN.site (id id-10): peer LocationSite → DcimEndpoint, optional false → true",
		"changed relationship IpamVLAN.endpoints (id id-11): peer DcimEndpoint → LocationSite, cardinality many → one",
	}, "\n")
	if changes.String() != want {
		t.Errorf("Changes:\n%v\nwant\n%s", changes, want)
	}
	c := changes[4]
	wantChange := Change{Op: Changed, Type: AttributeElement, ID: "id-7", Kind: "IpamVLAN", Name: "vlan_id",
		Fields: []FieldChange{{"kind", "Number", "Text"}, {"default_value", "", `"100"`}}}
	if !reflect.DeepEqual(c, wantChange) {
		t.Errorf("changes[4] = %+v\nwant %+v", c, wantChange)
	}
}

// TestApplyIsIdempotent loads the example (testdata/vlans.yaml), then what the schema
// prints, again: nothing changes.
func TestApplyIsIdempotent(t *testing.T) {
	s := seedSchema(t)
	for _, text := range []string{string(seedExample), string(s.YAML()), string(s.JSON())} {
		next, changes := mustApply(t, s, noNewID, text)
		if len(changes) != 0 {
			t.Errorf("Changes:\n%v", changes)
		}
		if string(next.YAML()) != string(s.YAML()) {
			t.Errorf("YAML:\n%s\nwant\n%s", next.YAML(), s.YAML())
		}
	}
}

func TestApplyRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup string   // loaded on the example first, if any
		files []string // then applied, named f1.yaml…
		want  string
	}{
		{"an unknown peer", "", []string{nodes("{name: Rack, namespace: Location, relationships: [{name: site, peer: LocationSit}]}")},
			`f1.yaml: LocationRack.site: peer "LocationSit" is not a node or a generic`},
		{"a peer another file removes", "", []string{nodes("{name: Site, namespace: Location, state: absent}"), nodes("{name: Rack, namespace: Location, relationships: [{name: site, peer: LocationSite}]}")},
			"f1.yaml: LocationSite: cannot be removed: it is the peer of IpamVLAN.site; remove or change that relationship in the same load" +
				"\n" + `f2.yaml: LocationRack.site: peer "LocationSite" is not a node or a generic; f1.yaml removes it`},
		{"a removed generic", "", []string{generics([]string{"{name: Endpoint, namespace: Dcim, state: absent}"})},
			"f1.yaml: DcimEndpoint: cannot be removed: it is the peer of IpamVLAN.endpoints; remove or change that relationship in the same load"},
		{"a removed generic that a node inherits", generics([]string{"{name: Named, namespace: Base}"}, "{name: Rack, namespace: Location, inherit_from: [BaseNamed]}"),
			[]string{generics([]string{"{name: Named, namespace: Base, state: absent}"})},
			"f1.yaml: BaseNamed: cannot be removed: LocationRack inherits from it; remove it from the inherit_from of LocationRack in the same load"},
		{"a generic removed by one file, inherited in another", "", []string{
			generics([]string{"{name: Named, namespace: Base}"}, "{name: Rack, namespace: Location, inherit_from: [BaseNamed]}"),
			generics([]string{"{name: Named, namespace: Base, state: absent}"})},
			`f1.yaml: LocationRack: inherit_from[0] "BaseNamed" is not a generic; f2.yaml removes it`},
		{"inherit_from a node, and nothing", "", []string{nodes("{name: Rack, namespace: Location, inherit_from: [LocationSite, DcimPort]}")},
			`f1.yaml: LocationRack: inherit_from[0] "LocationSite" is a node; a kind inherits from generics only` +
				"\n" + `f1.yaml: LocationRack: inherit_from[1] "DcimPort" is not a generic`},
		{"a cycle", "", []string{generics([]string{"{name: A, namespace: Dcim, inherit_from: [DcimB]}", "{name: B, namespace: Dcim, inherit_from: [DcimC]}", "{name: C, namespace: Dcim, inherit_from: [DcimA]}"})},
			"f1.yaml: DcimA: inherit_from makes a cycle: DcimA → DcimB → DcimC → DcimA"},
		{"a generic inheriting from itself", "", []string{generics([]string{"{name: Endpoint, namespace: Dcim, inherit_from: [DcimEndpoint]}"})},
			"f1.yaml: DcimEndpoint: inherit_from makes a cycle: DcimEndpoint → DcimEndpoint"},
		{"a cycle made on a schema", generics([]string{"{name: A, namespace: Dcim}", "{name: B, namespace: Dcim, inherit_from: [DcimA]}"}),
			[]string{generics([]string{"{name: A, namespace: Dcim, inherit_from: [DcimB]}"})},
			"f1.yaml: DcimA: inherit_from makes a cycle: DcimA → DcimB → DcimA"},
		{"a removed attribute a constraint names", "", []string{nodes("{name: VLAN, namespace: Ipam, attributes: [{name: vlan_id, state: absent}]}")},
			"f1.yaml: IpamVLAN.vlan_id: cannot be removed: the uniqueness constraint [site, vlan_id__value] of IpamVLAN names it; change it in the same load"},
		{"a removed attribute the display label names", "", []string{nodes("{name: VLAN, namespace: Ipam, attributes: [{name: name, state: absent}], uniqueness_constraints: []}")},
			"f1.yaml: IpamVLAN.name: cannot be removed: the display_label of IpamVLAN names it; change it in the same load"},
		{"a constrained relationship made many", "", []string{nodes("{name: VLAN, namespace: Ipam, relationships: [{name: site, peer: LocationSite}]}")},
			"f1.yaml: IpamVLAN: uniqueness_constraints [site, vlan_id__value] names site, now a relationship of cardinality many; change the constraint in the same load"},
		{"constraints and a label naming what the kind lacks", "", []string{nodes(`{name: VLAN, namespace: Ipam, display_label: "{{ site__value }}", uniqueness_constraints: [[endpoints, vlan_idd__value], [site__value], [vlan_id]]}`)},
			"f1.yaml: IpamVLAN: uniqueness_constraints [endpoints, vlan_idd__value] names endpoints, a relationship of cardinality many; a uniqueness constraint names relationships of cardinality one" +
				"\nf1.yaml: IpamVLAN: uniqueness_constraints [endpoints, vlan_idd__value] names vlan_idd__value, which is not an attribute or a relationship of IpamVLAN" +
				"\nf1.yaml: IpamVLAN: uniqueness_constraints [site__value] names site__value, but site is a relationship; write site" +
				"\nf1.yaml: IpamVLAN: uniqueness_constraints [vlan_id] names vlan_id, but vlan_id is an attribute; write vlan_id__value" +
				"\n" + `f1.yaml: IpamVLAN: display_label "{{ site__value }}" names site, which is not an attribute of IpamVLAN`},
		{"a node no longer inherits what its constraint names",
			generics([]string{"{name: Named, namespace: Base, attributes: [{name: label, kind: Text}]}"}, "{name: Rack, namespace: Location, inherit_from: [BaseNamed], uniqueness_constraints: [[label__value]]}"),
			[]string{nodes("{name: Rack, namespace: Location, inherit_from: []}")},
			"f1.yaml: LocationRack: the uniqueness constraint [label__value] of LocationRack names label, which LocationRack no longer inherits; change it in the same load"},
		{"a node declares what it inherits", "", []string{generics([]string{"{name: Endpoint, namespace: Dcim, attributes: [{name: vlan_id, kind: Number}]}"}, "{name: VLAN, namespace: Ipam, inherit_from: [DcimEndpoint]}")},
			`f1.yaml: IpamVLAN.name: name "name" is also inherited from DcimEndpoint; a kind cannot declare an element it inherits` +
				"\n" + `f1.yaml: IpamVLAN.vlan_id: name "vlan_id" is also inherited from DcimEndpoint; a kind cannot declare an element it inherits`},
		{"two generics give one name", "", []string{generics([]string{"{name: Named, namespace: Base, attributes: [{name: name, kind: Text}]}"}, "{name: Port, namespace: Dcim, inherit_from: [DcimEndpoint, BaseNamed]}")},
			"f1.yaml: DcimPort.name: inherited from both DcimEndpoint and BaseNamed, two elements of one name; a kind inherits one element of a name"},
		{"a generic gains what its node declares", generics([]string{"{name: Named, namespace: Base}"}, "{name: Rack, namespace: Location, inherit_from: [BaseNamed], attributes: [{name: name, kind: Text}]}"),
			[]string{generics([]string{"{name: Named, namespace: Base, attributes: [{name: name, kind: Text}]}"})},
			`f1.yaml: LocationRack.name: name "name" is also inherited from BaseNamed; a kind cannot declare an element it inherits`},
		{"a node becomes a generic", "", []string{generics([]string{"{name: Site, namespace: Location}"})},
			"f1.yaml: LocationSite: declared as a generic, but LocationSite is a node; a kind stays a node or a generic: remove it with state: absent, then declare the generic"},
		{"ids of other elements", "", []string{nodes("{id: id-6, name: Rack, namespace: Location}", "{id: id-5, name: VLAN, namespace: Ipam, attributes: [{id: id-10, name: x, kind: Text}, {id: id-4, name: y, kind: Text}]}")},
			`f1.yaml: LocationRack: id "id-6" is the id of the attribute IpamVLAN.name, not of a kind` +
				"\n" + `f1.yaml: IpamVLAN.x: id "id-10" is the id of the relationship IpamVLAN.site, not of an attribute` +
				"\n" + `f1.yaml: IpamVLAN.y: id "id-4" is the id of the attribute LocationSite.name; an element cannot move to another kind`},
		{"an id this load removes", "", []string{nodes("{name: Site, namespace: Location, state: absent}", "{name: VLAN, namespace: Ipam, relationships: [{name: site, state: absent}], uniqueness_constraints: []}"),
			nodes("{id: id-3, name: Rack, namespace: Location}")},
			`f2.yaml: LocationRack: id "id-3" is the id of LocationSite, which this load removes; give the kind another id`},
		{"a rename onto another kind's name", "", []string{nodes("{id: id-3, name: VLAN, namespace: Ipam}")},
			`f1.yaml: IpamVLAN: name "IpamVLAN" is the name of two kinds, of ids id-3 and id-5; name each kind once`},
		{"a rename onto another element's name", "", []string{nodes("{name: VLAN, namespace: Ipam, attributes: [{id: id-7, name: name, kind: Number}]}")},
			`f1.yaml: IpamVLAN.name: name "name" is the name of two attributes, of ids id-6 and id-7; name each element of a kind once`},
		{"an attribute named as a relationship", "", []string{nodes("{name: VLAN, namespace: Ipam, attributes: [{name: site, kind: Text}]}")},
			`f1.yaml: IpamVLAN.site: name "site" is the name of an attribute and of a relationship; name each element of a kind once`},
		{"a new id under an existing name", "", []string{nodes("{name: VLAN, namespace: Ipam, attributes: [{id: other, name: name, kind: Text}]}")},
			`f1.yaml: IpamVLAN.name: name "name" is the name of two attributes, of ids id-6 and other; name each element of a kind once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := seedSchema(t)
			if tt.setup != "" {
				s, _ = mustApply(t, s, idsFrom("setup"), tt.setup)
			}
			before := string(s.YAML())
			next, changes, err := s.Apply(moreIDs(), files(t, tt.files...)...)
			if err == nil {
				t.Fatalf("Apply accepted it:\n%v", changes)
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Apply: %v (%T), want Errors", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Apply:\n%v\nwant\n%s", err, tt.want)
			}
			if changes != nil || string(next.YAML()) != before || string(s.YAML()) != before {
				t.Errorf("a refused load changed the schema")
			}
		})
	}
}

// TestApplyChecksFilesItWasGiven applies files built in Go, which Parse
// did not check: Apply refuses what Parse would have.
func TestApplyChecksFilesItWasGiven(t *testing.T) {
	f := File{Name: "api", Kinds: []KindSpec{
		{Namespace: "ipam", Name: "VLAN", Attributes: []AttributeSpec{
			{Name: "a", Kind: Number, DefaultValue: "1.0"},
			{Name: "b", Kind: "Numbr"},
			{Name: "c", Kind: Text, DefaultValue: "{"},
			{Name: "Bad", Kind: JSON, DefaultValue: `{"b": 1, "a": [1e2]}`},
		}, Relationships: []RelationshipSpec{{Name: "r", Peer: "IpamVLAN"}}},
		{Namespace: "Dcim", Name: "Endpoint", Generic: true, UniquenessConstraints: [][]string{{"x"}}, InheritFrom: make([]string, MaxInheritFrom+1)},
	}}
	_, _, err := Schema{}.Apply(sequentialIDs(), f)
	want := `api: ipamVLAN: namespace "ipam" is not a namespace: a capital letter, then lowercase letters and digits, such as Ipam` +
		"\n" + `api: ipamVLAN.b: kind "Numbr" is not one of Text, Number, Boolean, Dropdown, List, JSON, Any` +
		"\n" + `api: ipamVLAN.c: default_value "{" is not a JSON value` +
		"\n" + `api: ipamVLAN.Bad: name "Bad" is not an attribute's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id` +
		"\n" + `api: ipamVLAN.r: cardinality "" is not one of one, many` +
		"\napi: DcimEndpoint: inherit_from names 33 generics, more than 32" +
		"\napi: DcimEndpoint: uniqueness_constraints are declared on nodes; a generic has none"
	if err == nil || err.Error() != want {
		t.Errorf("Apply:\n%v\nwant\n%s", err, want)
	}
	// Fixed, the default values are kept in canonical form.
	f.Kinds[0].Namespace, f.Kinds[0].Attributes[1].Kind, f.Kinds[0].Attributes[2].DefaultValue = "Ipam", Text, `"{"`
	f.Kinds[0].Attributes[3].Name, f.Kinds[0].Relationships[0].Cardinality = "meta", Many
	f.Kinds[1].UniquenessConstraints, f.Kinds[1].InheritFrom = nil, nil
	s, _, err := Schema{}.Apply(sequentialIDs(), f)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	var got []string
	for _, a := range s.Attributes("IpamVLAN") {
		got = append(got, a.DefaultValue)
	}
	if want := []string{"1", "", `"{"`, `{"a":[100],"b":1}`}; !slices.Equal(got, want) {
		t.Errorf("default values %q, want %q", got, want)
	}
}

func TestApplyRefusesABadNewID(t *testing.T) {
	s := seedSchema(t)
	for _, id := range []string{"id-1", "", "a b"} {
		_, _, err := s.Apply(func() string { return id }, mustParse(t, "f.yaml", nodes("{name: Rack, namespace: Location}")))
		var errs Errors
		if err == nil || errors.As(err, &errs) {
			t.Errorf("newID %q: Apply: %v, want an error that is not Errors", id, err)
		}
	}
}

// TestAccessorsCopy checks that what an accessor returns is the caller's
// to change.
func TestAccessorsCopy(t *testing.T) {
	s := seedSchema(t)
	before := string(s.YAML())
	k, _ := s.Kind("IpamVLAN")
	k.Attributes[2].Choices[0] = "x"
	k.UniquenessConstraints[0][0] = "x"
	k.Relationships[0].Peer = "x"
	s.Attributes("IpamVLAN")[2].Choices[0] = "x"
	s.Kinds()[2].Attributes[0].Name = "x"
	e, _ := s.Element("id-8")
	e.Attribute.Choices[0] = "x"
	if after := string(s.YAML()); after != before {
		t.Errorf("the schema changed:\n%s", after)
	}
}
