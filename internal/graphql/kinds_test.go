package graphql

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/schema/schematest"
)

// interfaces adds a node of the example's generic, so that VLANs have
// endpoints.
const interfaces = `version: "1.0"
nodes:
  - name: Interface
    namespace: Dcim
    inherit_from: [DcimEndpoint]
    attributes:
      - {name: speed, kind: Number, optional: true}
`

const schemaLoad = `mutation($schema: String!) {
	schemaLoad(schema: $schema) {
		added { element id kind name summary }
		changed { element id kind name fields { field before after } summary }
		removed { element id kind name summary }
	}
}`

// loadResult is the answer of schemaLoad.
type loadResult struct {
	SchemaLoad struct {
		Added, Changed, Removed []schemaChange
	} `json:"schemaLoad"`
}

type schemaChange struct {
	Element, ID, Kind string
	Name              *string
	Fields            []struct{ Field, Before, After *string }
	Summary           string
}

// load loads a schema file through schemaLoad on e's branch.
func (e *env) load(text string) loadResult {
	e.t.Helper()
	var out loadResult
	e.ok("op", schemaLoad, &out, "schema", text)
	return out
}

// object is an object as the tests select it.
type object struct {
	ID           string `json:"id"`
	DisplayLabel string `json:"display_label"`
	Typename     string `json:"__typename"`
	Name         *struct {
		Value *string `json:"value"`
	} `json:"name"`
	VlanID *struct {
		Value *json.Number `json:"vlan_id"`
	} `json:"vlan_id"`
}

// create runs a create mutation of kind with data (a GraphQL input object
// literal) and returns the object's id.
func (e *env) create(kind, data string) string {
	e.t.Helper()
	var out map[string]struct {
		OK     bool `json:"ok"`
		Object struct {
			ID string `json:"id"`
		} `json:"object"`
	}
	e.ok("op", `mutation { `+kind+`Create(data: `+data+`) { ok object { id } } }`, &out)
	a := out[kind+"Create"]
	if !a.OK || a.Object.ID == "" {
		e.t.Fatalf("%sCreate answered %+v", kind, a)
	}
	return a.Object.ID
}

// site creates a site of the example.
func (e *env) site(name string) string {
	e.t.Helper()
	return e.create("LocationSite", `{name: {value: "`+name+`"}}`)
}

// TestExampleSchema runs the example schema through GraphQL: the schema
// loaded by schemaLoad, objects created, read, listed, filtered, changed
// and deleted with Infrahub's documents, and the refusals with their
// codes.
func TestExampleSchema(t *testing.T) {
	e := newEnv(t)
	loaded := e.load(schematest.Example)
	var added []string
	for _, c := range loaded.SchemaLoad.Added {
		added = append(added, c.Element+" "+c.Kind+"."+deref(c.Name))
	}
	if len(added) != 11 || !slices.Contains(added, "relationship IpamVLAN.site") || len(loaded.SchemaLoad.Changed)+len(loaded.SchemaLoad.Removed) != 0 {
		t.Errorf("schemaLoad added %q, changed %v, removed %v", added, loaded.SchemaLoad.Changed, loaded.SchemaLoad.Removed)
	}
	e.load(interfaces)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	eth0 := e.create("DcimInterface", `{name: {value: "eth0"}, speed: {value: 10000}}`)

	var created struct {
		IpamVLANCreate struct {
			OK     bool
			Object struct {
				ID           string `json:"id"`
				DisplayLabel string `json:"display_label"`
				Name         struct{ Value string }
				VlanID       struct{ Value int64 } `json:"vlan_id"`
				Site         struct {
					Node struct {
						ID           string `json:"id"`
						DisplayLabel string `json:"display_label"`
					}
				}
			}
		}
	}
	e.ok("op", `mutation {
		IpamVLANCreate(data: {name: {value: "users-site-a"}, vlan_id: {value: 100},
		                      site: {id: "`+siteA+`"}, endpoints: [{id: "`+eth0+`"}]}) {
			ok
			object { id display_label name { value } vlan_id { value } site { node { id display_label } } }
		}
	}`, &created)
	o := created.IpamVLANCreate.Object
	if !created.IpamVLANCreate.OK || o.DisplayLabel != "users-site-a" || o.Name.Value != "users-site-a" || o.VlanID.Value != 100 ||
		o.Site.Node.ID != siteA || o.Site.Node.DisplayLabel != "site-a" {
		t.Fatalf("IpamVLANCreate answered %+v", created)
	}
	vlan := o.ID

	query := `query { IpamVLAN(ids: ["` + vlan + `"], name__value: "users-site-a", site__ids: ["` + siteA + `"], limit: 50, offset: 0) {
		count
		edges { node { id display_label vlan_id { value } site { node { id } } endpoints {count edges {node {id display_label __typename}}} } }
	} }`
	res := e.query("op", query)
	want := `{"IpamVLAN":{"count":1,"edges":[{"node":{"id":"` + vlan + `","display_label":"users-site-a","vlan_id":{"value":100},"site":{"node":{"id":"` + siteA + `"}},` +
		`"endpoints":{"count":1,"edges":[{"node":{"id":"` + eth0 + `","display_label":"eth0","__typename":"DcimInterface"}}]}}}]}}`
	if len(res.Errors) > 0 || string(res.Data) != want {
		t.Errorf("the query answered\n%s\nwant data\n%s", res.body, want)
	}

	e.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+vlan+`", site: {id: "`+siteB+`"}}) { ok object { id } } }`, nil)
	res = e.query("op", query)
	if string(res.Data) != `{"IpamVLAN":{"count":0,"edges":[]}}` {
		t.Errorf("after the move to site-b, the query of site-a answered %s", res.body)
	}
	var generic struct {
		DcimEndpoint struct {
			Count int
			Edges []struct{ Node object }
		}
	}
	e.ok("op", `{ DcimEndpoint(name__value: "eth0") { count edges { node { __typename id display_label name { value } } } } }`, &generic)
	if generic.DcimEndpoint.Count != 1 || generic.DcimEndpoint.Edges[0].Node.Typename != "DcimInterface" || generic.DcimEndpoint.Edges[0].Node.ID != eth0 {
		t.Errorf("the generic's query answered %+v", generic)
	}

	err := e.fails("op", codeConflict, `mutation { LocationSiteDelete(data: {id: "`+siteB+`"}) { ok } }`)
	if !strings.Contains(err.Message, vlan) {
		t.Errorf("deleting a site a VLAN requires answered %q, which does not name the VLAN %s", err.Message, vlan)
	}
	var deleted struct {
		IpamVLANDelete struct {
			OK     bool
			Object struct{ ID string }
		}
	}
	e.ok("op", `mutation { IpamVLANDelete(data: {id: "`+vlan+`"}) { ok object { id } } }`, &deleted)
	if !deleted.IpamVLANDelete.OK || deleted.IpamVLANDelete.Object.ID != vlan {
		t.Errorf("IpamVLANDelete answered %+v", deleted)
	}
	e.ok("op", `mutation { LocationSiteDelete(data: {id: "`+siteB+`"}) { ok } }`, nil)
	e.fails("op", codeNotFound, `mutation { IpamVLANDelete(data: {id: "`+vlan+`"}) { ok } }`)
}

// everyKind is a node with an attribute of every kind.
const everyKind = `version: "1.0"
nodes:
  - name: Thing
    namespace: Test
    attributes:
      - {name: name, kind: Text}
      - {name: count, kind: Number, optional: true}
      - {name: enabled, kind: Boolean, optional: true}
      - {name: color, kind: Dropdown, optional: true, choices: [{name: red}, {name: green}]}
      - {name: tags, kind: List, optional: true}
      - {name: config, kind: JSON, optional: true}
      - {name: extra, kind: Any, optional: true}
      - {name: size, kind: Number, default_value: 10}
`

// thingFields selects every attribute of a TestThing.
const thingFields = `id name { value } count { value } enabled { value } color { value } tags { value } config { value } extra { value } size { value }`

// TestAttributeKinds creates objects with a value of every attribute kind
// through the API: values of each kind are stored and read back as given
// (a Number of 64 bits exactly, from a literal and from a variable), and
// the values an attribute refuses are INVALID_ARGUMENT, naming it.
func TestAttributeKinds(t *testing.T) {
	e := newEnv(t)
	e.load(everyKind)
	valid := []struct {
		defs, data, want string
		vars             []any
	}{
		{"", `{name: {value: "a"}}`, `"name":{"value":"a"},"count":{"value":null},"enabled":{"value":null},"color":{"value":null},"tags":{"value":null},"config":{"value":null},"extra":{"value":null},"size":{"value":10}`, nil},
		{"", `{name: {value: "b"}, count: {value: -9223372036854775808}, enabled: {value: false}, color: {value: "red"}, size: {value: 0}}`,
			`"count":{"value":-9223372036854775808},"enabled":{"value":false},"color":{"value":"red"},"tags":{"value":null},"config":{"value":null},"extra":{"value":null},"size":{"value":0}`, nil},
		{"($n: BigInt)", `{name: {value: "c"}, count: {value: $n}, tags: {value: ["x", 1, {y: null}, []]}, config: {value: {a: [1, 2.5], b: "c"}}, extra: {value: "any"}}`,
			`"count":{"value":9007199254740993},"enabled":{"value":null},"color":{"value":null},"tags":{"value":["x",1,{"y":null},[]]},"config":{"value":{"a":[1,2.5],"b":"c"}},"extra":{"value":"any"}`,
			[]any{"n", json.Number("9007199254740993")}},
		{"($tags: GenericScalar, $config: GenericScalar)", `{name: {value: "d"}, tags: {value: $tags}, config: {value: $config}, extra: {value: 12.5}}`,
			`"tags":{"value":[]},"config":{"value":{"deep":[{"n":12345678901234567890}]}},"extra":{"value":12.5}`,
			[]any{"tags", []any{}, "config", map[string]any{"deep": []any{map[string]any{"n": json.Number("12345678901234567890")}}}}},
	}
	for _, tt := range valid {
		var out struct {
			TestThingCreate struct{ Object json.RawMessage }
		}
		e.ok("op", `mutation`+tt.defs+` { TestThingCreate(data: `+tt.data+`) { object { `+thingFields+` } } }`, &out, tt.vars...)
		if !strings.Contains(string(out.TestThingCreate.Object), tt.want) {
			t.Errorf("TestThingCreate(data: %s) answered %s, want it to hold %s", tt.data, out.TestThingCreate.Object, tt.want)
		}
	}

	invalid := []struct{ data, field, message string }{
		{`{count: {value: 1}}`, "name", "name: a value is required"},
		{`{name: {value: null}}`, "name", "name: a value is required"},
		{`{name: null}`, "name", "name: a value is required"},
		{`{name: {value: "e"}, count: {value: 1.5}}`, "count", "count: expected a whole number"},
		{`{name: {value: "e"}, count: {value: "7"}}`, "count", "count: expected a whole number"},
		{`{name: {value: "e"}, color: {value: "blue"}}`, "color", `color: "blue" is not one of the choices red, green`},
		{`{name: {value: "e"}, tags: {value: "x"}}`, "tags", "tags: expected a list"},
		{`{name: {value: "e"}, tags: {value: {a: 1}}}`, "tags", "tags: expected a list"},
		{`{name: {value: "e"}, size: {value: null}}`, "size", "size: a value is required"},
	}
	for _, tt := range invalid {
		err := e.fails("op", codeInvalidArgument, `mutation { TestThingCreate(data: `+tt.data+`) { ok } }`)
		if err.Extensions.Field != tt.field || !strings.HasPrefix(err.Message, tt.message) {
			t.Errorf("TestThingCreate(data: %s) refused %q (field %q), want %q… of the field %s", tt.data, err.Message, err.Extensions.Field, tt.message, tt.field)
		}
	}
	// Values of the wrong GraphQL type are refused before anything runs,
	// naming where they are.
	for _, data := range []string{`{name: {value: 5}}`, `{name: {value: "e"}, enabled: {value: "yes"}}`, `{name: {value: "e"}, count: {value: 9223372036854775808}}`, `{nome: {value: "e"}}`} {
		res := e.query("op", `mutation { TestThingCreate(data: `+data+`) { ok } }`)
		if res.Data != nil || len(res.Errors) == 0 || res.Errors[0].Extensions.Code != codeInvalidArgument || !strings.Contains(res.Errors[0].Message, `"data"`) {
			t.Errorf("TestThingCreate(data: %s) answered %s, want INVALID_ARGUMENT naming the argument data", data, res.body)
		}
	}
	if n := e.count("TestThing", ""); n != 4 {
		t.Errorf("%d things, want the 4 valid ones", n)
	}
	for filter, want := range map[string]int{`name__value: "b"`: 1, `count__value: -9223372036854775808`: 1, `enabled__value: false`: 1,
		`color__value: "red"`: 1, `size__value: 10`: 3, `count__value: 9007199254740993`: 1, `name__value: "z"`: 0} {
		if n := e.count("TestThing", filter); n != want {
			t.Errorf("TestThing(%s) counts %d, want %d", filter, n, want)
		}
	}
}

// count returns how many objects the query of the kind counts with the
// filter given (arguments of the query).
func (e *env) count(kind, filter string) int {
	e.t.Helper()
	args := ""
	if filter != "" {
		args = "(" + filter + ")"
	}
	var out map[string]struct{ Count int }
	e.ok("op", `{ `+kind+args+` { count } }`, &out)
	return out[kind].Count
}

// TestUpdateValues changes objects through the update mutation: what is
// given changes, {value: null} and null remove an optional value, {} and
// what is not given stay, and a required value cannot be removed.
func TestUpdateValues(t *testing.T) {
	e := newEnv(t)
	e.load(everyKind)
	id := e.create("TestThing", `{name: {value: "a"}, count: {value: 1}, color: {value: "red"}, tags: {value: ["x"]}}`)
	var out struct {
		TestThingUpdate struct{ Object json.RawMessage }
	}
	e.ok("op", `mutation { TestThingUpdate(data: {id: "`+id+`", count: {value: null}, color: null, tags: {}, enabled: {value: true}}) { object { `+thingFields+` } } }`, &out)
	want := `{"id":"` + id + `","name":{"value":"a"},"count":{"value":null},"enabled":{"value":true},"color":{"value":null},"tags":{"value":["x"]},"config":{"value":null},"extra":{"value":null},"size":{"value":10}}`
	if string(out.TestThingUpdate.Object) != want {
		t.Errorf("TestThingUpdate answered %s, want %s", out.TestThingUpdate.Object, want)
	}
	err := e.fails("op", codeInvalidArgument, `mutation { TestThingUpdate(data: {id: "`+id+`", name: {value: null}}) { ok } }`)
	if err.Extensions.Field != "name" {
		t.Errorf("removing a required value refused %+v, want the field name", err)
	}
	e.fails("op", codeNotFound, `mutation { TestThingUpdate(data: {id: "01900000-0000-7000-8000-000000000000"}) { ok } }`)
	e.fails("op", codeNotFound, `mutation { TestThingUpdate(data: {id: "not an id"}) { ok } }`)
}

// schemaIDs returns the ids of the kinds and of their elements on e's
// branch: "IpamVLAN" and "IpamVLAN.vlan_id".
func (e *env) schemaIDs() map[string]string {
	e.t.Helper()
	var out struct {
		Schema struct {
			Kinds []struct {
				ID, Kind                  string
				Attributes, Relationships []struct{ ID, Name, DeclaredBy string }
			}
		}
	}
	e.ok("op", `{ schema { kinds { id kind attributes { id name } relationships { id name } } } }`, &out)
	ids := map[string]string{}
	for _, k := range out.Schema.Kinds {
		ids[k.Kind] = k.ID
		for _, el := range append(k.Attributes, k.Relationships...) {
			ids[k.Kind+"."+el.Name] = el.ID
		}
	}
	return ids
}

// TestRenamesAndRemovals renames a kind and an attribute by their ids and
// removes elements with state: absent through schemaLoad: the API's types,
// fields and filters follow, and the objects keep their values.
func TestRenamesAndRemovals(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	e.load(interfaces)
	site := e.site("site-a")
	vlan := e.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, role: {value: "user"}, site: {id: "`+site+`"}}`)
	ids := e.schemaIDs()

	renamed := e.load(`version: "1.0"
nodes:
  - id: ` + ids["IpamVLAN"] + `
    name: Segment
    namespace: Net
    attributes:
      - {id: ` + ids["IpamVLAN.vlan_id"] + `, name: vid, kind: Number}
`)
	var summaries []string
	for _, c := range renamed.SchemaLoad.Changed {
		summaries = append(summaries, c.Summary)
	}
	if len(summaries) != 2 || !strings.Contains(summaries[0], "namespace Ipam → Net, name VLAN → Segment") || !strings.Contains(summaries[1], "name vlan_id → vid") {
		t.Errorf("the renames changed %q", summaries)
	}
	var got struct {
		NetSegment struct {
			Count int
			Edges []struct {
				Node struct {
					ID   string
					Vid  struct{ Value int }
					Role struct{ Value string }
				}
			}
		}
	}
	e.ok("op", `{ NetSegment(vid__value: 100) { count edges { node { id vid { value } role { value } } } } }`, &got)
	if got.NetSegment.Count != 1 || got.NetSegment.Edges[0].Node.ID != vlan || got.NetSegment.Edges[0].Node.Vid.Value != 100 || got.NetSegment.Edges[0].Node.Role.Value != "user" {
		t.Errorf("after the renames, NetSegment answered %+v", got)
	}
	for _, q := range []string{`{ IpamVLAN { count } }`, `{ NetSegment { edges { node { vlan_id { value } } } } }`, `mutation { IpamVLANCreate(data: {}) { ok } }`} {
		e.fails("op", codeInvalidArgument, q)
	}
	// The uniqueness constraint followed the renames.
	err := e.fails("op", codeConflict, `mutation { NetSegmentCreate(data: {name: {value: "again"}, vid: {value: 100}, site: {id: "`+site+`"}}) { ok } }`)
	if err.Message != "Violates uniqueness constraint 'site-vid'" {
		t.Errorf("a duplicate after the renames refused %q", err.Message)
	}

	removed := e.load(`version: "1.0"
nodes:
  - name: Segment
    namespace: Net
    attributes:
      - {name: role, state: absent}
  - {name: Interface, namespace: Dcim, state: absent}
`)
	if n := len(removed.SchemaLoad.Removed); n != 3 {
		t.Errorf("state: absent removed %+v, want role, DcimInterface and its speed", removed.SchemaLoad.Removed)
	}
	e.fails("op", codeInvalidArgument, `{ NetSegment { edges { node { role { value } } } } }`)
	e.fails("op", codeInvalidArgument, `{ DcimInterface { count } }`)
	// An attribute added again is another attribute: the old values are gone.
	e.load(`version: "1.0"
nodes:
  - name: Segment
    namespace: Net
    attributes:
      - {name: role, kind: Text, optional: true}
`)
	res := e.query("op", `{ NetSegment { edges { node { role { value } } } } }`)
	if string(res.Data) != `{"NetSegment":{"edges":[{"node":{"role":{"value":null}}}]}}` {
		t.Errorf("an attribute removed and added again answers %s, want no value", res.body)
	}
}

// TestSchemaRefusals checks that schemaLoad refuses, changing nothing,
// the files that the branch's objects would violate (naming the object and
// the field), those that are not valid, and those whose kinds the API
// could not name.
func TestSchemaRefusals(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	v1 := e.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, site: {id: "`+siteA+`"}}`)
	v2 := e.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, site: {id: "`+siteB+`"}}`)
	before := e.schemaIDs()
	tests := []struct {
		name, file string
		want       []string
	}{
		{"a required attribute that objects lack", `version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{name: role, kind: Dropdown, choices: [{name: user}, {name: voice}]}]}
`, []string{"role", v1}},
		{"an attribute added required without a default value", `version: "1.0"
nodes:
  - {name: Site, namespace: Location, attributes: [{name: code, kind: Text}]}
`, []string{"code", siteA}},
		{"a uniqueness constraint that objects violate", `version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, uniqueness_constraints: [["site", "vlan_id__value"], ["name__value"]]}
`, []string{"name", v1, v2}},
		{"an attribute made of another kind", `version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{id: ` + before["IpamVLAN.name"] + `, name: name, kind: Number}]}
`, []string{"name", v1}},
		{"a kind removed while it has objects", `version: "1.0"
nodes:
  - {name: Site, namespace: Location, state: absent}
`, []string{"LocationSite"}},
		{"a file that is not valid", `version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{name: Bad Name, kind: Nothing}]}
`, []string{"schema: IpamVLAN", "Bad Name", "Nothing"}},
		{"a kind named as another kind's mutation answers", `version: "1.0"
nodes:
  - {name: VLANCreate, namespace: Ipam, attributes: [{name: name, kind: Text}]}
`, []string{"IpamVLANCreate: the GraphQL API would name the type of its objects IpamVLANCreate, which is already the answer of IpamVLAN's create mutation; rename the kind"}},
		{"a kind named as a type of IPAM's", `version: "1.0"
nodes:
  - {name: IP, namespace: Floating, attributes: [{name: name, kind: Text}]}
`, []string{"FloatingIP: the GraphQL API would name the type of its objects FloatingIP, which is already a type of the API's own; rename the kind"}},
	}
	for _, tt := range tests {
		err := e.fails("op", codeInvalidArgument, schemaLoad, "schema", tt.file)
		for _, w := range tt.want {
			if !strings.Contains(err.Message, w) {
				t.Errorf("%s: refused %q, which does not name %s", tt.name, err.Message, w)
			}
		}
		if err.Extensions.Field != "schema" {
			t.Errorf("%s: refused with the field %q, want schema", tt.name, err.Extensions.Field)
		}
	}
	if after := e.schemaIDs(); !maps.Equal(after, before) {
		t.Errorf("refused loads changed the schema: %v, was %v", after, before)
	}
}

// kindsSnapshot is the SDL generated from the example schema (and a node
// of its generic), as TestKindsSnapshot prints it.
const kindsSnapshot = "testdata/kinds.graphql"

// TestKindsSnapshot prints the part of the schema generated from the
// example schema, with a node that inherits from its generic: the
// types, queries and mutations that the schema without kinds
// (testdata/schema.graphql) lacks. With -update it rewrites the file.
func TestKindsSnapshot(t *testing.T) {
	e := newEnv(t)
	var base, full struct {
		Schema introspectedSchema `json:"__schema"`
	}
	e.ok("op", standardIntrospection, &base)
	e.load(schematest.Example)
	e.load(interfaces)
	e.ok("op", standardIntrospection, &full)
	got := printSDL(generatedPart(full.Schema, base.Schema))
	if *update {
		if err := os.WriteFile(kindsSnapshot, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(kindsSnapshot)
	if err != nil {
		t.Fatalf("%v: run go test ./internal/graphql -run TestKindsSnapshot -update", err)
	}
	if got != string(want) {
		t.Errorf("the generated schema is not %s (run go test ./internal/graphql -update to accept it):\n%s", kindsSnapshot, lineDiff(string(want), got))
	}
}

// generatedPart returns what s has and base has not: its types that base
// lacks, and of Query and Mutation the fields that base lacks.
func generatedPart(s, base introspectedSchema) introspectedSchema {
	baseTypes := map[string]introspectedType{}
	for _, typ := range base.Types {
		baseTypes[typ.Name] = typ
	}
	out := s
	out.Types = nil
	for _, typ := range s.Types {
		old, ok := baseTypes[typ.Name]
		switch {
		case !ok:
			out.Types = append(out.Types, typ)
		case typ.Name == "Query" || typ.Name == "Mutation":
			typ.Fields = slices.DeleteFunc(slices.Clone(typ.Fields), func(f introspectedField) bool {
				return slices.ContainsFunc(old.Fields, func(o introspectedField) bool { return o.Name == f.Name })
			})
			out.Types = append(out.Types, typ)
		}
	}
	out.Directives = nil
	return out
}

// TestRebuild loads schemas of kinds while requests run: each request is
// served one whole schema, the one before a load or the one after, the
// next request after a load the new one; and a schema of kinds that does
// not build is served without its kinds, and logged.
func TestRebuild(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	vlanID := e.schemaIDs()["IpamVLAN.vlan_id"]
	fields := func(attribute string) string {
		return strings.Join(slices.Sorted(slices.Values([]string{"id", "display_label", "name", attribute, "role", "tags", "site", "endpoints"})), " ")
	}
	whole := map[string]bool{fields("vlan_id"): true, fields("vid"): true}
	typeFields := func(res result) (string, bool) {
		var out struct {
			Type *struct{ Fields []struct{ Name string } } `json:"__type"`
		}
		if len(res.Errors) > 0 || json.Unmarshal(res.Data, &out) != nil || out.Type == nil {
			return "", false
		}
		var names []string
		for _, f := range out.Type.Fields {
			names = append(names, f.Name)
		}
		slices.Sort(names)
		return strings.Join(names, " "), true
	}
	const query = `{ __type(name: "IpamVLAN") { fields { name } } IpamVLAN { count } pools { name } }`

	done := make(chan struct{})
	failures := make(chan string, 100)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				res := e.query("op", query)
				if got, ok := typeFields(res); !ok || !whole[got] {
					failures <- string(res.body)
				}
			}
		})
	}
	for i := range 10 {
		name := []string{"vid", "vlan_id"}[i%2]
		e.load(`version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{id: ` + vlanID + `, name: ` + name + `, kind: Number}]}
`)
		if got, _ := typeFields(e.query("op", query)); got != fields(name) {
			t.Errorf("after renaming vlan_id to %s, the next request is served the fields %q", name, got)
		}
	}
	close(done)
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Errorf("a request during the loads answered %s", f)
	}

	e.handler.schemas.build = func(schema.Schema) (*engine.Schema, error) {
		return nil, errors.New("a schema of kinds that does not build")
	}
	e.load(`version: "1.0"
nodes:
  - {name: VLAN, namespace: Ipam, attributes: [{name: mtu, kind: Number, optional: true}]}
`)
	res := e.query("op", `{ __type(name: "IpamVLAN") { name } pools { name } }`)
	if string(res.Data) != `{"__type":null,"pools":[]}` {
		t.Errorf("with a schema of kinds that does not build, the API answered %s, want it without its kinds", res.body)
	}
	if !strings.Contains(e.logs.String(), "does not build") {
		t.Errorf("a schema of kinds that does not build was not logged:\n%s", e.logs)
	}
}
