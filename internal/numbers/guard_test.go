package numbers

import (
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

// elementIDs returns the id of the kind and of its elements by name, in
// the branch's schema.
func (e *env) elementIDs(branchName, kind string) (string, map[string]string) {
	e.t.Helper()
	s, err := e.branches.Schema(e.t.Context(), branchName)
	if err != nil {
		e.t.Fatal(err)
	}
	k, ok := s.Kind(kind)
	if !ok {
		e.t.Fatalf("no kind %s on %s", kind, branchName)
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

// TestSchemaGuards: while a pool exists, a schema load on any branch that
// would break its scope, its kind or its attribute is refused, all or
// nothing, word for word; renaming a scope element is allowed, and
// the pool shows the new name once it is on main.
func TestSchemaGuards(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	if _, err := e.branches.CreateBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	p := e.pool("VLAN IDs per site", []Range{{Start: 100, End: 199, Weight: 1}}, "site", "role")
	vlanID, ids := e.elementIDs(branch.Main, "IpamVLAN")
	vlan := func(body string) string {
		return "version: \"1.0\"\nnodes:\n  - name: VLAN\n    namespace: Ipam\n" + body
	}
	for _, tt := range []struct {
		name, file, msg string
	}{
		{"remove an element", vlan("    relationships:\n      - {name: site, state: absent}\n"),
			"pool VLAN IDs per site divides its numbers by IpamVLAN.site; a scope element cannot be removed while the pool exists"},
		{"make it optional", vlan("    attributes:\n      - {name: role, kind: Dropdown, choices: [{name: user}, {name: voice}], default_value: user, optional: true}\n"),
			"pool VLAN IDs per site divides its numbers by IpamVLAN.role; a scope element must stay required"},
		{"cardinality many", vlan("    relationships:\n      - {name: site, peer: LocationSite, cardinality: many, optional: false}\n"),
			"pool VLAN IDs per site divides its numbers by IpamVLAN.site; a scope element must stay a relationship of cardinality one"},
		{"kind List", vlan("    attributes:\n      - {name: role, kind: List, default_value: [\"user\"]}\n"),
			"pool VLAN IDs per site divides its numbers by IpamVLAN.role; a scope element must hold a single scalar value"},
		{"unique", vlan("    attributes:\n      - {name: vlan_id, kind: Number, optional: true, unique: true}\n"),
			"pool VLAN IDs per site allocates IpamVLAN.vlan_id per division; a globally unique number cannot be allocated per division"},
		{"rename the kind", "version: \"1.0\"\nnodes:\n  - {id: " + vlanID + ", name: Vlan, namespace: Ipam}\n",
			"pool VLAN IDs per site allocates numbers for IpamVLAN; the kind cannot be renamed while the pool exists"},
		{"change its namespace", "version: \"1.0\"\nnodes:\n  - {id: " + vlanID + ", name: VLAN, namespace: Net}\n",
			"pool VLAN IDs per site allocates numbers for IpamVLAN; the kind cannot be renamed while the pool exists"},
		{"rename the attribute", vlan("    attributes:\n      - {id: " + ids["vlan_id"] + ", name: vid, kind: Number, optional: true}\n"),
			"pool VLAN IDs per site allocates IpamVLAN.vlan_id; the attribute cannot be renamed while the pool exists"},
		{"inherit", "version: \"1.0\"\ngenerics:\n  - {name: Tagged, namespace: Base, attributes: [{name: label, kind: Text, optional: true}]}\n" +
			"nodes:\n  - {name: VLAN, namespace: Ipam, inherit_from: [BaseTagged]}\n",
			"pool VLAN IDs per site allocates numbers for IpamVLAN; the kind cannot inherit from another generic while the pool exists"},
	} {
		for _, b := range []string{branch.Main, "b1"} {
			err := e.loadErr(b, tt.file)
			wantRefusal(t, err, refusal.ErrInvalid, tt.msg)
			if r := refusal.Classify(err); r.Code != refusal.CodeInvalidArgument {
				t.Errorf("%s on %s: %+v", tt.name, b, r)
			}
		}
	}
	// Nothing was stored: the schema is as it was.
	if _, after := e.elementIDs(branch.Main, "IpamVLAN"); after["site"] != ids["site"] || after["vlan_id"] != ids["vlan_id"] {
		t.Fatal("a refused load changed the schema")
	}
	// Renaming a scope element is allowed; the pool shows main's names.
	rename := vlan("    attributes:\n      - {id: " + ids["role"] + ", name: function, kind: Dropdown, choices: [{name: user}, {name: voice}], default_value: user}\n")
	e.load("b1", rename)
	if got, _ := e.svc.Pool(ctx, operator, p.ID); got.ScopeNames()[1] != "role" {
		t.Errorf("after a rename on b1 the pool shows %v, want main's role", got.ScopeNames())
	}
	e.load(branch.Main, rename)
	got, err := e.svc.Pool(ctx, operator, p.ID)
	if err != nil || got.ScopeNames()[1] != "function" || got.Scope[1].ID != ids["role"] || !got.Scope[0].Relationship {
		t.Fatalf("after the rename on main: %+v, %v", got.Scope, err)
	}
	// Claims and divisions follow the new name.
	a := e.site(branch.Main, "site-a")
	o, err := e.svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", branch.ObjectInput{Attributes: map[string]any{"name": "v", "function": "voice"},
		Relationships: map[string][]string{"site": {a.ID}, "endpoints": {e.endpoint()}}}, []FromPool{{Attribute: "vlan_id", Pool: p.ID}})
	if err != nil || o.Attributes["vlan_id"] != int64(100) {
		t.Fatalf("claim after the rename: %v, %v", o.Attributes, err)
	}
	u, err := e.svc.Utilization(ctx, operator, p.ID, []EntryInput{{Path: "site", Value: a.ID}, {Path: "function", Value: "voice"}})
	if err != nil || u.Figures.Used != 1 {
		t.Fatalf("Utilization by the new name: %+v, %v", u, err)
	}
	d, err := e.svc.Divisions(ctx, operator, p.ID)
	if err != nil || d.Count != 1 || d.Divisions[0].Entries[1].Path != "function" {
		t.Fatalf("Divisions after the rename: %+v, %v", d, err)
	}
	// An element the pool does not use changes freely.
	e.load(branch.Main, vlan("    attributes:\n      - {name: note, kind: Text, optional: true, unique: true}\n"))
	// A scope element changed only on a branch's schema that does not use
	// the pool's kind is none of the guard's business.
	if err := guardPool(storeRow(p), schema.Schema{}, schema.Schema{}); err != nil {
		t.Fatal(err)
	}
}
