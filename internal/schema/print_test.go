package schema

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestYAMLOfTheSeedExample(t *testing.T) {
	want := `version: "1.0"
generics:
  - id: id-1
    name: Endpoint
    namespace: Dcim
    attributes:
      - {id: id-2, name: name, kind: Text}
nodes:
  - id: id-3
    name: Site
    namespace: Location
    attributes:
      - {id: id-4, name: name, kind: Text, unique: true}
  - id: id-5
    name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {id: id-6, name: name, kind: Text}
      - {id: id-7, name: vlan_id, kind: Number}
      - {id: id-8, name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}]}
      - {id: id-9, name: tags, kind: List, optional: true}
    relationships:
      - {id: id-10, name: site, peer: LocationSite, cardinality: one, optional: false}
      - {id: id-11, name: endpoints, peer: DcimEndpoint, cardinality: many}
    uniqueness_constraints:
      - [site, vlan_id__value]
`
	if got := string(seedSchema(t).YAML()); got != want {
		t.Errorf("YAML:\n%s\nwant\n%s", got, want)
	}
	if got := string((Schema{}).YAML()); got != "version: \"1.0\"\n" {
		t.Errorf("YAML of the empty schema: %q", got)
	}
}

func TestJSONOfTheSeedExample(t *testing.T) {
	s := seedSchema(t)
	f := mustParse(t, "vlans.json", string(s.JSON()))
	for _, k := range f.Kinds {
		if k.ID == "id-5" {
			if k.Relationships[1].Cardinality != Many || !k.Relationships[1].Optional || *k.DisplayLabel != "{{ name__value }}" {
				t.Errorf("the JSON's IpamVLAN: %+v", k)
			}
		}
	}
	if got := string((Schema{}).JSON()); got != "{\n  \"version\": \"1.0\"\n}\n" {
		t.Errorf("JSON of the empty schema: %q", got)
	}
}

// TestRoundTrip prints schemas, parses and loads what it printed on an
// empty schema: the same schema, every id kept.
func TestRoundTrip(t *testing.T) {
	for _, text := range []string{
		string(seedExample),
		generics([]string{
			"{name: Named, namespace: Base, label: 'Named: \"thing\" #1', display_label: 'n: {{ name__value }}', attributes: [{name: name, label: Name, kind: Text, default_value: ''}]}",
			"{name: Endpoint, namespace: Dcim, label: 'true', inherit_from: [BaseNamed], relationships: [{name: peer, label: Peer endpoint, peer: DcimEndpoint, cardinality: one}]}",
		},
			`{name: Interface, namespace: Dcim, inherit_from: [DcimEndpoint], display_label: "{{name__value}} / \"{{ mtu__value }}\" {}",`+
				` uniqueness_constraints: [[peer, name__value], [mtu__value]], attributes: [`+
				`{name: mtu, kind: Number, unique: true, default_value: 1500},`+
				`{name: up, kind: Boolean, optional: true, default_value: false},`+
				`{name: mode, kind: Dropdown, choices: [{name: access}, {name: trunk.all}, {name: "true"}], default_value: "true"},`+
				`{name: vlans, kind: List, default_value: [1, "2", null, 1e21, 18446744073709551615]},`+
				`{name: meta, kind: JSON, default_value: {"b": {"c": "d: e", "é": "\u2028"}, "a": ["yes", "null", "", "#", "- x"]}},`+
				`{name: extra, kind: Any, default_value: -0.5}]}`,
		),
	} {
		s, _ := mustApply(t, Schema{}, sequentialIDs(), text)
		for _, printed := range [][]byte{s.YAML(), s.JSON()} {
			again, changes := mustApply(t, Schema{}, noNewID, string(printed))
			if !reflect.DeepEqual(again.Kinds(), s.Kinds()) {
				t.Errorf("loaded again:\n%+v\nwant\n%+v", again.Kinds(), s.Kinds())
			}
			if string(again.YAML()) != string(s.YAML()) || string(again.JSON()) != string(s.JSON()) {
				t.Errorf("printed again:\n%s\nwant\n%s", again.YAML(), s.YAML())
			}
			if len(changes) != len(s.Kinds())+countElements(s) {
				t.Errorf("Changes:\n%v", changes)
			}
		}
	}
}

// countElements counts the attributes and relationships the kinds of s
// declare.
func countElements(s Schema) int {
	n := 0
	for _, k := range s.Kinds() {
		n += len(k.Attributes) + len(k.Relationships)
	}
	return n
}

// TestScalar checks that what scalar writes YAML reads back as the same
// string, as a block value and in a flow sequence.
func TestScalar(t *testing.T) {
	for _, s := range []string{
		"", "VLAN", "vlan_id", "a.b-c", "true", "Yes", "NULL", "n", "~", "1", "0x1F", "1e3", ".inf", "-", "- a", "a: b", "a #b", "#",
		"{", "}", "[", "]", ",", "&a", "*a", "!t", "|", ">", "'", `"`, "%", "@", "`", "?", "a\nb", "\t", "\r", "\x00", "\x7f", "\u0085",
		"\u2028", "\ufeff", "\U0001F600", "é", " a", "a ", "a b", `\`, "---", "...", "{{ name__value }}",
	} {
		for _, doc := range []string{"k: " + scalar(s) + "\n", "k: [" + scalar(s) + ", x]\n"} {
			var v struct{ K any }
			if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
				t.Errorf("scalar(%q) = %s: %v", s, scalar(s), err)
				continue
			}
			got := v.K
			if list, ok := got.([]any); ok {
				got = list[0]
			}
			if got != s {
				t.Errorf("scalar(%q) = %s, read back as %#v", s, scalar(s), got)
			}
		}
	}
}
