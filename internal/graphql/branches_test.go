package graphql

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/schema/schematest"
)

// branchObject is a branch as the tests select it.
type branchObject struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	BranchedFrom     string `json:"branched_from"`
	IsDefault        bool   `json:"is_default"`
	HasSchemaChanges bool   `json:"has_schema_changes"`
}

// branchMutation runs BranchCreate, BranchRebase, BranchMerge or
// BranchDelete (op) of the branch name, which must succeed, and returns the
// branch it answers.
func (e *env) branchMutation(op, name string) branchObject {
	e.t.Helper()
	var out map[string]struct {
		OK     bool
		Object branchObject
	}
	e.ok("op", `mutation($name: String!) { Branch`+op+`(data: {name: $name}) { ok object { id name branched_from is_default has_schema_changes } } }`, &out, "name", name)
	a := out["Branch"+op]
	if !a.OK || a.Object.Name != name {
		e.t.Fatalf("Branch%s(%s) answered %+v", op, name, a)
	}
	return a.Object
}

// names returns the display labels of the objects of kind that the query
// answers, sorted.
func (e *env) names(kind string) []string {
	e.t.Helper()
	var out map[string]struct {
		Edges []struct {
			Node struct {
				DisplayLabel string `json:"display_label"`
			}
		}
	}
	e.ok("op", `{ `+kind+` { edges { node { display_label } } } }`, &out)
	var names []string
	for _, edge := range out[kind].Edges {
		names = append(names, edge.Node.DisplayLabel)
	}
	slices.Sort(names)
	return names
}

// TestBranchIsolation changes objects and the schema on a branch and on
// main: each sees its own changes and not the other's, the API of each is
// generated from its own schema, and a rebase brings main's changes.
func TestBranchIsolation(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	siteA := e.site("site-a")
	created := e.branchMutation("Create", "add-vlans")
	if at, err := time.Parse(time.RFC3339Nano, created.BranchedFrom); err != nil || time.Since(at) > time.Minute || created.ID == "" || created.IsDefault {
		t.Errorf("BranchCreate answered %+v", created)
	}
	var list struct{ Branch []branchObject }
	e.ok("op", `{ Branch { id name branched_from is_default } }`, &list)
	if len(list.Branch) != 2 || list.Branch[0].Name != "main" || !list.Branch[0].IsDefault || list.Branch[1] != (branchObject{ID: created.ID, Name: "add-vlans", BranchedFrom: created.BranchedFrom}) {
		t.Errorf("Branch answered %+v", list.Branch)
	}

	b := e.at("add-vlans")
	b.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, site: {id: "`+siteA+`"}}`)
	b.load(interfaces)
	b.create("DcimInterface", `{name: {value: "eth0"}}`)
	siteB := e.site("site-b")
	e.ok("op", `mutation { LocationSiteUpdate(data: {id: "`+siteA+`", name: {value: "site-a-renamed"}}) { ok } }`, nil)

	if got := e.names("IpamVLAN"); len(got) != 0 {
		t.Errorf("main shows the branch's VLANs %q", got)
	}
	e.fails("op", codeInvalidArgument, `{ DcimInterface { count } }`)
	if got := b.names("IpamVLAN"); !slices.Equal(got, []string{"users"}) {
		t.Errorf("the branch shows the VLANs %q", got)
	}
	if got := b.names("LocationSite"); !slices.Equal(got, []string{"site-a"}) {
		t.Errorf("the branch shows the sites %q, want main's at the branch point", got)
	}
	b.fails("op", codeNotFound, `mutation { IpamVLANCreate(data: {name: {value: "b"}, vlan_id: {value: 1}, site: {id: "`+siteB+`"}}) { ok } }`)

	rebased := e.branchMutation("Rebase", "add-vlans")
	if rebased.BranchedFrom <= created.BranchedFrom || !rebased.HasSchemaChanges {
		t.Errorf("BranchRebase answered %+v, created %+v", rebased, created)
	}
	if got := b.names("LocationSite"); !slices.Equal(got, []string{"site-a-renamed", "site-b"}) {
		t.Errorf("after the rebase, the branch shows the sites %q", got)
	}
	if got := b.names("DcimInterface"); !slices.Equal(got, []string{"eth0"}) {
		t.Errorf("after the rebase, the branch shows the interfaces %q", got)
	}
	b.create("IpamVLAN", `{name: {value: "voice"}, vlan_id: {value: 101}, site: {id: "`+siteB+`"}}`)
}

// TestMerge merges a branch into main: main gets its objects and its
// schema, and the branch stays, rebased onto main.
func TestMerge(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	siteA := e.site("site-a")
	e.branchMutation("Create", "add-vlans")
	b := e.at("add-vlans")
	b.load(interfaces)
	b.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, site: {id: "`+siteA+`"}}`)
	b.create("DcimInterface", `{name: {value: "eth0"}}`)
	e.create("IpamVLAN", `{name: {value: "voice"}, vlan_id: {value: 101}, site: {id: "`+siteA+`"}}`)

	merged := e.branchMutation("Merge", "add-vlans")
	if merged.HasSchemaChanges {
		t.Errorf("after the merge, the branch has schema changes of its own: %+v", merged)
	}
	for _, env := range []*env{e, b} {
		if got := env.names("IpamVLAN"); !slices.Equal(got, []string{"users", "voice"}) {
			t.Errorf("after the merge, %s shows the VLANs %q", env.path, got)
		}
		if got := env.names("DcimInterface"); !slices.Equal(got, []string{"eth0"}) {
			t.Errorf("after the merge, %s shows the interfaces %q", env.path, got)
		}
	}
	var list struct{ Branch []branchObject }
	e.ok("op", `{ Branch(name: "add-vlans") { name } }`, &list)
	if len(list.Branch) != 1 {
		t.Errorf("after the merge, Branch(name: add-vlans) answered %+v", list.Branch)
	}
}

// mergeError is a refused merge as the tests read it.
type mergeError struct {
	Message    string
	Extensions struct {
		Code      string
		Conflicts []map[string]any
	}
}

// refusedMerge runs BranchMerge (or BranchRebase: op) of name, which must
// be refused with CONFLICT, and returns the refusal.
func (e *env) refusedMerge(op, name string) mergeError {
	e.t.Helper()
	res := e.query("op", `mutation { Branch`+op+`(data: {name: "`+name+`"}) { ok } }`)
	var out struct{ Errors []mergeError }
	if err := json.Unmarshal(res.body, &out); err != nil || len(out.Errors) != 1 || out.Errors[0].Extensions.Code != codeConflict {
		e.t.Fatalf("Branch%s(%s) answered %s, want one CONFLICT", op, name, res.body)
	}
	return out.Errors[0]
}

// TestMergeConflicts merges and rebases a branch whose changes conflict
// with main's: refused, main untouched, every conflict listed, in the
// message and one by one in extensions.conflicts.
func TestMergeConflicts(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	siteA, siteB := e.site("site-a"), e.site("site-b")
	v1 := e.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, site: {id: "`+siteA+`"}}`)
	v2 := e.create("IpamVLAN", `{name: {value: "voice"}, vlan_id: {value: 101}, site: {id: "`+siteA+`"}}`)
	e.branchMutation("Create", "conflicting")
	b := e.at("conflicting")
	b.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+v1+`", name: {value: "users-branch"}}) { ok } }`, nil)
	b.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+v2+`", site: {id: "`+siteB+`"}, vlan_id: {value: 7}}) { ok } }`, nil)
	e.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+v1+`", name: {value: "users-main"}}) { ok } }`, nil)
	e.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+v2+`", site: {id: "`+siteB+`"}, vlan_id: {value: 8}}) { ok } }`, nil)

	for _, op := range []string{"Merge", "Rebase"} {
		refusal := e.refusedMerge(op, "conflicting")
		var fields []string
		for _, c := range refusal.Extensions.Conflicts {
			fields = append(fields, c["object"].(string)+"."+c["field"].(string))
		}
		slices.Sort(fields)
		want := []string{v1 + ".name", v2 + ".vlan_id"}
		if !slices.Equal(fields, want) {
			t.Errorf("Branch%s: conflicts %q, want %q", op, fields, want)
		}
		for _, w := range []string{`IpamVLAN users-branch (id ` + v1 + `): name changed on both sides (main: "users-main", branch: "users-branch")`,
			`IpamVLAN voice (id ` + v2 + `): vlan_id changed on both sides (main: "8", branch: "7")`} {
			if !strings.Contains(refusal.Message, w) {
				t.Errorf("Branch%s refused %q, which does not say %q", op, refusal.Message, w)
			}
		}
		// Not as it once read, by id alone and with neither value:
		// "IpamVLAN 01a23463-8359-7000-ac1b-f33937723dc7: name changed on both sides".
		if bare := "IpamVLAN " + v1 + ": name changed on both sides"; strings.Contains(refusal.Message, bare) {
			t.Errorf("Branch%s refused %q, which names the VLAN by its id alone (%q)", op, refusal.Message, bare)
		}
	}
	if got := e.names("IpamVLAN"); !slices.Equal(got, []string{"users-main", "voice"}) {
		t.Errorf("after the refused merge, main shows %q", got)
	}
	if got := b.names("IpamVLAN"); !slices.Equal(got, []string{"users-branch", "voice"}) {
		t.Errorf("after the refused rebase, the branch shows %q", got)
	}
}

// TestUniquenessAtMerge merges a branch whose objects would break a
// uniqueness constraint with what main made meanwhile: refused, naming the
// constraint and both objects; without the duplicate, the merge goes
// through.
func TestUniquenessAtMerge(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	siteA := e.site("site-a")
	e.branchMutation("Create", "dup")
	b := e.at("dup")
	onBranch := b.create("IpamVLAN", `{name: {value: "branch"}, vlan_id: {value: 200}, site: {id: "`+siteA+`"}}`)
	onMain := e.create("IpamVLAN", `{name: {value: "main"}, vlan_id: {value: 200}, site: {id: "`+siteA+`"}}`)

	refusal := e.refusedMerge("Merge", "dup")
	if !strings.Contains(refusal.Message, "Violates uniqueness constraint 'site-vlan_id'") || len(refusal.Extensions.Conflicts) != 1 {
		t.Fatalf("the merge of a duplicate refused %+v", refusal)
	}
	c := refusal.Extensions.Conflicts[0]
	objects, _ := c["objects"].([]any)
	if c["type"] != "uniqueness" || c["constraint"] != "site-vlan_id" || len(objects) != 2 ||
		!slices.Contains(objects, any(onBranch)) || !slices.Contains(objects, any(onMain)) {
		t.Errorf("the conflict is %v, want the constraint site-vlan_id and the objects %s and %s", c, onBranch, onMain)
	}
	if got := e.names("IpamVLAN"); !slices.Equal(got, []string{"main"}) {
		t.Errorf("after the refused merge, main shows %q", got)
	}
	b.ok("op", `mutation { IpamVLANUpdate(data: {id: "`+onBranch+`", vlan_id: {value: 201}}) { ok } }`, nil)
	e.branchMutation("Merge", "dup")
	if got := e.names("IpamVLAN"); !slices.Equal(got, []string{"branch", "main"}) {
		t.Errorf("after the merge, main shows %q", got)
	}
}

// TestBranchDelete deletes a branch: its changes are gone, and so is its
// API.
func TestBranchDelete(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	siteA := e.site("site-a")
	e.branchMutation("Create", "feature/vlans")
	b := e.at("feature/vlans")
	b.create("IpamVLAN", `{name: {value: "users"}, vlan_id: {value: 100}, site: {id: "`+siteA+`"}}`)
	e.branchMutation("Delete", "feature/vlans")

	res := b.post("op", "application/json", strings.NewReader(`{"query": "{ IpamVLAN { count } }"}`))
	if res.status != http.StatusNotFound || res.code(t) != codeNotFound || res.Errors[0].Message != "branch feature/vlans not found" {
		t.Errorf("a deleted branch answered %d %s, want 404 NOT_FOUND", res.status, res.body)
	}
	e.fails("op", codeNotFound, `mutation { BranchDelete(data: {name: "feature/vlans"}) { ok } }`)
	e.fails("op", codeInvalidArgument, `mutation { BranchDelete(data: {name: "main"}) { ok } }`)
	e.branchMutation("Create", "feature/vlans")
	if got := b.names("IpamVLAN"); len(got) != 0 {
		t.Errorf("a branch made again with the name of a deleted one shows its VLANs %q", got)
	}
}

// TestBranchRouting checks /graphql/<branch>: an unknown branch is 404
// NOT_FOUND before the body is read, and to tenants every branch but main
// is unknown, and the branches, the schema of kinds and its objects are
// absent from their API.
func TestBranchRouting(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	e.branchMutation("Create", "add-vlans")
	for _, tt := range []struct{ token, branch string }{{"op", "nope"}, {"acme", "add-vlans"}, {"acme", "nope"}} {
		res := e.at(tt.branch).post(tt.token, "application/json", strings.NewReader("not even JSON"))
		if res.status != http.StatusNotFound || res.code(t) != codeNotFound || res.Errors[0].Message != "branch "+tt.branch+" not found" {
			t.Errorf("%s at /graphql/%s answered %d %s, want 404 NOT_FOUND", tt.token, tt.branch, res.status, res.body)
		}
	}
	if res := e.at("nope").post("", "application/json", strings.NewReader(`{"query": "{ Branch { name } }"}`)); res.status != http.StatusUnauthorized {
		t.Errorf("an anonymous request to an unknown branch answered %d %s, want 401", res.status, res.body)
	}
	e.at("main").ok("acme", `{ vpcs { name } }`, nil)
	e.at("main").ok("op", `{ IpamVLAN { count } }`, nil)

	for _, q := range []string{`{ Branch { name } }`, `{ IpamVLAN { count } }`, `{ schema { yaml } }`, `mutation { BranchCreate(data: {name: "x"}) { ok } }`,
		`mutation { schemaLoad(schema: "version: \"1.0\"") { added { id } } }`} {
		err := e.fails("acme", codeInvalidArgument, q)
		if !strings.HasPrefix(err.Message, "Cannot query field") {
			t.Errorf("a tenant's %s answered %q, want a field unknown", q, err.Message)
		}
	}
	var types struct {
		Schema struct{ Types []struct{ Name string } } `json:"__schema"`
	}
	e.ok("acme", `{ __schema { types { name } } }`, &types)
	for _, typ := range types.Schema.Types {
		if strings.HasPrefix(typ.Name, "Branch") || strings.HasPrefix(typ.Name, "Schema") || strings.Contains(typ.Name, "VLAN") || strings.HasSuffix(typ.Name, "Attribute") {
			t.Errorf("a tenant's schema has the type %s", typ.Name)
		}
	}
}

// TestGraphQLGetOnBranch checks that GET /graphql/<branch> from an API
// client is answered as GET /graphql is: use POST.
func TestGraphQLGetOnBranch(t *testing.T) {
	e := newEnv(t)
	e.branchMutation("Create", "add-vlans")
	r := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/graphql/add-vlans", nil)
	r.Header.Set("Authorization", "Bearer op")
	if res := e.serve(r); res.status != http.StatusMethodNotAllowed {
		t.Errorf("GET /graphql/add-vlans answered %d %s, want 405", res.status, res.body)
	}
}

// TestSchemaQuery reads the schema of kinds through the schema query: its
// kinds with their elements and ids, and the schema as YAML and JSON,
// which schemaLoad takes back without a change.
func TestSchemaQuery(t *testing.T) {
	e := newEnv(t)
	e.load(schematest.Example)
	e.load(interfaces)
	var out struct {
		Schema struct {
			Kinds []struct {
				ID, Kind, Namespace, Name string
				Generic                   bool
				DisplayLabel              *string  `json:"display_label"`
				InheritFrom               []string `json:"inherit_from"`
				Inheritors                []string
				Attributes                []struct {
					ID, Name, Kind, DeclaredBy string
					Optional, Unique           bool
					Choices                    []string
				}
				Relationships []struct{ ID, Name, Peer, Cardinality string }
				Constraints   [][]string `json:"uniqueness_constraints"`
			}
			YAML string
			JSON string
		}
	}
	e.ok("op", `{ schema {
		kinds { id kind namespace name generic display_label inherit_from inheritors
			attributes { id name kind optional unique choices default_value declared_by }
			relationships { id name peer cardinality optional declared_by }
			uniqueness_constraints }
		yaml json } }`, &out)
	var kinds []string
	for _, k := range out.Schema.Kinds {
		kinds = append(kinds, k.Kind)
		if k.ID == "" {
			t.Errorf("the kind %s has no id", k.Kind)
		}
	}
	if !slices.Equal(kinds, []string{"DcimEndpoint", "LocationSite", "IpamVLAN", "DcimInterface"}) {
		t.Errorf("schema lists the kinds %q", kinds)
	}
	endpoint, vlan, iface := out.Schema.Kinds[0], out.Schema.Kinds[2], out.Schema.Kinds[3]
	if !endpoint.Generic || !slices.Equal(endpoint.Inheritors, []string{"DcimInterface"}) || !slices.Equal(iface.InheritFrom, []string{"DcimEndpoint"}) ||
		len(iface.Attributes) != 2 || iface.Attributes[0].Name != "name" || iface.Attributes[0].ID != endpoint.Attributes[0].ID {
		t.Errorf("the generic and its node read %+v and %+v", endpoint, iface)
	}
	if deref(vlan.DisplayLabel) != "{{ name__value }}" || len(vlan.Relationships) != 2 || vlan.Relationships[0].Cardinality != "one" ||
		!slices.Equal(vlan.Attributes[2].Choices, []string{"user", "voice"}) || !slices.Equal(vlan.Constraints[0], []string{"site", "vlan_id__value"}) {
		t.Errorf("IpamVLAN reads %+v", vlan)
	}
	for _, text := range []string{out.Schema.YAML, out.Schema.JSON} {
		again := e.load(text)
		if n := len(again.SchemaLoad.Added) + len(again.SchemaLoad.Changed) + len(again.SchemaLoad.Removed); n != 0 {
			t.Errorf("loading the schema printed again changed %+v", again)
		}
	}
}
