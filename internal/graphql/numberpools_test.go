package graphql

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// vlanSchema is IpamVLAN, the kind whose vlan_id pools allocate, with a
// required site relationship of cardinality one; its role is required,
// with a default, so that a pool may be scoped by site and role.
const vlanSchema = `version: "1.0"
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
      - {name: role, kind: Dropdown, choices: [{name: user}, {name: voice}], default_value: user}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
`

// Infrahub's documents of allocation scopes, word for word: <SITE-A-ID>
// and <POOL-ID> stand for the ids the tests substitute.
const (
	seedAllocate = `mutation {
IpamVLANCreate(
data: {
name: {value: "users-site-a"}
site: {id: "<SITE-A-ID>"}
vlan_id: {from_pool: {id: "<POOL-ID>"}}
}
) {
ok
object {
vlan_id {
value
}
}
}
}`
	// seedReallocate is value: null with the pool, in an update.
	seedReallocate = `vlan_id: {value: null, from_pool: {id: "<POOL-ID>"}}`
	seedDivisions  = `query {
InfrahubNumberPoolDivisions(pool_id: "<POOL-ID>") {
count
divisions {
display_label
entries {
path
value
display_label
}
figures {
size
used
utilization
}
}
}
}`
	seedUtilization = `query {
InfrahubNumberPoolUtilization(
pool_id: "<POOL-ID>"
division: [{path: "site", value: "<SITE-A-ID>"}]
) {
figures {
size
used
utilization
}
}
}`
	// issuePoolCreate is the CoreNumberPoolCreate of the pool VLAN IDs per
	// site, with comments in the document.
	issuePoolCreate = `mutation {
  CoreNumberPoolCreate(data: {
    name: {value: "VLAN IDs per site"}
    node: {value: "IpamVLAN"}            # a node or a generic of the default branch's schema
    node_attribute: {value: "vlan_id"}   # a Number attribute of it
    ranges: [{start: 100, end: 199, weight: 10}, {start: 1000, end: 1999}]   # weight defaults to 1
    allocation_scope: {value: ["site"]}  # optional; fixed at creation
  }) { ok object { id display_label name { value } allocation_scope { value } ranges { start end weight } } }
}`
)

// seedDoc returns one of those documents with the ids of the pool and of
// site A.
func seedDoc(doc, pool, siteA string) string {
	return strings.NewReplacer("<POOL-ID>", pool, "<SITE-A-ID>", siteA).Replace(doc)
}

// createPool creates a number pool with data (a GraphQL input object
// literal) and returns its id.
func (e *env) createPool(data string) string {
	e.t.Helper()
	var out struct {
		CoreNumberPoolCreate struct {
			OK     bool
			Object struct{ ID string }
		}
	}
	e.ok("op", `mutation { CoreNumberPoolCreate(data: `+data+`) { ok object { id } } }`, &out)
	if a := out.CoreNumberPoolCreate; !a.OK || a.Object.ID == "" {
		e.t.Fatalf("CoreNumberPoolCreate(data: %s) answered %+v", data, a)
	}
	return out.CoreNumberPoolCreate.Object.ID
}

// fromPool is the data of a VLAN named name in site whose vlan_id comes
// from pool; more are more fields of the data.
func fromPool(pool, name, site string, more ...string) string {
	return strings.Join(append([]string{fmt.Sprintf(`name: {value: %q}, site: {id: %q}, vlan_id: {from_pool: {id: %q}}`, name, site, pool)}, more...), ", ")
}

// vlan creates a VLAN on e's branch with data (the fields of
// IpamVLANCreate's data) and returns its id and vlan_id.
func (e *env) vlan(data string) (string, int64) {
	e.t.Helper()
	var out struct {
		IpamVLANCreate struct {
			Object struct {
				ID     string
				VlanID struct{ Value int64 } `json:"vlan_id"`
			}
		}
	}
	e.ok("op", `mutation { IpamVLANCreate(data: {`+data+`}) { object { id vlan_id { value } } } }`, &out)
	return out.IpamVLANCreate.Object.ID, out.IpamVLANCreate.Object.VlanID.Value
}

// updateVLAN changes the VLAN id with data (more fields of
// IpamVLANUpdate's data) and returns its vlan_id.
func (e *env) updateVLAN(id, data string) int64 {
	e.t.Helper()
	var out struct {
		IpamVLANUpdate struct {
			Object struct {
				VlanID struct{ Value int64 } `json:"vlan_id"`
			}
		}
	}
	e.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+id+`", `+data+`}) { object { vlan_id { value } } } }`, &out)
	return out.IpamVLANUpdate.Object.VlanID.Value
}

// figures are the figures of the usage queries.
type figures struct {
	Size        int64
	Used        int64
	Utilization float64
}

// check fails the test unless f are size numbers with used of them held.
func (f figures) check(t *testing.T, what string, size, used int64) {
	t.Helper()
	want := 100 * float64(used) / float64(size)
	if f.Size != size || f.Used != used || math.Abs(f.Utilization-want) > 1e-9 {
		t.Errorf("%s: figures %+v, want size %d, used %d, utilization %g", what, f, size, used, want)
	}
}

// TestNumberPoolSeedDocuments runs those documents word for word, on
// /graphql and on /graphql/<branch>: the pool created by issuePoolCreate,
// VLANs allocated in site A and site B, the number reserved on every
// branch, value: null reallocating, and the queries of divisions and
// figures, the same on both paths.
func TestNumberPoolSeedDocuments(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	e.branchMutation("Create", "feature")
	b := e.at("feature")

	res := e.query("op", issuePoolCreate)
	var created struct {
		CoreNumberPoolCreate struct {
			Object struct{ ID string }
		}
	}
	if err := json.Unmarshal(res.Data, &created); err != nil || len(res.Errors) > 0 {
		t.Fatalf("CoreNumberPoolCreate answered %s", res.body)
	}
	pool := created.CoreNumberPoolCreate.Object.ID
	want := `{"CoreNumberPoolCreate":{"ok":true,"object":{"id":"` + pool + `","display_label":"VLAN IDs per site","name":{"value":"VLAN IDs per site"},` +
		`"allocation_scope":{"value":["site"]},"ranges":[{"start":100,"end":199,"weight":10},{"start":1000,"end":1999,"weight":1}]}}}`
	if string(res.Data) != want {
		t.Errorf("CoreNumberPoolCreate answered\n%s\nwant\n%s", res.Data, want)
	}

	allocated := func(on *env, site string) string {
		t.Helper()
		res := on.query("op", seedDoc(seedAllocate, pool, site))
		if len(res.Errors) > 0 {
			t.Fatalf("IpamVLANCreate with from_pool on %s answered %s", on.path, res.body)
		}
		return string(res.Data)
	}
	answer := func(n int) string {
		return fmt.Sprintf(`{"IpamVLANCreate":{"ok":true,"object":{"vlan_id":{"value":%d}}}}`, n)
	}
	for _, step := range []struct {
		on   *env
		site string
		want int
	}{{e, siteA, 100}, {e, siteA, 101}, {e, siteB, 100}, {b, siteA, 102}, {b, siteB, 101}, {e, siteB, 102}} {
		if got := allocated(step.on, step.site); got != answer(step.want) {
			t.Errorf("IpamVLANCreate with from_pool on %q in %s answered %s, want %s", step.on.path, step.site, got, answer(step.want))
		}
	}

	// value: null with the pool gives the VLAN the lowest free number of
	// its new site, and frees its old one.
	moved, _ := e.vlan(fromPool(pool, "moving", siteA))
	got := e.updateVLAN(moved, `site: {id: "`+siteB+`"}, `+seedDoc(seedReallocate, pool, siteA))
	if got != 103 {
		t.Errorf("moved to site-b with value: null, the VLAN holds %d, want 103", got)
	}
	if _, n := e.vlan(fromPool(pool, "again", siteA)); n != 103 {
		t.Errorf("after the move, site-a gave %d, want 103, freed by the move", n)
	}

	var divisions struct {
		InfrahubNumberPoolDivisions struct {
			Count     int
			Divisions []struct {
				DisplayLabel string `json:"display_label"`
				Entries      []struct{ Path, Value, DisplayLabel string }
				Figures      figures
			}
		}
	}
	var first string
	for i, on := range []*env{e, b} {
		res := on.query("op", seedDoc(seedDivisions, pool, siteA))
		if len(res.Errors) > 0 || json.Unmarshal(res.Data, &divisions) != nil {
			t.Fatalf("InfrahubNumberPoolDivisions on %q answered %s", on.path, res.body)
		}
		if i == 0 {
			first = string(res.Data)
		} else if string(res.Data) != first {
			t.Errorf("InfrahubNumberPoolDivisions answers %s on /graphql/feature, %s on /graphql", res.Data, first)
		}
	}
	d := divisions.InfrahubNumberPoolDivisions
	if d.Count != 2 || len(d.Divisions) != 2 || d.Divisions[0].DisplayLabel != "site-a" || d.Divisions[1].DisplayLabel != "site-b" ||
		d.Divisions[0].Entries[0].Path != "site" || d.Divisions[0].Entries[0].Value != siteA || d.Divisions[1].Entries[0].Value != siteB {
		t.Fatalf("InfrahubNumberPoolDivisions answered %s", first)
	}
	// site-a: 100, 101, 102 (the branch's) and 103; site-b: 100, 101 (the
	// branch's), 102 and 103.
	d.Divisions[0].Figures.check(t, "site-a", 1100, 4)
	d.Divisions[1].Figures.check(t, "site-b", 1100, 4)

	for _, on := range []*env{e, b} {
		var util struct {
			InfrahubNumberPoolUtilization struct{ Figures figures }
		}
		on.ok("op", seedDoc(seedUtilization, pool, siteA), &util)
		util.InfrahubNumberPoolUtilization.Figures.check(t, "InfrahubNumberPoolUtilization on "+on.path, 1100, 4)
	}
}

// TestNumberPoolDivisions allocates from pools scoped by site, by site and
// role, and without a scope: each division has its own numbers, two
// objects of one division never share one, ranges are tried by weight
// (ties in order), and an exhausted division is refused
// (numbers.ExhaustedError).
func TestNumberPoolDivisions(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")

	bySite := e.createPool(`{name: {value: "per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"},
		ranges: [{start: 1000, end: 1001}, {start: 100, end: 101, weight: 10}, {start: 500, end: 500, weight: 10}], allocation_scope: {value: ["site"]}}`)
	var got []int64
	for i := range 5 {
		_, n := e.vlan(fromPool(bySite, fmt.Sprint("a", i), siteA))
		got = append(got, n)
	}
	if want := []int64{100, 101, 500, 1000, 1001}; !slices.Equal(got, want) {
		t.Errorf("site-a got %v, want %v: by weight, ties in the order given, the lowest of a range first", got, want)
	}
	if _, n := e.vlan(fromPool(bySite, "b", siteB)); n != 100 {
		t.Errorf("site-b got %d, want 100: site-a's numbers are its own", n)
	}
	err := e.fails("op", codePoolExhausted, `mutation { IpamVLANCreate(data: {`+fromPool(bySite, "a5", siteA)+`}) { ok } }`)
	if want := "pool per site has no free number in site-a"; err.Message != want {
		t.Errorf("the exhausted division refused %q, want %q", err.Message, want)
	}

	bySiteRole := e.createPool(`{name: {value: "per site and role"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"},
		start_range: {value: 10}, end_range: {value: 11}, allocation_scope: {value: ["site", "role"]}}`)
	for _, tt := range []struct {
		site, role string
		want       int64
	}{{siteA, "user", 10}, {siteA, "voice", 10}, {siteA, "user", 11}, {siteB, "user", 10}, {siteB, "voice", 10}} {
		if _, n := e.vlan(fromPool(bySiteRole, "r", tt.site, `role: {value: "`+tt.role+`"}`)); n != tt.want {
			t.Errorf("a %s VLAN in %s got %d, want %d", tt.role, tt.site, n, tt.want)
		}
	}
	err = e.fails("op", codePoolExhausted, `mutation { IpamVLANCreate(data: {`+fromPool(bySiteRole, "r", siteA)+`}) { ok } }`)
	if want := "pool per site and role has no free number in site-a / user"; err.Message != want {
		t.Errorf("the exhausted division refused %q, want %q", err.Message, want)
	}

	global := e.createPool(`{name: {value: "global"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 7, end: 8}]}`)
	for _, want := range []int64{7, 8} {
		if _, n := e.vlan(fromPool(global, "g", []string{siteA, siteB}[want%2])); n != want {
			t.Errorf("the pool without a scope gave %d, want %d", n, want)
		}
	}
	err = e.fails("op", codePoolExhausted, `mutation { IpamVLANCreate(data: {`+fromPool(global, "g", siteA)+`}) { ok } }`)
	if want := "pool global has no free number"; err.Message != want {
		t.Errorf("the exhausted pool refused %q, want %q", err.Message, want)
	}
}

// TestNumberPoolMoves moves and changes VLANs: a VLAN moved keeps its
// number, unchecked; from_pool alone keeps it; value: null with the pool
// gives it the lowest free number of its new division and frees the old
// one; numbers given are recorded even when another VLAN of the division
// holds them, and the pool skips them; deleting a VLAN frees its number.
func TestNumberPoolMoves(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	pool := e.createPool(`{name: {value: "per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 100}, end_range: {value: 199}, allocation_scope: {value: ["site"]}}`)
	v1, _ := e.vlan(fromPool(pool, "v1", siteA))
	e.vlan(fromPool(pool, "v2", siteB))

	if n := e.updateVLAN(v1, `site: {id: "`+siteB+`"}`); n != 100 {
		t.Errorf("moved to site-b, v1 holds %d, want its 100", n)
	}
	if n := e.updateVLAN(v1, `vlan_id: {from_pool: {id: "`+pool+`"}}`); n != 100 {
		t.Errorf("given from_pool alone, v1 holds %d, want its 100", n)
	}
	if n := e.updateVLAN(v1, `vlan_id: {value: null, from_pool: {id: "`+pool+`"}}`); n != 101 {
		t.Errorf("given value: null and the pool, v1 holds %d, want 101, site-b's lowest free number", n)
	}
	v3, n := e.vlan(fromPool(pool, "v3", siteA))
	if n != 100 {
		t.Errorf("site-a gave %d, want 100, freed by v1", n)
	}

	e.vlan(`name: {value: "given-1"}, site: {id: "` + siteA + `"}, vlan_id: {value: 101}`)
	e.vlan(`name: {value: "given-2"}, site: {id: "` + siteA + `"}, vlan_id: {value: 101}`)
	if _, n := e.vlan(fromPool(pool, "v4", siteA)); n != 102 {
		t.Errorf("site-a gave %d, want 102: the 101 given twice is taken", n)
	}
	var allocations struct {
		InfrahubNumberPoolAllocations struct {
			Count       int
			Allocations []struct {
				Value  int64
				Holder struct {
					DisplayLabel string `json:"display_label"`
				}
			}
		}
	}
	e.ok("op", `{ InfrahubNumberPoolAllocations(pool_id: "`+pool+`", division: [{path: "site", value: "`+siteA+`"}]) { count allocations { value holder { display_label } } } }`, &allocations)
	var held []string
	for _, a := range allocations.InfrahubNumberPoolAllocations.Allocations {
		held = append(held, fmt.Sprint(a.Value, " ", a.Holder.DisplayLabel))
	}
	slices.Sort(held)
	if want := []string{"100 v3", "101 given-1", "101 given-2", "102 v4"}; !slices.Equal(held, want) || allocations.InfrahubNumberPoolAllocations.Count != 4 {
		t.Errorf("site-a holds %q (count %d), want %q", held, allocations.InfrahubNumberPoolAllocations.Count, want)
	}

	e.ok("op", `mutation { IpamVLANDelete(data: {id: "`+v3+`"}) { ok } }`, nil)
	if _, n := e.vlan(fromPool(pool, "v5", siteA)); n != 100 {
		t.Errorf("after v3's deletion, site-a gave %d, want its 100", n)
	}
}

// TestNumberPoolIdentifier asks a pool under an identifier: asking again
// under it, in the same division, gives the same number, which
// InfrahubResourcePoolAllocated shows with the identifier; a number taken
// without one is under the object's id.
func TestNumberPoolIdentifier(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	pool := e.createPool(`{name: {value: "per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 100}, end_range: {value: 199}, allocation_scope: {value: ["site"]}}`)
	keyed := func(name, site string) string {
		return `name: {value: "` + name + `"}, site: {id: "` + site + `"}, vlan_id: {from_pool: {id: "` + pool + `", identifier: "uplink"}}`
	}
	x, n := e.vlan(keyed("x", siteA))
	if n != 100 {
		t.Errorf("x was given %d, want 100", n)
	}
	z, _ := e.vlan(fromPool(pool, "z", siteA))
	if _, n := e.vlan(keyed("y", siteA)); n != 100 {
		t.Errorf("asked again under the identifier uplink, site-a gave %d, want x's 100", n)
	}
	if _, n := e.vlan(keyed("b", siteB)); n != 100 {
		t.Errorf("asked under the identifier uplink in site-b, the pool gave %d, want 100", n)
	}
	var allocated struct {
		InfrahubResourcePoolAllocated struct {
			Edges []struct{ Node allocatedNode }
		}
	}
	e.ok("op", `{ InfrahubResourcePoolAllocated(pool_id: "`+pool+`") { edges { node { id identifier } } } }`, &allocated)
	identifiers := map[string]string{}
	for _, edge := range allocated.InfrahubResourcePoolAllocated.Edges {
		identifiers[edge.Node.ID] = deref(edge.Node.Identifier)
	}
	if identifiers[x] != "uplink" || identifiers[z] != z {
		t.Errorf("InfrahubResourcePoolAllocated shows the identifiers %v, want uplink for x %s, its id for z %s", identifiers, x, z)
	}
}

// TestNumberPoolKind creates, lists, changes and deletes pools through the
// built-in kind CoreNumberPool, the same on every branch, and checks the
// refusals of the edge and of the domain by their codes.
func TestNumberPoolKind(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	site := e.site("site-a")
	e.branchMutation("Create", "feature")
	b := e.at("feature")

	var created struct {
		CoreNumberPoolCreate struct{ Object json.RawMessage }
	}
	b.ok("op", `mutation { CoreNumberPoolCreate(data: {name: {value: "short"}, description: {value: "one range"}, node: {value: "IpamVLAN"},
		node_attribute: {value: "vlan_id"}, start_range: {value: 5}, end_range: {value: 9}}) { object { `+poolFields+` } } }`, &created)
	var short struct{ ID string }
	json.Unmarshal(created.CoreNumberPoolCreate.Object, &short)
	want := `{"id":"` + short.ID + `","display_label":"short","name":{"value":"short"},"description":{"value":"one range"},"node":{"value":"IpamVLAN"},` +
		`"node_attribute":{"value":"vlan_id"},"start_range":{"value":5},"end_range":{"value":9},"allocation_scope":{"value":[]},"ranges":[{"start":5,"end":9,"weight":1}]}`
	if string(created.CoreNumberPoolCreate.Object) != want {
		t.Errorf("CoreNumberPoolCreate with start_range and end_range answered\n%s\nwant\n%s", created.CoreNumberPoolCreate.Object, want)
	}
	other := e.createPool(`{name: {value: "long"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 100, end: 199}, {start: 20, end: 29, weight: 3}], allocation_scope: {value: ["site"]}}`)

	list := func(on *env, args string) string {
		t.Helper()
		res := on.query("op", `{ CoreNumberPool`+args+` { count edges { node { id display_label start_range { value } end_range { value } } } } }`)
		if len(res.Errors) > 0 {
			t.Fatalf("CoreNumberPool%s answered %s", args, res.body)
		}
		return string(res.Data)
	}
	longNode := `{"node":{"id":"` + other + `","display_label":"long","start_range":{"value":20},"end_range":{"value":199}}}`
	shortNode := `{"node":{"id":"` + short.ID + `","display_label":"short","start_range":{"value":5},"end_range":{"value":9}}}`
	for args, want := range map[string]string{
		"":                                       `{"CoreNumberPool":{"count":2,"edges":[` + longNode + `,` + shortNode + `]}}`,
		`(ids: ["` + other + `"])`:               `{"CoreNumberPool":{"count":1,"edges":[` + longNode + `]}}`,
		`(name__value: "short")`:                 `{"CoreNumberPool":{"count":1,"edges":[` + shortNode + `]}}`,
		`(limit: 1, offset: 1)`:                  `{"CoreNumberPool":{"count":2,"edges":[` + shortNode + `]}}`,
		`(name__value: "none", limit: 1000)`:     `{"CoreNumberPool":{"count":0,"edges":[]}}`,
		`(ids: ["` + short.ID + `"], offset: 5)`: `{"CoreNumberPool":{"count":1,"edges":[]}}`,
	} {
		for _, on := range []*env{e, b} {
			if got := list(on, args); got != want {
				t.Errorf("CoreNumberPool%s on %q answered\n%s\nwant\n%s", args, on.path, got, want)
			}
		}
	}

	var updated struct {
		CoreNumberPoolUpdate struct{ Object json.RawMessage }
	}
	e.ok("op", `mutation { CoreNumberPoolUpdate(data: {id: "`+short.ID+`", name: {value: "shorter"}, description: {value: null}, ranges: [{start: 1, end: 2, weight: 2}, {start: 5, end: 9}]}) { object { `+poolFields+` } } }`, &updated)
	want = `{"id":"` + short.ID + `","display_label":"shorter","name":{"value":"shorter"},"description":{"value":null},"node":{"value":"IpamVLAN"},` +
		`"node_attribute":{"value":"vlan_id"},"start_range":{"value":1},"end_range":{"value":9},"allocation_scope":{"value":[]},"ranges":[{"start":1,"end":2,"weight":2},{"start":5,"end":9,"weight":1}]}`
	if string(updated.CoreNumberPoolUpdate.Object) != want {
		t.Errorf("CoreNumberPoolUpdate answered\n%s\nwant\n%s", updated.CoreNumberPoolUpdate.Object, want)
	}
	e.ok("op", `mutation { CoreNumberPoolUpdate(data: {id: "`+short.ID+`", start_range: {value: 40}, end_range: {value: 41}, node: {value: "IpamVLAN"}, allocation_scope: {value: []}}) { object { `+poolFields+` } } }`, &updated)
	if !strings.Contains(string(updated.CoreNumberPoolUpdate.Object), `"ranges":[{"start":40,"end":41,"weight":1}]`) {
		t.Errorf("CoreNumberPoolUpdate with start_range and end_range answered %s", updated.CoreNumberPoolUpdate.Object)
	}

	vlan, _ := e.vlan(fromPool(short.ID, "v", site))
	var deleted struct {
		CoreNumberPoolDelete struct{ Object struct{ ID string } }
	}
	e.ok("op", `mutation { CoreNumberPoolDelete(data: {id: "`+short.ID+`"}) { ok object { id } } }`, &deleted)
	if deleted.CoreNumberPoolDelete.Object.ID != short.ID {
		t.Errorf("CoreNumberPoolDelete answered %+v", deleted)
	}
	var kept struct {
		IpamVLAN struct {
			Edges []struct {
				Node struct {
					VlanID struct{ Value int64 } `json:"vlan_id"`
				}
			}
		}
	}
	e.ok("op", `{ IpamVLAN(ids: ["`+vlan+`"]) { edges { node { vlan_id { value } } } } }`, &kept)
	if len(kept.IpamVLAN.Edges) != 1 || kept.IpamVLAN.Edges[0].Node.VlanID.Value != 40 {
		t.Errorf("after its pool's deletion, the VLAN is %+v, want it holding 40", kept)
	}
	if got := list(b, ""); got != `{"CoreNumberPool":{"count":1,"edges":[`+longNode+`]}}` {
		t.Errorf("after the deletion on main, the branch lists %s", got)
	}

	gone := "number pool " + short.ID + " not found"
	refusals := []struct {
		code, query, message string
	}{
		{codeNotFound, `mutation { CoreNumberPoolDelete(data: {id: "` + short.ID + `"}) { ok } }`, gone},
		{codeNotFound, `mutation { CoreNumberPoolUpdate(data: {id: "` + short.ID + `", name: {value: "x"}}) { ok } }`, gone},
		{codeNotFound, `{ InfrahubNumberPoolDivisions(pool_id: "` + short.ID + `") { count } }`, gone},
		{codeNotFound, `mutation { IpamVLANCreate(data: {` + fromPool(short.ID, "w", site) + `}) { ok } }`, gone},
		{codeConflict, `mutation { CoreNumberPoolCreate(data: {name: {value: "long"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}, end_range: {value: 2}}) { ok } }`, "a number pool named long exists"},
		{codeInvalidArgument, `mutation { CoreNumberPoolCreate(data: {name: {value: "both"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 1, end: 2}], start_range: {value: 1}, end_range: {value: 2}}) { ok } }`,
			"ranges: give ranges, or start_range with end_range, not both"},
		{codeInvalidArgument, `mutation { CoreNumberPoolCreate(data: {name: {value: "half"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}}) { ok } }`,
			"end_range: start_range and end_range go together; give both"},
		{codeInvalidArgument, `mutation { CoreNumberPoolCreate(data: {name: {value: "text"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 1, end: "2"}]}) { ok } }`,
			"ranges[0].end: expected a whole number"},
		{codeInvalidArgument, `mutation { CoreNumberPoolCreate(data: {name: {value: "overlap"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 100, end: 199}, {start: 150, end: 250}]}) { ok } }`, "ranges 100-199 and 150-250 overlap"},
		{codeInvalidArgument, `mutation { CoreNumberPoolCreate(data: {name: {value: "text"}, node: {value: "IpamVLAN"}, node_attribute: {value: "name"}, start_range: {value: 1}, end_range: {value: 2}}) { ok } }`,
			"node_attribute: IpamVLAN.name is of kind Text; a number pool allocates a Number attribute"},
		{codeInvalidArgument, `mutation { CoreNumberPoolCreate(data: {name: {value: "nothing"}, node: {value: "IpamNothing"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}, end_range: {value: 2}}) { ok } }`,
			"node: IpamNothing is not a kind of the default branch's schema"},
		{codeInvalidArgument, `mutation { CoreNumberPoolUpdate(data: {id: "` + other + `", ranges: []}) { ok } }`, "ranges is empty; a number pool needs at least one start-end range"},
		{codeInvalidArgument, `mutation { CoreNumberPoolUpdate(data: {id: "` + other + `", name: {value: null}}) { ok } }`, "name is required, such as VLAN IDs per site"},
		{codeInvalidArgument, `mutation { CoreNumberPoolUpdate(data: {id: "` + other + `", node_attribute: {value: "name"}}) { ok } }`, "node_attribute can't be changed after the pool is created"},
		{codeInvalidArgument, `{ CoreNumberPool(limit: 0) { count } }`, "limit must be from 1 to 1000, got 0"},
	}
	for _, tt := range refusals {
		err := e.fails("op", tt.code, tt.query)
		if err.Message != tt.message {
			t.Errorf("%s\nrefused %q, want %q", tt.query, err.Message, tt.message)
		}
	}
	// The pools' names are the API's own: no kind takes them.
	err := e.fails("op", codeInvalidArgument, schemaLoad, "schema", "version: \"1.0\"\nnodes:\n  - {name: PoolRange, namespace: Number, attributes: [{name: name, kind: Text}]}\n")
	if want := "NumberPoolRange: the GraphQL API would name the type of its objects NumberPoolRange, which is already a type of the API's own; rename the kind"; !strings.HasPrefix(err.Message, want) {
		t.Errorf("a kind NumberPoolRange was refused %q, want %q…", err.Message, want)
	}
	// Tenants are served no number pools.
	for _, q := range []string{`{ CoreNumberPool { count } }`, `{ InfrahubNumberPoolDivisions(pool_id: "` + other + `") { count } }`,
		`mutation { CoreNumberPoolDelete(data: {id: "` + other + `"}) { ok } }`} {
		res := e.query("acme", q)
		if res.Data != nil || res.code(t) != codeInvalidArgument || !strings.Contains(res.Errors[0].Message, "Cannot query field") {
			t.Errorf("a tenant's %s answered %s, want the field absent", q, res.body)
		}
	}
	if got := list(e, ""); !strings.Contains(got, `"count":1`) {
		t.Errorf("the refusals changed the pools: %s", got)
	}
}

// poolFields selects every field of a pool.
const poolFields = `id display_label name { value } description { value } node { value } node_attribute { value } start_range { value } end_range { value } allocation_scope { value } ranges { start end weight }`

// scopedSchema has a kind with an element of every sort a scope refuses,
// a generic whose inheritors declare an element of their own, and a kind
// whose number is unique.
const scopedSchema = `version: "1.0"
generics:
  - name: Endpoint
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
      - {name: port, kind: Number}
nodes:
  - name: Interface
    namespace: Dcim
    inherit_from: [DcimEndpoint]
    attributes:
      - {name: speed, kind: Number}
  - name: Scoped
    namespace: Test
    attributes:
      - {name: name, kind: Text}
      - {name: number, kind: Number}
      - {name: note, kind: Text, optional: true}
      - {name: tags, kind: List}
      - {name: config, kind: JSON}
      - {name: extra, kind: Any}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
      - {name: home, peer: LocationSite, cardinality: one, optional: true}
      - {name: peers, peer: LocationSite, cardinality: many, optional: false}
  - name: Unique
    namespace: Test
    attributes:
      - {name: number, kind: Number, unique: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
`

// TestNumberPoolScopeRefusals checks every refusal of a scope, of a change
// of scope and of a division, by its code and exact text.
func TestNumberPoolScopeRefusals(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	e.load(scopedSchema)
	site := e.site("site-a")
	pool := func(kind, attribute, scope string) string {
		return `mutation { CoreNumberPoolCreate(data: {name: {value: "p"}, node: {value: "` + kind + `"}, node_attribute: {value: "` + attribute + `"},
			start_range: {value: 1}, end_range: {value: 9}, allocation_scope: {value: ` + scope + `}}) { ok } }`
	}
	for _, tt := range []struct{ kind, attribute, scope, message string }{
		{"TestScoped", "number", `["rack"]`, `allocation_scope: "rack" is not an attribute or a relationship of TestScoped`},
		{"DcimEndpoint", "port", `["speed"]`, `allocation_scope: "speed" is not declared on the generic DcimEndpoint`},
		{"TestScoped", "number", `["site__value"]`, `allocation_scope: "site__value" is a path; write the name, site`},
		{"TestScoped", "number", `["note"]`, `allocation_scope: "note" is optional; a scope element must be required on TestScoped`},
		{"TestScoped", "number", `["home"]`, `allocation_scope: "home" is optional; a scope element must be required on TestScoped`},
		{"TestScoped", "number", `["peers"]`, `allocation_scope: "peers" has cardinality many; a scope element must be a relationship of cardinality one`},
		{"TestScoped", "number", `["tags"]`, `allocation_scope: "tags" is of kind List; a scope element must hold a single scalar value`},
		{"TestScoped", "number", `["config"]`, `allocation_scope: "config" is of kind JSON; a scope element must hold a single scalar value`},
		{"TestScoped", "number", `["extra"]`, `allocation_scope: "extra" is of kind Any; a scope element must hold a single scalar value`},
		{"TestScoped", "number", `["number"]`, `allocation_scope: "number" is the attribute the pool allocates; it cannot divide the pool`},
		{"TestScoped", "number", `["site", "name", "site"]`, `allocation_scope: "site" appears more than once`},
		{"TestUnique", "number", `["site"]`, `TestUnique.number is unique; a globally unique number cannot be allocated per division`},
	} {
		err := e.fails("op", codeInvalidArgument, pool(tt.kind, tt.attribute, tt.scope))
		if err.Message != tt.message {
			t.Errorf("a pool of %s.%s scoped by %s was refused %q, want %q", tt.kind, tt.attribute, tt.scope, err.Message, tt.message)
		}
	}
	e.ok("op", pool("DcimEndpoint", "port", `["name"]`), nil)

	scoped := e.createPool(`{name: {value: "VLAN IDs per site and role"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}, end_range: {value: 9}, allocation_scope: {value: ["site", "role"]}}`)
	unscoped := e.createPool(`{name: {value: "VLAN IDs"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}, end_range: {value: 9}}`)
	for _, scope := range []string{`{value: ["site"]}`, `{value: ["role", "site"]}`, `{value: []}`, `null`} {
		err := e.fails("op", codeInvalidArgument, `mutation { CoreNumberPoolUpdate(data: {id: "`+scoped+`", name: {value: "renamed"}, allocation_scope: `+scope+`}) { ok } }`)
		if want := "allocation_scope can't be changed after the pool is created"; err.Message != want {
			t.Errorf("changing the scope to %s was refused %q, want %q", scope, err.Message, want)
		}
	}
	err := e.fails("op", codeInvalidArgument, `mutation { CoreNumberPoolUpdate(data: {id: "`+unscoped+`", allocation_scope: {value: ["site"]}}) { ok } }`)
	if want := "allocation_scope can't be changed after the pool is created"; err.Message != want {
		t.Errorf("giving a scope to a pool without one was refused %q, want %q", err.Message, want)
	}
	var same struct {
		CoreNumberPoolUpdate struct {
			Object struct {
				DisplayLabel string `json:"display_label"`
			}
		}
	}
	e.ok("op", `mutation { CoreNumberPoolUpdate(data: {id: "`+scoped+`", allocation_scope: {value: ["site", "role"]}}) { object { display_label } } }`, &same)
	if same.CoreNumberPoolUpdate.Object.DisplayLabel != "VLAN IDs per site and role" {
		t.Errorf("a refused update changed the pool, or the scope given as it is was refused: %+v", same)
	}

	utilization := func(pool, division string) string {
		return `{ InfrahubNumberPoolUtilization(pool_id: "` + pool + `", division: ` + division + `) { figures { size } } }`
	}
	for _, tt := range []struct{ pool, division, message string }{
		{scoped, `[{path: "site", value: "` + site + `"}]`, "pool VLAN IDs per site and role divides its numbers by site, role; the division has no value for role"},
		{scoped, `[]`, "pool VLAN IDs per site and role divides its numbers by site, role; the division has no value for site"},
		{scoped, `[{path: "site", value: "` + site + `"}, {path: "role", value: "user"}, {path: "site", value: "` + site + `"}]`, `the division entry "site" is given twice`},
		{scoped, `[{path: "site", value: "` + site + `"}, {path: "role", value: "user"}, {path: "rack", value: "r1"}]`, `"rack" is not a scope element of pool VLAN IDs per site and role`},
		{unscoped, `[{path: "site", value: "` + site + `"}]`, "pool VLAN IDs has no allocation scope; give no division"},
	} {
		err := e.fails("op", codeInvalidArgument, utilization(tt.pool, tt.division))
		if err.Message != tt.message {
			t.Errorf("InfrahubNumberPoolUtilization(division: %s) was refused %q, want %q", tt.division, err.Message, tt.message)
		}
	}
	var util struct {
		InfrahubNumberPoolUtilization struct{ Figures figures }
	}
	e.ok("op", utilization(unscoped, "null"), &util)
	util.InfrahubNumberPoolUtilization.Figures.check(t, "the pool without a scope", 9, 0)
}

// TestNumberPoolSchemaGuards loads schema changes that a pool's scope
// forbids, on main and on a branch: each refused word for word, the
// schema unchanged; and renames a scope element, which the pool follows.
func TestNumberPoolSchemaGuards(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	site := e.site("site-a")
	pool := e.createPool(`{name: {value: "Guarded"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}, end_range: {value: 9}, allocation_scope: {value: ["site", "role"]}}`)
	e.branchMutation("Create", "feature")
	ids := e.schemaIDs()
	vlanNode := func(body string) string {
		return "version: \"1.0\"\nnodes:\n  - {name: VLAN, namespace: Ipam, " + body + "}\n"
	}
	for _, tt := range []struct{ name, file, message string }{
		{"remove an element", vlanNode(`relationships: [{name: site, state: absent}]`),
			"pool Guarded divides its numbers by IpamVLAN.site; a scope element cannot be removed while the pool exists"},
		{"make an element optional", vlanNode(`attributes: [{name: role, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}]}]`),
			"pool Guarded divides its numbers by IpamVLAN.role; a scope element must stay required"},
		{"a relationship element to cardinality many", vlanNode(`relationships: [{name: site, peer: LocationSite, cardinality: many, optional: false}]`),
			"pool Guarded divides its numbers by IpamVLAN.site; a scope element must stay a relationship of cardinality one"},
		{"an attribute element to List", vlanNode(`attributes: [{name: role, kind: List}]`),
			"pool Guarded divides its numbers by IpamVLAN.role; a scope element must hold a single scalar value"},
		{"the allocated attribute unique", vlanNode(`attributes: [{name: vlan_id, kind: Number, unique: true}]`),
			"pool Guarded allocates IpamVLAN.vlan_id per division; a globally unique number cannot be allocated per division"},
		{"rename the kind", "version: \"1.0\"\nnodes:\n  - {id: " + ids["IpamVLAN"] + ", name: Segment, namespace: Ipam}\n",
			"pool Guarded allocates numbers for IpamVLAN; the kind cannot be renamed while the pool exists"},
		{"rename the kind's namespace", "version: \"1.0\"\nnodes:\n  - {id: " + ids["IpamVLAN"] + ", name: VLAN, namespace: Net}\n",
			"pool Guarded allocates numbers for IpamVLAN; the kind cannot be renamed while the pool exists"},
		{"rename the allocated attribute", vlanNode(`attributes: [{id: ` + ids["IpamVLAN.vlan_id"] + `, name: vid, kind: Number}]`),
			"pool Guarded allocates IpamVLAN.vlan_id; the attribute cannot be renamed while the pool exists"},
		{"inherit from another generic", "version: \"1.0\"\ngenerics:\n  - {name: Thing, namespace: Base, attributes: [{name: label, kind: Text, optional: true}]}\nnodes:\n  - {name: VLAN, namespace: Ipam, inherit_from: [BaseThing]}\n",
			"pool Guarded allocates numbers for IpamVLAN; the kind cannot inherit from another generic while the pool exists"},
	} {
		for _, on := range []*env{e, e.at("feature")} {
			err := on.fails("op", codeInvalidArgument, schemaLoad, "schema", tt.file)
			if err.Message != tt.message {
				t.Errorf("%s on %q was refused %q, want %q", tt.name, on.path, err.Message, tt.message)
			}
		}
	}
	for _, on := range []*env{e, e.at("feature")} {
		if after := on.schemaIDs(); !maps.Equal(after, ids) {
			t.Errorf("refused loads changed the schema of %q: %v, was %v", on.path, after, ids)
		}
	}

	// Renaming a scope element is allowed; the pool shows the new name.
	e.vlan(fromPool(pool, "v", site))
	e.load(vlanNode(`relationships: [{id: ` + ids["IpamVLAN.site"] + `, name: location, peer: LocationSite, cardinality: one, optional: false}]`))
	var got struct {
		CoreNumberPool struct {
			Edges []struct {
				Node struct {
					AllocationScope struct{ Value []string } `json:"allocation_scope"`
				}
			}
		}
		InfrahubNumberPoolDivisions struct {
			Divisions []struct{ Entries []struct{ Path string } }
		}
	}
	e.ok("op", `{ CoreNumberPool(ids: ["`+pool+`"]) { edges { node { allocation_scope { value } } } }
		InfrahubNumberPoolDivisions(pool_id: "`+pool+`") { divisions { entries { path } } } }`, &got)
	if len(got.CoreNumberPool.Edges) != 1 || !slices.Equal(got.CoreNumberPool.Edges[0].Node.AllocationScope.Value, []string{"location", "role"}) ||
		len(got.InfrahubNumberPoolDivisions.Divisions) != 1 || got.InfrahubNumberPoolDivisions.Divisions[0].Entries[0].Path != "location" {
		t.Errorf("after site was renamed location, the pool answers %+v", got)
	}
	if _, n := e.vlan(`name: {value: "w"}, location: {id: "` + site + `"}, vlan_id: {from_pool: {id: "` + pool + `"}}`); n != 2 {
		t.Errorf("after the rename, the division gave %d, want 2", n)
	}
}

// TestNumberPoolBranches checks the pools across branches: a number taken
// on a branch is reserved on main; a VLAN counts in its division on each
// branch that shows it there; allocating on a branch whose schema lacks a
// scope element is refused word for word; merging two branches
// leaves a duplicate in a division, unless a uniqueness constraint refuses
// the merge.
func TestNumberPoolBranches(t *testing.T) {
	for _, constrained := range []bool{false, true} {
		t.Run(fmt.Sprint("constraint=", constrained), func(t *testing.T) {
			e := newEnv(t)
			if constrained {
				e.load(vlanSchema + "    uniqueness_constraints:\n      - [\"site\", \"vlan_id__value\"]\n")
			} else {
				e.load(vlanSchema)
			}
			siteA, siteB := e.site("site-a"), e.site("site-b")
			pool := e.createPool(`{name: {value: "per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 100}, end_range: {value: 199}, allocation_scope: {value: ["site"]}}`)
			v, _ := e.vlan(fromPool(pool, "v", siteA))
			w, _ := e.vlan(`name: {value: "w"}, site: {id: "` + siteB + `"}, vlan_id: {value: 101}`)
			e.branchMutation("Create", "renumber")
			e.branchMutation("Create", "move")
			if n := e.at("renumber").updateVLAN(w, `vlan_id: {value: null, from_pool: {id: "`+pool+`"}}`); n != 100 {
				t.Fatalf("on renumber, w was given %d, want site-b's 100", n)
			}
			e.at("move").updateVLAN(w, `site: {id: "`+siteA+`"}`)
			// On move, w holds 101 in site-a: main's next number there is 102.
			if _, n := e.vlan(fromPool(pool, "x", siteA)); n != 102 {
				t.Errorf("main's site-a gave %d, want 102 (100 is v's, 101 w's on the branch move)", n)
			}
			// Each number counts in the division of each branch that shows
			// it there: site-a holds v's 100, w's 101 on move and x's 102;
			// site-b w's 101 on main and its 100 on renumber.
			var divisions struct {
				InfrahubNumberPoolDivisions struct {
					Divisions []struct {
						DisplayLabel string `json:"display_label"`
						Figures      figures
					}
				}
			}
			e.ok("op", `{ InfrahubNumberPoolDivisions(pool_id: "`+pool+`") { divisions { display_label figures { size used utilization } } } }`, &divisions)
			if d := divisions.InfrahubNumberPoolDivisions.Divisions; len(d) != 2 || d[0].DisplayLabel != "site-a" || d[1].DisplayLabel != "site-b" {
				t.Errorf("InfrahubNumberPoolDivisions answered %+v, want site-a, then site-b", d)
			} else {
				d[0].Figures.check(t, "site-a", 100, 3)
				d[1].Figures.check(t, "site-b", 100, 2)
			}
			e.branchMutation("Merge", "renumber")
			if constrained {
				refusal := e.refusedMerge("Merge", "move")
				if !strings.Contains(refusal.Message, "site-vlan_id") {
					t.Errorf("the merge that makes a duplicate was refused %q, which does not name the constraint", refusal.Message)
				}
				return
			}
			e.branchMutation("Merge", "move")
			var allocations struct {
				InfrahubNumberPoolAllocations struct {
					Allocations []struct {
						Value  int64
						Branch string
						Holder struct{ ID string }
					}
				}
			}
			e.ok("op", `{ InfrahubNumberPoolAllocations(pool_id: "`+pool+`", division: [{path: "site", value: "`+siteA+`"}]) { allocations { value branch holder { id } } } }`, &allocations)
			var holders []string
			for _, a := range allocations.InfrahubNumberPoolAllocations.Allocations {
				if a.Value == 100 && a.Branch == "main" {
					holders = append(holders, a.Holder.ID)
				}
			}
			slices.Sort(holders)
			want := []string{v, w}
			slices.Sort(want)
			if !slices.Equal(holders, want) {
				t.Errorf("after both merges, site-a's 100 is held on main by %q, want v and w %q", holders, want)
			}
		})
	}
}

// TestNumberPoolBranchSchema allocates on a branch whose schema lacks a
// scope element of the pool: refused word for word until the branch
// is rebased.
func TestNumberPoolBranchSchema(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	site := e.site("site-a")
	e.branchMutation("Create", "old-schema")
	e.load("version: \"1.0\"\nnodes:\n  - {name: VLAN, namespace: Ipam, attributes: [{name: zone, kind: Text}]}\n")
	pool := e.createPool(`{name: {value: "per site and zone"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 1}, end_range: {value: 9}, allocation_scope: {value: ["site", "zone"]}}`)
	b := e.at("old-schema")
	err := b.fails("op", codeInvalidArgument, `mutation { IpamVLANCreate(data: {`+fromPool(pool, "v", site)+`}) { ok } }`)
	if want := `the scope element "zone" of pool per site and zone does not exist on IpamVLAN on branch old-schema`; err.Message != want {
		t.Errorf("allocating on a branch without the element was refused %q, want %q", err.Message, want)
	}
	e.branchMutation("Rebase", "old-schema")
	if _, n := b.vlan(fromPool(pool, "v", site, `zone: {value: "z1"}`)); n != 1 {
		t.Errorf("after the rebase, the branch was given %d, want 1", n)
	}
}

// TestNumberPoolQueries checks the answers of the five queries of the
// pools' usage, on main and on a branch, for VLANs on both.
func TestNumberPoolQueries(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	pool := e.createPool(`{name: {value: "per site and role"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"},
		ranges: [{start: 100, end: 149, weight: 2}, {start: 150, end: 199}], allocation_scope: {value: ["site", "role"]}}`)
	e.branchMutation("Create", "feature")
	b := e.at("feature")
	v1, _ := e.vlan(fromPool(pool, "u1", siteA))
	v2, _ := e.vlan(fromPool(pool, "u2", siteA))
	v3, _ := e.vlan(fromPool(pool, "u3", siteA))
	v4, _ := e.vlan(fromPool(pool, "voice", siteA, `role: {value: "voice"}`))
	v5, _ := b.vlan(fromPool(pool, "b-user", siteB))

	entries := func(site, siteLabel, role string) string {
		return `[{"path":"site","value":"` + site + `","display_label":"` + siteLabel + `"},{"path":"role","value":"` + role + `","display_label":"` + role + `"}]`
	}
	division := func(label, entries string, used int, utilization string) string {
		return `{"display_label":"` + label + `","entries":` + entries + `,"figures":{"size":100,"used":` + fmt.Sprint(used) + `,"utilization":` + utilization + `}}`
	}
	queries := []struct{ query, want string }{
		{`{ InfrahubNumberPoolDivisions(pool_id: "` + pool + `") { count divisions { display_label entries { path value display_label } figures { size used utilization } } } }`,
			`{"InfrahubNumberPoolDivisions":{"count":3,"divisions":[` + division("site-a / user", entries(siteA, "site-a", "user"), 3, "3") + `,` +
				division("site-a / voice", entries(siteA, "site-a", "voice"), 1, "1") + `,` + division("site-b / user", entries(siteB, "site-b", "user"), 1, "1") + `]}}`},
		{`{ InfrahubNumberPoolUtilization(pool_id: "` + pool + `", division: [{path: "role", value: "user"}, {path: "site", value: "` + siteA + `"}]) { figures { size used utilization } ranges { start end weight figures { size used utilization } } } }`,
			`{"InfrahubNumberPoolUtilization":{"figures":{"size":100,"used":3,"utilization":3},"ranges":[` +
				`{"start":100,"end":149,"weight":2,"figures":{"size":50,"used":3,"utilization":6}},{"start":150,"end":199,"weight":1,"figures":{"size":50,"used":0,"utilization":0}}]}}`},
		{`{ InfrahubNumberPoolUtilization(pool_id: "` + pool + `", division: [{path: "site", value: "` + siteB + `"}, {path: "role", value: "voice"}]) { figures { size used utilization } } }`,
			`{"InfrahubNumberPoolUtilization":{"figures":{"size":100,"used":0,"utilization":0}}}`},
		{`{ InfrahubNumberPoolAllocations(pool_id: "` + pool + `", division: [{path: "site", value: "` + siteB + `"}]) { count allocations { value branch holder { id kind display_label } division { path value } } } }`,
			`{"InfrahubNumberPoolAllocations":{"count":1,"allocations":[{"value":100,"branch":"feature","holder":{"id":"` + v5 + `","kind":"IpamVLAN","display_label":"b-user"},` +
				`"division":[{"path":"site","value":"` + siteB + `"},{"path":"role","value":"user"}]}]}}`},
		{`{ InfrahubNumberPoolAllocations(pool_id: "` + pool + `", division: [{path: "role", value: "user"}, {path: "site", value: "` + siteA + `"}], limit: 2, offset: 1) { count allocations { value holder { id } } } }`,
			`{"InfrahubNumberPoolAllocations":{"count":3,"allocations":[{"value":101,"holder":{"id":"` + v2 + `"}},{"value":102,"holder":{"id":"` + v3 + `"}}]}}`},
		{`{ InfrahubResourcePoolUtilization(pool_id: "` + pool + `") { count utilization utilization_default_branch utilization_branches edges { node { id display_label kind weight utilization } } } }`,
			`{"InfrahubResourcePoolUtilization":{"count":2,"utilization":3,"utilization_default_branch":3,"utilization_branches":0,"edges":[` +
				`{"node":{"id":"` + pool + `-1","display_label":"100-149","kind":"CoreNumberPoolRange","weight":2,"utilization":6}},` +
				`{"node":{"id":"` + pool + `-2","display_label":"150-199","kind":"CoreNumberPoolRange","weight":1,"utilization":0}}]}}`},
	}
	for _, on := range []*env{e, b} {
		for _, q := range queries {
			res := on.query("op", q.query)
			if len(res.Errors) > 0 || string(res.Data) != q.want {
				t.Errorf("on %q, %s\nanswered %s\nwant data %s", on.path, q.query, res.body, q.want)
			}
		}
	}

	// A number that only the branch shows counts in utilization_branches.
	given, _ := b.vlan(`name: {value: "given"}, site: {id: "` + siteB + `"}, vlan_id: {value: 150}`)
	res := e.query("op", `{ InfrahubResourcePoolUtilization(pool_id: "`+pool+`") { utilization utilization_default_branch utilization_branches edges { node { utilization } } } }`)
	if want := `{"InfrahubResourcePoolUtilization":{"utilization":4,"utilization_default_branch":3,"utilization_branches":1,"edges":[{"node":{"utilization":6}},{"node":{"utilization":2}}]}}`; string(res.Data) != want {
		t.Errorf("with 150 on the branch only, InfrahubResourcePoolUtilization answered %s, want data %s", res.body, want)
	}

	var all struct {
		InfrahubNumberPoolAllocations struct {
			Count       int
			Allocations []struct{ Value int64 }
		}
	}
	e.ok("op", `{ InfrahubNumberPoolAllocations(pool_id: "`+pool+`", division: [{path: "site", value: "`+siteA+`"}]) { count allocations { value } } }`, &all)
	var held []int64
	for _, a := range all.InfrahubNumberPoolAllocations.Allocations {
		held = append(held, a.Value)
	}
	if want := []int64{100, 100, 101, 102}; all.InfrahubNumberPoolAllocations.Count != 4 || !slices.Equal(held, want) {
		t.Errorf("site-a's divisions hold %v (count %d), want %v, ascending", held, all.InfrahubNumberPoolAllocations.Count, want)
	}

	var allocated struct {
		InfrahubResourcePoolAllocated struct {
			Count int
			Edges []struct{ Node allocatedNode }
		}
	}
	e.ok("op", `{ InfrahubResourcePoolAllocated(pool_id: "`+pool+`", resource_id: "ignored", limit: 10) { count edges { node { id display_label kind branch identifier value } } } }`, &allocated)
	var nodes []string
	var values []int64
	for _, edge := range allocated.InfrahubResourcePoolAllocated.Edges {
		n := edge.Node
		nodes = append(nodes, fmt.Sprintf("%d %s %s %s %s %s", n.Value, n.ID, n.DisplayLabel, n.Kind, n.Branch, deref(n.Identifier)))
		values = append(values, n.Value)
	}
	node := func(value int, id, label, branch string) string {
		return fmt.Sprintf("%d %s %s IpamVLAN %s %s", value, id, label, branch, id)
	}
	want := []string{node(100, v1, "u1", "main"), node(100, v4, "voice", "main"), node(100, v5, "b-user", "feature"), node(101, v2, "u2", "main"), node(102, v3, "u3", "main"),
		fmt.Sprintf("150 %s given IpamVLAN feature <null>", given)}
	sorted := slices.Clone(nodes)
	slices.Sort(sorted)
	slices.Sort(want)
	if allocated.InfrahubResourcePoolAllocated.Count != 6 || !slices.Equal(sorted, want) || !slices.IsSorted(values) {
		t.Errorf("InfrahubResourcePoolAllocated answered %q (count %d), want, ascending, %q", nodes, allocated.InfrahubResourcePoolAllocated.Count, want)
	}
}

// TestNumberPoolsShareAnAttribute: pool A (10-19) and pool B (500-509),
// both on IpamVLAN.vlan_id and scoped by site. Each records every number
// of the attribute, and skips it, but lists and counts what it holds
// alone: the numbers of its ranges, taken from it or given, and those it
// allocated (still its own once its ranges no longer hold them); neither
// B's numbers nor one given outside both.
func TestNumberPoolsShareAnAttribute(t *testing.T) {
	e := newEnv(t)
	e.load(vlanSchema)
	siteA, siteB, siteC := e.site("site-a"), e.site("site-b"), e.site("site-c")
	a := e.createPool(`{name: {value: "A"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 10, end: 19}], allocation_scope: {value: ["site"]}}`)
	b := e.createPool(`{name: {value: "B"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, ranges: [{start: 500, end: 509}], allocation_scope: {value: ["site"]}}`)
	a1, _ := e.vlan(fromPool(a, "a1", siteA))
	a2, _ := e.vlan(fromPool(a, "a2", siteA))
	b1, _ := e.vlan(fromPool(b, "b1", siteB))
	given, _ := e.vlan(`name: {value: "given"}, site: {id: "` + siteB + `"}, vlan_id: {value: 15}`)
	e.vlan(`name: {value: "outside"}, site: {id: "` + siteC + `"}, vlan_id: {value: 9000}`)
	if _, n := e.vlan(fromPool(b, "b2", siteC)); n != 500 {
		t.Fatalf("B gave %d in site-c, want 500", n)
	}

	check := func(step, pool, divisions, allocations, allocated string) {
		t.Helper()
		for _, q := range []struct{ query, want string }{
			{`{ InfrahubNumberPoolDivisions(pool_id: "` + pool + `") { count divisions { display_label figures { used } } } }`, divisions},
			{`{ InfrahubNumberPoolAllocations(pool_id: "` + pool + `") { count allocations { value holder { id } } } }`, allocations},
			{`{ InfrahubResourcePoolAllocated(pool_id: "` + pool + `", resource_id: "ignored") { count edges { node { id value } } } }`, allocated},
		} {
			if res := e.query("op", q.query); len(res.Errors) > 0 || string(res.Data) != q.want {
				t.Errorf("%s: %s\nanswered %s\nwant data %s", step, q.query, res.body, q.want)
			}
		}
	}
	division := func(label string, used int) string {
		return fmt.Sprintf(`{"display_label":%q,"figures":{"used":%d}}`, label, used)
	}
	allocation := func(value int, holder string) string {
		return fmt.Sprintf(`{"value":%d,"holder":{"id":%q}}`, value, holder)
	}
	node := func(value int, holder string) string {
		return fmt.Sprintf(`{"node":{"id":%q,"value":%d}}`, holder, value)
	}
	check("pool A", a,
		`{"InfrahubNumberPoolDivisions":{"count":2,"divisions":[`+division("site-a", 2)+`,`+division("site-b", 1)+`]}}`,
		`{"InfrahubNumberPoolAllocations":{"count":3,"allocations":[`+allocation(10, a1)+`,`+allocation(11, a2)+`,`+allocation(15, given)+`]}}`,
		`{"InfrahubResourcePoolAllocated":{"count":3,"edges":[`+node(10, a1)+`,`+node(11, a2)+`,`+node(15, given)+`]}}`)
	var b2 string
	var holders struct {
		InfrahubNumberPoolAllocations struct {
			Allocations []struct{ Holder struct{ ID string } }
		}
	}
	e.ok("op", `{ InfrahubNumberPoolAllocations(pool_id: "`+b+`", division: [{path: "site", value: "`+siteC+`"}]) { allocations { holder { id } } } }`, &holders)
	if h := holders.InfrahubNumberPoolAllocations.Allocations; len(h) == 1 {
		b2 = h[0].Holder.ID
	}
	check("pool B", b,
		`{"InfrahubNumberPoolDivisions":{"count":2,"divisions":[`+division("site-b", 1)+`,`+division("site-c", 1)+`]}}`,
		`{"InfrahubNumberPoolAllocations":{"count":2,"allocations":[`+allocation(500, b1)+`,`+allocation(500, b2)+`]}}`,
		`{"InfrahubResourcePoolAllocated":{"count":2,"edges":[`+node(500, b1)+`,`+node(500, b2)+`]}}`)

	// A's ranges narrowed to 10: 11, allocated from A, is still A's (not
	// counted); 15, given, is no longer A's.
	e.ok("op", `mutation { CoreNumberPoolUpdate(data: {id: "`+a+`", ranges: [{start: 10, end: 10}]}) { ok } }`, nil)
	check("pool A narrowed", a,
		`{"InfrahubNumberPoolDivisions":{"count":1,"divisions":[`+division("site-a", 1)+`]}}`,
		`{"InfrahubNumberPoolAllocations":{"count":2,"allocations":[`+allocation(10, a1)+`,`+allocation(11, a2)+`]}}`,
		`{"InfrahubResourcePoolAllocated":{"count":2,"edges":[`+node(10, a1)+`,`+node(11, a2)+`]}}`)
}

// allocatedNode is a node of InfrahubResourcePoolAllocated.
type allocatedNode struct {
	ID           string
	DisplayLabel string `json:"display_label"`
	Kind         string
	Branch       string
	Identifier   *string
	Value        int64
}

// TestNumberPoolConcurrency creates VLANs from one pool concurrently
// through two processes: 8 clients each in one division get the 16 lowest
// numbers, each once; 16 clients in 16 divisions each get the lowest.
func TestNumberPoolConcurrency(t *testing.T) {
	a := newEnv(t)
	a.load(vlanSchema)
	processes := []*env{a, a.sibling()}
	sites := make([]string, 17)
	for i := range sites {
		sites[i] = a.site(fmt.Sprint("site-", i))
	}
	pool := a.createPool(`{name: {value: "per site"}, node: {value: "IpamVLAN"}, node_attribute: {value: "vlan_id"}, start_range: {value: 100}, end_range: {value: 4193}, allocation_scope: {value: ["site"]}}`)

	run := func(site func(client int) string) []int64 {
		var mu sync.Mutex
		var got []int64
		var wg sync.WaitGroup
		for client := range 16 {
			wg.Go(func() {
				p := processes[client%2]
				res := p.query("op", `mutation { IpamVLANCreate(data: {`+fromPool(pool, fmt.Sprint("c", client), site(client))+`}) { object { vlan_id { value } } } }`)
				var out struct {
					IpamVLANCreate struct {
						Object struct {
							VlanID struct{ Value int64 } `json:"vlan_id"`
						}
					}
				}
				if len(res.Errors) > 0 || json.Unmarshal(res.Data, &out) != nil {
					t.Errorf("client %d: %s", client, res.body)
					return
				}
				mu.Lock()
				got = append(got, out.IpamVLANCreate.Object.VlanID.Value)
				mu.Unlock()
			})
		}
		wg.Wait()
		slices.Sort(got)
		return got
	}
	oneDivision := run(func(int) string { return sites[0] })
	var want []int64
	for n := range int64(16) {
		want = append(want, 100+n)
	}
	if !slices.Equal(oneDivision, want) {
		t.Errorf("16 clients of two processes in one division got %v, want %v", oneDivision, want)
	}
	divisions := run(func(client int) string { return sites[1+client] })
	if len(divisions) != 16 || divisions[0] != 100 || divisions[15] != 100 {
		t.Errorf("16 clients of two processes in 16 divisions got %v, want 100 each", divisions)
	}
}
