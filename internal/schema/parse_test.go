package schema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestParseSeedExample(t *testing.T) {
	got, err := Parse("vlans.yaml", seedExample)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := File{Name: "vlans.yaml", Kinds: []KindSpec{
		{Generic: true, Namespace: "Dcim", Name: "Endpoint", Attributes: []AttributeSpec{{Name: "name", Kind: Text}}},
		{Namespace: "Location", Name: "Site", Attributes: []AttributeSpec{{Name: "name", Kind: Text, Unique: true}}},
		{
			Namespace: "Ipam", Name: "VLAN", DisplayLabel: ptr("{{ name__value }}"),
			Attributes: []AttributeSpec{
				{Name: "name", Kind: Text},
				{Name: "vlan_id", Kind: Number},
				{Name: "role", Kind: Dropdown, Optional: true, Choices: []string{"user", "voice"}},
				{Name: "tags", Kind: List, Optional: true},
			},
			Relationships: []RelationshipSpec{
				{Name: "site", Peer: "LocationSite", Cardinality: One, Optional: false},
				{Name: "endpoints", Peer: "DcimEndpoint", Cardinality: Many, Optional: true},
			},
			UniquenessConstraints: [][]string{{"site", "vlan_id__value"}},
		},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %+v\nwant %+v", got, want)
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []KindSpec
	}{
		{"version only", `version: "1.0"`, nil},
		{"empty lists and nulls", "version: '1.0'\ngenerics: []\nnodes:\n", nil},
		{
			"ids, state, an empty inherit_from, display_label and constraints",
			nodes(`{id: k1, name: VLAN, namespace: Ipam, state: present, inherit_from: [], display_label: "", uniqueness_constraints: [],` +
				` attributes: [{id: a1, name: old, state: absent}], relationships: [{id: r1, name: gone, state: absent}]}`),
			[]KindSpec{{ID: "k1", Namespace: "Ipam", Name: "VLAN", DisplayLabel: ptr(""), InheritFrom: []string{}, UniquenessConstraints: [][]string{},
				Attributes:    []AttributeSpec{{ID: "a1", Absent: true, Name: "old"}},
				Relationships: []RelationshipSpec{{ID: "r1", Absent: true, Name: "gone", Cardinality: Many, Optional: true}}}},
		},
		{
			"labels of a kind, an attribute and a relationship; a null label is not written",
			nodes(`{name: VLAN, namespace: Ipam, label: "VLAN", attributes: [{name: vlan_id, label: "VLAN ID", kind: Number}, {name: name, label: null, kind: Text}],`+
				` relationships: [{name: site, label: "Site of the VLAN", peer: LocationSite}]}`, `{name: Site, namespace: Location, label: ""}`),
			[]KindSpec{
				{Namespace: "Ipam", Name: "VLAN", Label: ptr("VLAN"),
					Attributes:    []AttributeSpec{{Name: "vlan_id", Label: "VLAN ID", Kind: Number}, {Name: "name", Kind: Text}},
					Relationships: []RelationshipSpec{{Name: "site", Label: "Site of the VLAN", Peer: "LocationSite", Cardinality: Many, Optional: true}}},
				{Namespace: "Location", Name: "Site", Label: ptr("")},
			},
		},
		{
			"a kind removed, as little as names it",
			nodes("{name: VLAN, namespace: Ipam, state: absent}"),
			[]KindSpec{{Absent: true, Namespace: "Ipam", Name: "VLAN"}},
		},
		{
			"JSON, its escapes and its order",
			`{"version": "1.0", "nodes": [{"namespace": "Ipam", "name": "VLAN", "display_label": "VLAN \/ {{vlan_id__value}}",` + "\n\t" +
				`"attributes": [{"name": "vlan_id", "kind": "Number", "default_value": 1E2}, {"name": "meta", "kind": "JSON", "default_value": {"b": [1.50, "\u00e9"], "a": null}}]}]}`,
			[]KindSpec{{Namespace: "Ipam", Name: "VLAN", DisplayLabel: ptr("VLAN / {{vlan_id__value}}"), Attributes: []AttributeSpec{
				{Name: "vlan_id", Kind: Number, DefaultValue: "100"},
				{Name: "meta", Kind: JSON, DefaultValue: `{"a":null,"b":[1.5,"é"]}`},
			}}},
		},
		{
			"YAML aliases and block style",
			"version: \"1.0\"\nnodes:\n  - name: VLAN\n    namespace: Ipam\n    attributes:\n      - &name\n        name: name\n        kind: Text\n  - name: Site\n    namespace: Location\n    attributes: [*name]\n",
			[]KindSpec{
				{Namespace: "Ipam", Name: "VLAN", Attributes: []AttributeSpec{{Name: "name", Kind: Text}}},
				{Namespace: "Location", Name: "Site", Attributes: []AttributeSpec{{Name: "name", Kind: Text}}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse("f.yaml", []byte(tt.text))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got.Kinds, tt.want) {
				t.Errorf("Parse = %+v\nwant %+v", got.Kinds, tt.want)
			}
		})
	}
}

// vlan is a file of the node IpamVLAN with the attributes given.
func vlan(attributes string) string {
	return nodes("{name: VLAN, namespace: Ipam, attributes: [" + attributes + "]}")
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string // every message, one a line
	}{
		{"an empty file", "", `f.yaml: the file holds no schema; write version: "1.0", then generics: and nodes:`},
		{"not YAML", "nodes: [", "f.yaml: not valid YAML: line 1: did not find expected node content"},
		{"two documents", "version: '1.0'\n---\nversion: '1.0'\n", "f.yaml: the file holds more than one YAML document; write one schema a file"},
		{"a list", "- a\n", "f.yaml: the file must be a mapping of version, generics and nodes, got a list"},
		{"no version", "nodes: []", `f.yaml: version is required; write version: "1.0"`},
		{"a number as version", "version: 1.0", `f.yaml: version must be the string "1.0"; quote it`},
		{"another version", "version: '2.0'", `f.yaml: version must be "1.0", got "2.0"`},
		{"an unknown field", "version: '1.0'\nextensions: {}\n", `f.yaml: "extensions" is not a field of a schema file; its fields are version, generics, nodes`},
		{"nodes as a mapping", "version: '1.0'\nnodes: {VLAN: {}}\n", "f.yaml: nodes must be a list of nodes, got a mapping"},
		{"a node that is a word", nodes("VLAN"), `f.yaml: nodes[0]: must be a node, a mapping such as {name: VLAN, namespace: Ipam}, got "VLAN"`},
		{"a misspelt kind", vlan("{name: vlan_id, kind: Numbr}"),
			`f.yaml: IpamVLAN.vlan_id: kind "Numbr" is not one of Text, Number, Boolean, Dropdown, List, JSON, Any`},
		{"a misspelt field", vlan("{name: vlan_id, knid: Number}"),
			`f.yaml: IpamVLAN.vlan_id: "knid" is not a field of an attribute; its fields are id, state, name, label, kind, optional, unique, choices, default_value` +
				"\nf.yaml: IpamVLAN.vlan_id: kind is required: one of Text, Number, Boolean, Dropdown, List, JSON, Any"},
		{"a field given twice", vlan("{name: vlan_id, kind: Number, kind: Text}"), "f.yaml: IpamVLAN.vlan_id: kind is given twice; give it once"},
		{"a kind's unknown field", nodes("{name: VLAN, namespace: Ipam, description: VLANs}"),
			`f.yaml: IpamVLAN: "description" is not a field of a node; its fields are id, state, name, namespace, label, inherit_from, display_label, attributes, relationships, uniqueness_constraints`},
		{"labels that are not one line of text", nodes(`{name: VLAN, namespace: Ipam, label: "` + strings.Repeat("x", 65) + `", attributes: [{name: vlan_id, label: " VLAN ID", kind: Number}, {name: name, label: [Name], kind: Text}],` +
			` relationships: [{name: site, label: "Site\nof the VLAN", peer: LocationSite}]}`),
			`f.yaml: IpamVLAN: label "` + strings.Repeat("x", 64) + `…" is longer than 64 characters` +
				"\n" + `f.yaml: IpamVLAN.vlan_id: label " VLAN ID" begins or ends with a space; remove it` +
				"\nf.yaml: IpamVLAN.name: label must be a string, got a list" +
				"\n" + `f.yaml: IpamVLAN.site: label "Site\nof the VLAN" holds a control character or is not UTF-8; write it on one line`},
		{"no name, no namespace", nodes("{attributes: []}"), "f.yaml: nodes[0]: namespace is required, such as Ipam\nf.yaml: nodes[0]: name is required, such as VLAN"},
		{"names that are not identifiers", nodes(`{name: "VLAN-1", namespace: IPAM}`, `{name: vlan, namespace: "Ipam "}`, "{name: 5, namespace: Ipam}"),
			`f.yaml: nodes[0]: namespace "IPAM" is not a namespace: a capital letter, then lowercase letters and digits, such as Ipam` +
				"\n" + `f.yaml: nodes[0]: name "VLAN-1" is not a kind's name: a capital letter, then letters and digits, such as VLAN` +
				"\n" + `f.yaml: nodes[1]: namespace "Ipam " is not a namespace: a capital letter, then lowercase letters and digits, such as Ipam` +
				"\n" + `f.yaml: nodes[1]: name "vlan" is not a kind's name: a capital letter, then letters and digits, such as VLAN` +
				"\n" + `f.yaml: nodes[2]: name must be a string; quote it: "5"`},
		{"a name too long", nodes("{name: V" + strings.Repeat("x", 64) + ", namespace: Ipam}"),
			`f.yaml: nodes[0]: name "V` + strings.Repeat("x", 63) + `…" is longer than 64 characters`},
		{"a reserved namespace", nodes("{name: NumberPool, namespace: Core}"),
			`f.yaml: nodes[0]: namespace "Core" is reserved for built-in kinds; the reserved namespaces are Branch, Builtin, Core, Infrahub, Internal, Schema`},
		{"elements' names", vlan(`{name: VlanID, kind: Number}, {name: vlan__id, kind: Number}, {name: id, kind: Text}, {name: "", kind: Text}`),
			`f.yaml: IpamVLAN.attributes[0]: name "VlanID" is not an attribute's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id` +
				"\n" + `f.yaml: IpamVLAN.attributes[1]: name "vlan__id" is not an attribute's name: lowercase letters and digits, in words joined by single underscores, starting with a letter, such as vlan_id` +
				"\n" + `f.yaml: IpamVLAN.attributes[2]: name "id" is reserved: every object has its id` +
				"\nf.yaml: IpamVLAN.attributes[3]: name is required, such as vlan_id"},
		{"a kind declared twice", nodes("{name: VLAN, namespace: Ipam}", "{name: VLAN, namespace: Ipam}"),
			"f.yaml: nodes[1]: IpamVLAN is declared twice, as nodes[0] and nodes[1]; declare each kind once"},
		{"a generic and a node of one name", generics([]string{"{name: VLAN, namespace: Ipam}"}, "{name: VLAN, namespace: Ipam}"),
			"f.yaml: nodes[0]: IpamVLAN is declared twice, as generics[0] and nodes[0]; declare each kind once"},
		{"an element named twice", nodes("{name: VLAN, namespace: Ipam, attributes: [{name: site, kind: Text}], relationships: [{name: site, peer: LocationSite}]}"),
			"f.yaml: IpamVLAN.relationships[0]: site is the name of attributes[0] and relationships[0]; name each element of a kind once"},
		{"ids", nodes("{id: k, name: VLAN, namespace: Ipam, attributes: [{id: k, name: a, kind: Text}, {id: 'a b', name: b, kind: Text}, {id: 7, name: c, kind: Text}]}"),
			`f.yaml: IpamVLAN.a: id "k" is also the id of IpamVLAN; give each element its own` +
				"\n" + `f.yaml: IpamVLAN.b: id "a b" is not an id: letters, digits, - and _, starting with a letter or a digit, up to 64 characters` +
				"\n" + `f.yaml: IpamVLAN.c: id must be a string; quote it: "7"`},
		{"a state", nodes("{name: VLAN, namespace: Ipam, state: deleted}"), `f.yaml: IpamVLAN: state "deleted" is not one of present, absent`},
		{"flags", vlan("{name: a, kind: Text, optional: yes, unique: [true]}"),
			`f.yaml: IpamVLAN.a: optional must be true or false, got "yes"` + "\n" + "f.yaml: IpamVLAN.a: unique must be true or false, got a list"},
		{"Dropdowns", vlan(`{name: a, kind: Dropdown}, {name: b, kind: Text, choices: [{name: x}]}, {name: c, kind: Dropdown, choices: [x, {label: X}]},` +
			` {name: d, kind: Dropdown, choices: [{name: x}, {name: x}, {name: "x y"}]}, {name: e, kind: Dropdown, choices: [{name: x}], default_value: y}`),
			"f.yaml: IpamVLAN.a: choices are required for a Dropdown, such as [{name: user}, {name: voice}]" +
				"\nf.yaml: IpamVLAN.b: choices are for a Dropdown; this attribute is of kind Text" +
				"\n" + `f.yaml: IpamVLAN.c: choices[0] must be a mapping such as {name: user}, got "x"` +
				"\n" + `f.yaml: IpamVLAN.c: "label" is not a field of a choice; its fields are name` +
				"\nf.yaml: IpamVLAN.c: choices[1] has no name; write {name: user}" +
				"\n" + `f.yaml: IpamVLAN.d: choices[1] "x" is given twice` +
				"\n" + `f.yaml: IpamVLAN.d: choices[2] "x y" is not a choice's name: letters, digits, _, - and ., starting with a letter or a digit, up to 64 characters` +
				"\n" + `f.yaml: IpamVLAN.e: default_value "y" is not one of the choices x`},
		{"a choice's name that is a number", vlan("{name: a, kind: Dropdown, choices: [{name: 5}]}"),
			`f.yaml: IpamVLAN.a: choices[0].name must be a string; quote it: "5"`},
		{"relationships", nodes(`{name: VLAN, namespace: Ipam, relationships: [{name: a}, {name: b, peer: site}, {name: c, peer: LocationSite, cardinality: two}, {name: d, peer: LocationSite, optional: 0}]}`),
			"f.yaml: IpamVLAN.a: peer is required: the full name of a node or a generic, such as LocationSite" +
				"\n" + `f.yaml: IpamVLAN.b: peer "site" is not a kind's full name, its namespace then its name, such as LocationSite` +
				"\n" + `f.yaml: IpamVLAN.c: cardinality "two" is not one of one, many` +
				"\n" + `f.yaml: IpamVLAN.d: optional must be true or false, got "0"`},
		{"inherit_from", nodes("{name: VLAN, namespace: Ipam, inherit_from: [Endpoint, DcimEndpoint, DcimEndpoint, ~, &a '', 5]}", "{name: Site, namespace: Location, inherit_from: DcimEndpoint}"),
			`f.yaml: IpamVLAN: inherit_from[0] "Endpoint" is not a kind's full name, its namespace then its name, such as LocationSite` +
				"\n" + `f.yaml: IpamVLAN: inherit_from[2] "DcimEndpoint" is given twice` +
				"\nf.yaml: IpamVLAN: inherit_from[3] is empty; name a generic such as DcimEndpoint" +
				"\nf.yaml: IpamVLAN: inherit_from[4] is empty; name a generic such as DcimEndpoint" +
				"\n" + `f.yaml: IpamVLAN: inherit_from[5] must be a string; quote it: "5"` +
				"\nf.yaml: LocationSite: inherit_from must be a list of generics such as [DcimEndpoint], got \"DcimEndpoint\""},
		{"display labels", nodes(`{name: A, namespace: Ipam, display_label: "{{ name }}"}`, `{name: B, namespace: Ipam, display_label: "{{ name__value | upper }}"}`,
			`{name: C, namespace: Ipam, display_label: "{{ name__value"}`, `{name: D, namespace: Ipam, display_label: "{% if x %}"}`, `{name: E, namespace: Ipam, display_label: "a }} b"}`),
			`f.yaml: IpamA: display_label "{{ name }}" has {{ name }}, which is not an attribute's value such as {{ name__value }}` +
				"\n" + `f.yaml: IpamB: display_label "{{ name__value | upper }}" has {{ name__value | upper }}, which is not an attribute's value such as {{ name__value }}` +
				"\n" + `f.yaml: IpamC: display_label "{{ name__value" has a {{ without its }}` +
				"\n" + `f.yaml: IpamD: display_label "{% if x %}" holds a template tag; write text and placeholders such as {{ name__value }} only` +
				"\n" + `f.yaml: IpamE: display_label "a }} b" has a }} without its {{`},
		{"uniqueness constraints", nodes(`{name: VLAN, namespace: Ipam, uniqueness_constraints: [[], [site, site], [site__name__value], [vlan_id__value, site], [site, vlan_id__value], site, [site, ~]]}`),
			"f.yaml: IpamVLAN: uniqueness_constraints[0] is empty; name relationships and attribute paths such as [site, vlan_id__value]" +
				"\nf.yaml: IpamVLAN: uniqueness_constraints[1] names site twice" +
				"\n" + `f.yaml: IpamVLAN: uniqueness_constraints[2][0] "site__name__value" is not a relationship's name such as site or an attribute's path such as vlan_id__value` +
				"\nf.yaml: IpamVLAN: uniqueness_constraints[4] is uniqueness_constraints[3] again" +
				"\n" + `f.yaml: IpamVLAN: uniqueness_constraints[5] must be a list of relationships and attribute paths such as ["site", "vlan_id__value"], got "site"` +
				"\nf.yaml: IpamVLAN: uniqueness_constraints[6][1] is empty; name a relationship such as site or an attribute's path such as vlan_id__value"},
		{"constraints on a generic", generics([]string{"{name: Endpoint, namespace: Dcim, uniqueness_constraints: [[name__value]]}"}),
			"f.yaml: DcimEndpoint: uniqueness_constraints are declared on nodes; a generic has none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("f.yaml", []byte(tt.text))
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", f)
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("Parse: %v (%T), want Errors", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse:\n%v\nwant\n%s", err, tt.want)
			}
			if !reflect.DeepEqual(f, File{}) {
				t.Errorf("Parse returned %+v with its error", f)
			}
		})
	}
}

// TestParseDefaultValues checks default_value for each attribute kind:
// the JSON Parse keeps, or the refusal.
func TestParseDefaultValues(t *testing.T) {
	tests := []struct {
		kind  AttributeKind
		value string // as YAML
		want  string // the JSON kept, or the message
	}{
		{Text, "users", `"users"`},
		{Text, "'100'", `"100"`},
		{Text, `"a\tb <c> & é"`, `"a\tb <c> & é"`},
		{Text, "2001-01-01", `"2001-01-01"`},
		{Text, "100", "default_value must be a string for an attribute of kind Text, got 100"},
		{Text, "[a]", `default_value must be a string for an attribute of kind Text, got ["a"]`},
		{Text, "null", ""},
		{Number, "100", "100"},
		{Number, "-0", "0"},
		{Number, "0x1F", "31"},
		{Number, "1_000", "1000"},
		{Number, "100.0", "100"},
		{Number, "1e2", "100"},
		{Number, "9223372036854775807", "9223372036854775807"},
		{Number, "9223372036854775808", "default_value must be a whole number from -9223372036854775808 to 9223372036854775807 for an attribute of kind Number, got 9223372036854775808"},
		{Number, "1.5", "default_value must be a whole number from -9223372036854775808 to 9223372036854775807 for an attribute of kind Number, got 1.5"},
		{Number, "'100'", `default_value must be a whole number from -9223372036854775808 to 9223372036854775807 for an attribute of kind Number, got "100"`},
		{Number, ".inf", `default_value holds ".inf", which is not a finite number of 64 bits`},
		{Boolean, "true", "true"},
		{Boolean, "False", "false"},
		{Boolean, "yes", `default_value must be true or false for an attribute of kind Boolean, got "yes"`},
		{Boolean, "1", "default_value must be true or false for an attribute of kind Boolean, got 1"},
		{Dropdown, "voice", `"voice"`},
		{Dropdown, "video", `default_value "video" is not one of the choices user, voice`},
		{Dropdown, "1", "default_value 1 is not one of the choices user, voice"},
		{List, "[]", "[]"},
		{List, "[1, a, {b: [true, null]}]", `[1,"a",{"b":[true,null]}]`},
		{List, "a", `default_value must be a list for an attribute of kind List, got "a"`},
		{List, "{a: 1}", `default_value must be a list for an attribute of kind List, got {"a":1}`},
		{JSON, "{b: 2, a: [1.50, -0.0, 1e21]}", `{"a":[1.5,0,1e+21],"b":2}`},
		{JSON, "18446744073709551615", "18446744073709551615"},
		{JSON, "{1: a}", `default_value has the key "1", which is not a string; quote it`},
		{JSON, "{a: 1, a: 2}", `default_value has the key "a" twice`},
		{JSON, "!!binary aGk=", `default_value holds "aGk=" of tag !!binary, which JSON has no value for`},
		{JSON, strings.Repeat("[", 33) + strings.Repeat("]", 33), "default_value is nested more than 32 deep"},
		{Any, "anything", `"anything"`},
		{Any, "{a: .nan}", `default_value holds ".nan", which is not a finite number of 64 bits`},
	}
	for _, tt := range tests {
		choices := ""
		if tt.kind == Dropdown {
			choices = ", choices: [{name: user}, {name: voice}]"
		}
		text := vlan("{name: a, kind: " + string(tt.kind) + choices + ", default_value: " + tt.value + "}")
		f, err := Parse("f.yaml", []byte(text))
		var got string
		if err != nil {
			var errs Errors
			if !errors.As(err, &errs) || len(errs) != 1 {
				t.Errorf("%s %s: %v, want one Error", tt.kind, tt.value, err)
				continue
			}
			got = errs[0].Message
			if errs[0].Field != "default_value" || errs[0].Kind != "IpamVLAN" || errs[0].Element != "a" {
				t.Errorf("%s %s: the error is %+v; want the field default_value of IpamVLAN.a", tt.kind, tt.value, errs[0])
			}
		} else {
			got = f.Kinds[0].Attributes[0].DefaultValue
		}
		if got != tt.want {
			t.Errorf("default_value %s of kind %s: %s, want %s", tt.value, tt.kind, got, tt.want)
		}
	}
}

func TestParseErrorFields(t *testing.T) {
	_, err := Parse("vlans.yaml", []byte(vlan("{name: vlan_id, kind: Numbr}")))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse: %v, want an *Error", err)
	}
	want := Error{File: "vlans.yaml", Kind: "IpamVLAN", Element: "vlan_id", Field: "kind",
		Message: `kind "Numbr" is not one of Text, Number, Boolean, Dropdown, List, JSON, Any`}
	if *e != want {
		t.Errorf("Parse: %+v, want %+v", *e, want)
	}
}

func TestParseStopsAfterMaxErrors(t *testing.T) {
	var lines []string
	for range 30 {
		lines = append(lines, "{name: x, namespace: y}")
	}
	_, err := Parse("f.yaml", []byte(nodes(lines...)))
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != MaxErrors+1 {
		t.Fatalf("Parse: %d errors, want %d and the last line", len(errs), MaxErrors+1)
	}
	if last := errs[MaxErrors].Error(); last != "f.yaml: stopped after 20 mistakes; correct these first" {
		t.Errorf("the last error is %q", last)
	}
}
