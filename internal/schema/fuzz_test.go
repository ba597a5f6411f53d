package schema

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse never panics and refuses with Errors, each
// with a message; that what it accepts Apply refuses with Errors or loads;
// that the schema loaded prints (YAML and JSON) files that Parse and Apply
// read back, on an empty schema, as the same schema, and on it as no
// change; and that loading the file again changes nothing.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		string(seedExample),
		`{"version": "1.0", "nodes": [{"name": "VLAN", "namespace": "Ipam", "display_label": "{{name__value}} \/ x", "attributes": [{"name": "name", "kind": "Text", "default_value": "a\u2028b"}]}]}`,
		nodes(`{name: VLAN, namespace: Ipam, label: "VLAN: 802.1Q", attributes: [{name: vlan_id, label: "VLAN ID", kind: Number}], relationships: [{name: site, label: "Site é", peer: IpamVLAN}]}`,
			`{name: Site, namespace: Location, label: ""}`),
		generics([]string{
			"{name: Named, namespace: Base, attributes: [{name: name, kind: Text, optional: true, default_value: ''}]}",
			"{name: Endpoint, namespace: Dcim, inherit_from: [BaseNamed], relationships: [{name: peer, peer: DcimEndpoint, cardinality: one}]}",
		}, "{name: Port, namespace: Dcim, inherit_from: [DcimEndpoint], display_label: '{{ name__value }}!', uniqueness_constraints: [[peer, name__value]],"+
			" attributes: [{name: mode, kind: Dropdown, choices: [{name: 'true'}, {name: a.b}], default_value: 'true'}, {name: meta, kind: Any, default_value: {b: [1, 2.5, -0.0, 1e21, .5, 0x10], a: null}}]}"),
		nodes("{id: k1, name: VLAN, namespace: Ipam, state: present, attributes: [{id: a1, name: old, state: absent}, {name: vlan_id, kind: Number, unique: true, default_value: 1_000}]}",
			"{name: Site, namespace: Location, state: absent}"),
		generics([]string{"{name: A, namespace: Dcim, inherit_from: [DcimB]}", "{name: B, namespace: Dcim, inherit_from: [DcimA]}"}),
		generics([]string{"{name: Named, namespace: Base, attributes: [{name: name, kind: Text}]}"}, "{name: Rack, namespace: Location, inherit_from: [BaseNamed], attributes: [{name: name, kind: Text}]}"),
		nodes("{name: VLAN, namespace: Ipam, attributes: [{name: tags, kind: List, default_value: &l [a, *l]}]}"),
		vlan(`{name: vlan_id, kind: Numbr}, {name: "x y", kind: Text, knid: 1}, {name: r, kind: Dropdown, choices: [x, {name: x}], default_value: [1]}`),
		"version: '1.0'\nnodes:\n  - &k {name: A, namespace: Ipam, attributes: [&a {name: a, kind: Text}]}\n  - {name: B, namespace: Ipam, attributes: [*a, {name: b, kind: JSON, default_value: *k}]}\n",
		"version: \"1.0\"\n---\nversion: \"1.0\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.yaml", data)
		if err != nil {
			checkErrors(t, "Parse", err)
			if !reflect.DeepEqual(file, File{}) {
				t.Fatalf("Parse returned %+v with its error", file)
			}
			return
		}
		s, changes, err := Schema{}.Apply(sequentialIDs(), file)
		if err != nil {
			checkErrors(t, "Apply", err)
			return
		}
		for _, c := range changes {
			if c.Op != Added {
				t.Fatalf("on an empty schema: %v", c)
			}
		}
		checkSchema(t, s)
		for _, printed := range [][]byte{s.YAML(), s.JSON()} {
			again, err := Parse("printed", printed)
			if err != nil {
				t.Fatalf("Parse(printed): %v\n%s", err, printed)
			}
			loaded, _, err := Schema{}.Apply(noNewID, again)
			if err != nil {
				t.Fatalf("Apply(printed): %v\n%s", err, printed)
			}
			if !reflect.DeepEqual(loaded.Kinds(), s.Kinds()) || string(loaded.YAML()) != string(s.YAML()) {
				t.Fatalf("loaded again:\n%s\nwant\n%s", loaded.YAML(), s.YAML())
			}
			if _, changes, err := s.Apply(noNewID, again); err != nil || len(changes) != 0 {
				t.Fatalf("what was printed, loaded on the schema: %v\n%v", err, changes)
			}
		}
		next, changes, err := s.Apply(moreIDs(), file)
		if err != nil || len(changes) != 0 || string(next.YAML()) != string(s.YAML()) {
			t.Fatalf("the file loaded again: %v\n%v\n%s", err, changes, next.YAML())
		}
	})
}

// checkErrors checks that err is Errors of 1 to MaxErrors+1 mistakes, each
// with a message.
func checkErrors(t *testing.T, what string, err error) {
	t.Helper()
	var errs Errors
	if !errors.As(err, &errs) || len(errs) == 0 || len(errs) > MaxErrors+1 {
		t.Fatalf("%s: %v (%T), want Errors of 1 to %d", what, err, err, MaxErrors+1)
	}
	for _, e := range errs {
		if e.Message == "" {
			t.Fatalf("%s: an Error without a message: %+v", what, e)
		}
	}
}

// checkSchema checks what the accessors of s answer against each other.
func checkSchema(t *testing.T, s Schema) {
	t.Helper()
	for _, k := range s.Kinds() {
		if e, ok := s.Element(k.ID); !ok || e.Kind != k.FullName() || (e.Type == GenericElement) != k.Generic {
			t.Fatalf("Element(%s) = %+v, %v; want the kind %s", k.ID, e, ok, k.FullName())
		}
		for _, a := range s.Attributes(k.FullName()) {
			e, ok := s.Element(a.ID)
			if !ok || e.Type != AttributeElement || !reflect.DeepEqual(e.Attribute, a) {
				t.Fatalf("Element(%s) = %+v, %v; want %+v", a.ID, e, ok, a)
			}
			if got, _ := s.Attribute(k.FullName(), a.Name); !reflect.DeepEqual(got, a) {
				t.Fatalf("Attribute(%s, %s) = %+v, want %+v", k.FullName(), a.Name, got, a)
			}
		}
		for _, r := range s.Relationships(k.FullName()) {
			if e, ok := s.Element(r.ID); !ok || e.Relationship != r {
				t.Fatalf("Element(%s) = %+v, %v; want %+v", r.ID, e, ok, r)
			}
			if _, ok := s.Kind(r.Peer); !ok {
				t.Fatalf("%s.%s has the peer %s, which is no kind", k.FullName(), r.Name, r.Peer)
			}
		}
		for _, g := range k.InheritFrom {
			if gk, ok := s.Kind(g); !ok || !gk.Generic {
				t.Fatalf("%s inherits from %s, which is no generic", k.FullName(), g)
			}
		}
		for _, node := range s.Inheritors(k.FullName()) {
			if n, ok := s.Kind(node); !ok || n.Generic || !k.Generic {
				t.Fatalf("Inheritors(%s) holds %s", k.FullName(), node)
			}
		}
	}
}
