package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/schema/schematest"
	"pivirt.hu/ipam/internal/store"
)

// rackSchema adds a kind with a relationship to the example's sites.
const rackSchema = `version: "1.0"
nodes:
  - name: Rack
    namespace: Dcim
    attributes:
      - {name: name, kind: Text, unique: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one}
`

// writeFile writes a file named name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lines joins lines, each ended by a newline.
func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// schemaIDs reads the ids of ipam schema get -o json: by kind
// ("IpamVLAN") and by kind and element ("IpamVLAN.role").
func schemaIDs(t *testing.T, env []string, args ...string) map[string]string {
	t.Helper()
	type element struct{ ID, Name string }
	type kind struct {
		ID, Name, Namespace       string
		Attributes, Relationships []element
	}
	var doc struct{ Generics, Nodes []kind }
	out := mustRun(t, "", env, append([]string{"schema", "get", "-o", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("ipam schema get -o json printed %q: %v", out, err)
	}
	ids := map[string]string{}
	for _, k := range append(doc.Generics, doc.Nodes...) {
		full := k.Namespace + k.Name
		ids[full] = k.ID
		for _, e := range append(k.Attributes, k.Relationships...) {
			ids[full+"."+e.Name] = e.ID
		}
	}
	return ids
}

// openBranches opens a branch.Service on url, as another process would:
// fresh, so that it reads what the commands stored before.
func openBranches(t *testing.T, url string) *branch.Service {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := branch.New(t.Context(), branch.Config{DB: db})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	return svc
}

// mustCreate creates an object of kind named name on the branch, through
// a service of its own, and returns its id.
func mustCreate(t *testing.T, url, branchName, kind, name string) string {
	t.Helper()
	o, err := openBranches(t, url).CreateObject(t.Context(), auth.System, branchName, kind, branch.ObjectInput{Attributes: map[string]any{"name": name}})
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// wantRun runs ipam and wants its exit code and its exact output.
func wantRun(t *testing.T, env []string, wantCode int, wantStdout, wantStderr string, args ...string) {
	t.Helper()
	code, stdout, stderr := runWithStdin(t, "", env, args...)
	name := "ipam " + strings.Join(args, " ")
	if code != wantCode {
		t.Errorf("%s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, wantCode, stdout, stderr)
	}
	if stdout != wantStdout {
		t.Errorf("%s printed\n%s\nwant\n%s", name, stdout, wantStdout)
	}
	if stderr != wantStderr {
		t.Errorf("%s wrote to stderr\n%s\nwant\n%s", name, stderr, wantStderr)
	}
}

// TestSchemaLoadAndGet loads the example schema with ipam schema load,
// prints it back with ipam schema get in both forms and loads that again
// (no change), renames, removes and adds elements in two files at once,
// and has loads refused for their files, for the objects stored and for
// an unknown branch, each refusal changing nothing.
func TestSchemaLoadAndGet(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	dir := t.TempDir()

	out := mustRun(t, "", env, "schema", "load", writeFile(t, dir, "vlans.yaml", schematest.Example))
	ids := schemaIDs(t, env)
	added := func(typ, element string) string { return "added " + typ + " " + element + " (id " + ids[element] + ")" }
	want := lines(
		added("generic", "DcimEndpoint"),
		added("attribute", "DcimEndpoint.name"),
		added("node", "LocationSite"),
		added("attribute", "LocationSite.name"),
		added("node", "IpamVLAN"),
		added("attribute", "IpamVLAN.name"),
		added("attribute", "IpamVLAN.vlan_id"),
		added("attribute", "IpamVLAN.role"),
		added("attribute", "IpamVLAN.tags"),
		added("relationship", "IpamVLAN.site"),
		added("relationship", "IpamVLAN.endpoints"),
		"schema of branch main: 11 added, 0 changed, 0 removed",
	)
	if out != want {
		t.Fatalf("ipam schema load printed\n%s\nwant\n%s", out, want)
	}
	if len(ids) != 11 {
		t.Fatalf("ipam schema get printed %d ids, want 11: %v", len(ids), ids)
	}

	// What get prints, in either form, loads again with no change, from a
	// file or from standard input, and prints the same.
	for _, format := range []string{"yaml", "json"} {
		got := mustRun(t, "", env, "schema", "get", "-o", format)
		if !strings.Contains(got, ids["IpamVLAN.site"]) {
			t.Errorf("ipam schema get -o %s printed no id of IpamVLAN.site:\n%s", format, got)
		}
		unchanged := lines("schema of branch main: 0 added, 0 changed, 0 removed")
		if out := mustRun(t, "", env, "schema", "load", writeFile(t, dir, "got."+format, got)); out != unchanged {
			t.Errorf("ipam schema get -o %s | ipam schema load printed\n%s\nwant\n%s", format, out, unchanged)
		}
		if out := mustRun(t, got, env, "schema", "load", "-"); out != unchanged {
			t.Errorf("ipam schema load - of ipam schema get -o %s printed\n%s\nwant\n%s", format, out, unchanged)
		}
		if again := mustRun(t, "", env, "schema", "get", "-o", format); again != got {
			t.Errorf("ipam schema get -o %s after loading what it printed:\n%s\nwant\n%s", format, again, got)
		}
	}
	if got := mustRun(t, "", env, "schema", "get"); got != mustRun(t, "", env, "schema", "get", "-o", "yaml") {
		t.Errorf("ipam schema get is not ipam schema get -o yaml:\n%s", got)
	}

	// An object holding a role, whose value follows the rename.
	svc := openBranches(t, url)
	site, err := svc.CreateObject(t.Context(), auth.System, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "site-a"}})
	if err != nil {
		t.Fatal(err)
	}
	users, err := svc.CreateObject(t.Context(), auth.System, branch.Main, "IpamVLAN", branch.ObjectInput{
		Attributes:    map[string]any{"name": "users", "vlan_id": 100, "role": "voice"},
		Relationships: map[string][]string{"site": {site.ID}}})
	if err != nil {
		t.Fatal(err)
	}

	// Two files in one load: one renames role by its id, removes tags and
	// adds an attribute; the other adds a kind.
	changes := writeFile(t, dir, "changes.yaml", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {id: "`+ids["IpamVLAN.role"]+`", name: purpose, kind: Dropdown, optional: true, choices: [{name: user}, {name: voice}]}
      - {name: tags, state: absent}
      - {name: description, kind: Text, optional: true}
`)
	racks := writeFile(t, dir, "racks.yaml", rackSchema)
	tags := ids["IpamVLAN.tags"]
	out = mustRun(t, "", env, "schema", "load", changes, racks)
	ids = schemaIDs(t, env)
	want = lines(
		added("attribute", "IpamVLAN.description"),
		added("node", "DcimRack"),
		added("attribute", "DcimRack.name"),
		added("relationship", "DcimRack.site"),
		"changed attribute IpamVLAN.purpose (id "+ids["IpamVLAN.purpose"]+"): name role → purpose",
		"removed attribute IpamVLAN.tags (id "+tags+")",
		"schema of branch main: 4 added, 1 changed, 1 removed",
	)
	if out != want {
		t.Fatalf("ipam schema load %s %s printed\n%s\nwant\n%s", changes, racks, out, want)
	}
	if ids["IpamVLAN.role"] != "" || ids["IpamVLAN.tags"] != "" {
		t.Errorf("role or tags still in the schema: %v", ids)
	}
	svc = openBranches(t, url) // one that knows the schema loaded since
	if got, err := svc.Object(t.Context(), auth.System, branch.Main, users.ID); err != nil || got.Attributes["purpose"] != "voice" {
		t.Errorf("after the rename, users = %+v, %v; want purpose voice", got.Attributes, err)
	}

	// Refusals: the file's own mistakes, the schema's, the objects', each
	// naming its file, kind and element, and changing nothing.
	before := mustRun(t, "", env, "schema", "get")
	badKind := writeFile(t, dir, "bad-kind.yaml", `version: "1.0"
nodes:
  - name: Cable
    namespace: Dcim
    attributes:
      - {name: length, kind: Integer}
`)
	badPeer := writeFile(t, dir, "bad-peer.yaml", `version: "1.0"
nodes:
  - name: Cable
    namespace: Dcim
    relationships:
      - {name: a_end, peer: DcimPort}
`)
	required := writeFile(t, dir, "required.yaml", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {id: "`+ids["IpamVLAN.description"]+`", name: description, kind: Text, optional: false}
`)
	unique := writeFile(t, dir, "unique.yaml", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    uniqueness_constraints:
      - ["vlan_id__value"]
`)
	cables := writeFile(t, dir, "cables.yaml", `version: "1.0"
nodes:
  - {name: Cable, namespace: Dcim, attributes: [{name: label, kind: Text}]}
`)
	removeRack := writeFile(t, dir, "remove-rack.yaml", `version: "1.0"
nodes:
  - {name: Rack, namespace: Dcim, state: absent}
`)
	rack, err := svc.CreateObject(t.Context(), auth.System, branch.Main, "DcimRack", branch.ObjectInput{Attributes: map[string]any{"name": "rack-1"}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := svc.CreateObject(t.Context(), auth.System, branch.Main, "IpamVLAN", branch.ObjectInput{
		Attributes:    map[string]any{"name": "voice", "vlan_id": 100},
		Relationships: map[string][]string{"site": {mustCreate(t, url, branch.Main, "LocationSite", "site-b")}}})
	if err != nil {
		t.Fatal(err)
	}
	refusals := []struct {
		files  []string
		stderr string
	}{
		{[]string{racks, badKind}, badKind + `: DcimCable.length: kind "Integer" is not one of Text, Number, Boolean, Dropdown, List, JSON, Any`},
		{[]string{badPeer}, badPeer + `: DcimCable.a_end: peer "DcimPort" is not a node or a generic`},
		{[]string{racks, required}, required + ": IpamVLAN.description cannot be made required: object users (" + users.ID + ") has no value, and the attribute has no default_value"},
		{[]string{unique}, unique + ": IpamVLAN: Violates uniqueness constraint 'vlan_id': objects users (" + users.ID + ") and voice (" + second.ID + ") hold the same values"},
		{[]string{cables, removeRack}, removeRack + ": the kind DcimRack cannot be removed: it has objects on branch main, such as rack-1 (" + rack.ID + "); delete them first"},
		{[]string{racks, filepath.Join(dir, "missing.yaml")}, "open " + filepath.Join(dir, "missing.yaml") + ": no such file or directory"},
	}
	for _, r := range refusals {
		wantRun(t, env, 1, "", "ipam: "+r.stderr+"\n", append([]string{"schema", "load"}, r.files...)...)
	}
	if after := mustRun(t, "", env, "schema", "get"); after != before {
		t.Errorf("refused loads changed the schema:\n%s\nwas\n%s", after, before)
	}

	// On a branch: main does not change.
	mustRun(t, "", env, "branch", "create", "cables")
	out = mustRun(t, "", env, "schema", "load", cables, "--branch", "cables")
	branchIDs := schemaIDs(t, env, "--branch", "cables")
	want = lines(
		"added node DcimCable (id "+branchIDs["DcimCable"]+")",
		"added attribute DcimCable.label (id "+branchIDs["DcimCable.label"]+")",
		"schema of branch cables: 2 added, 0 changed, 0 removed",
	)
	if out != want {
		t.Errorf("ipam schema load --branch cables printed\n%s\nwant\n%s", out, want)
	}
	if after := mustRun(t, "", env, "schema", "get"); after != before {
		t.Errorf("a load on a branch changed main's schema:\n%s\nwas\n%s", after, before)
	}
	wantRun(t, env, 1, "", "ipam: branch nope not found\n", "schema", "load", "--branch", "nope", cables)
	wantRun(t, env, 1, "", "ipam: branch nope not found\n", "schema", "get", "--branch", "nope")
}

// TestSchemaCommandLine: the mistakes of a command line, refused before
// any database is opened.
func TestSchemaCommandLine(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"schema"}, 2, "", "ipam: schema needs a subcommand\nUsage:\n  ipam schema load FILE... [--branch B]"},
		{[]string{"schema", "drop"}, 2, "", "ipam: unknown schema subcommand \"drop\"\nUsage:"},
		{[]string{"schema", "load"}, 2, "", "ipam: schema load needs at least one FILE (- for standard input)\n"},
		{[]string{"schema", "load", "--branch"}, 2, "", "ipam: flag needs an argument: -branch\n"},
		{[]string{"schema", "get", "-o", "xml"}, 2, "", "ipam: -o must be yaml or json, got \"xml\"\n"},
		{[]string{"schema", "get", "all"}, 2, "", "ipam: schema get takes no arguments, got [\"all\"]\n"},
		{[]string{"schema", "help"}, 0, "Usage:\n  ipam schema load FILE... [--branch B]", ""},
		{[]string{"schema", "get", "-h"}, 0, "", "-o string"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runWithStdin(t, "", nil, tt.args...)
		name := "ipam " + strings.Join(tt.args, " ")
		if code != tt.wantCode {
			t.Errorf("%s exited %d, want %d\nstderr:\n%s", name, code, tt.wantCode, stderr)
		}
		if !strings.HasPrefix(stdout, tt.wantStdout) || tt.wantStdout == "" && stdout != "" {
			t.Errorf("%s printed %q, want it to begin with %q", name, stdout, tt.wantStdout)
		}
		if !strings.Contains(stderr, tt.wantStderr) || tt.wantStderr == "" && stderr != "" {
			t.Errorf("%s wrote %q to stderr, want it to contain %q", name, stderr, tt.wantStderr)
		}
	}
}

// TestNameRefusedFiles: a refusal for the objects names the files that
// write the kind refused, else every file loaded; other errors pass as
// they are.
func TestNameRefusedFiles(t *testing.T) {
	files := []schema.File{
		{Name: "sites.yaml", Kinds: []schema.KindSpec{{Namespace: "Location", Name: "Site"}}},
		{Name: "vlans.yaml", Kinds: []schema.KindSpec{{Namespace: "Ipam", Name: "VLAN"}, {Namespace: "Location", Name: "Site"}}},
		{Name: "racks.yaml", Kinds: []schema.KindSpec{{Namespace: "Dcim", Name: "Rack", Absent: true}}},
	}
	refused := func(msg string) error { return &refusal.InvalidError{Field: "schema", Message: msg} }
	fileErrors := schema.Errors{{File: "vlans.yaml", Kind: "IpamVLAN", Element: "role", Message: "choices are required"}}
	tests := []struct {
		err  error
		want string
	}{
		{refused("schema: IpamVLAN.role cannot be made required: object users (1) has no value"), "vlans.yaml: IpamVLAN.role cannot be made required: object users (1) has no value"},
		{refused("schema: LocationSite.name: object a (1) holds 3, which does not fit: a Text"), "sites.yaml, vlans.yaml: LocationSite.name: object a (1) holds 3, which does not fit: a Text"},
		{refused("schema: IpamVLAN: Violates uniqueness constraint 'vlan_id': objects a (1) and b (2) hold the same values"), "vlans.yaml: IpamVLAN: Violates uniqueness constraint 'vlan_id': objects a (1) and b (2) hold the same values"},
		{refused("schema: the kind DcimRack cannot be removed: it has objects on branch main"), "racks.yaml: the kind DcimRack cannot be removed: it has objects on branch main"},
		// A node's element inherited from a generic no file writes here.
		{refused("schema: DcimInterface.name cannot be made required: object eth0 (1) has no value"), "sites.yaml, vlans.yaml, racks.yaml: DcimInterface.name cannot be made required: object eth0 (1) has no value"},
		{&refusal.InvalidError{Field: "name", Message: "schema: not a refusal of a load"}, "schema: not a refusal of a load"},
		{fmt.Errorf("load: %w", fileErrors), "load: vlans.yaml: IpamVLAN.role: choices are required"},
		{errors.New("schema: the database went away"), "schema: the database went away"},
	}
	for _, tt := range tests {
		got := nameRefusedFiles(tt.err, files)
		if got.Error() != tt.want {
			t.Errorf("nameRefusedFiles(%q) = %q, want %q", tt.err, got, tt.want)
		}
		if !errors.Is(got, tt.err) {
			t.Errorf("nameRefusedFiles(%q) does not wrap it", tt.err)
		}
	}
}
