package numbers

import (
	"context"
	"errors"
	"slices"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var (
	operator = auth.Actor{Name: "op", Role: auth.Operator}
	acme     = auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
)

// env is a service of number pools on a fresh database, with vlans loaded
// on main.
type env struct {
	t        testing.TB
	svc      *Service
	branches *branch.Service
	db       *store.DB
	url      string
}

// newEnv returns an env on a fresh database with vlans loaded.
func newEnv(t testing.TB) *env {
	t.Helper()
	e := openEnv(t, pgtest.NewURL(t))
	e.load(branch.Main, vlans)
	return e
}

// openEnv opens another service (as another process would) on url.
func openEnv(t testing.TB, url string) *env {
	t.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	return &env{t: t, svc: svc, branches: svc.Branches(), db: db, url: url}
}

// vlans is IpamVLAN with a required site of cardinality one,
// and elements each refusal of a scope needs.
const vlans = `version: "1.0"
generics:
  - name: Endpoint
    namespace: Dcim
    attributes:
      - {name: name, kind: Text}
      - {name: vni, kind: Number, optional: true}
      - {name: fabric, kind: Text}
  - name: Circuit
    namespace: Dcim
    attributes:
      - {name: cid, kind: Number}
      - {name: provider, kind: Text}
nodes:
  - name: Site
    namespace: Location
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: Interface
    namespace: Dcim
    inherit_from: [DcimEndpoint]
    attributes:
      - {name: speed, kind: Number, optional: true}
      - {name: rack, kind: Text}
  - name: Uplink
    namespace: Dcim
    inherit_from: [DcimCircuit]
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number, optional: true}
      - {name: role, kind: Dropdown, choices: [{name: user}, {name: voice}], default_value: user}
      - {name: tags, kind: List, default_value: ["a"]}
      - {name: meta, kind: JSON, default_value: {}}
      - {name: note, kind: Text, optional: true}
      - {name: tenant_id, kind: Number, optional: true, unique: true}
      - {name: level, kind: Number, default_value: 1}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
      - {name: endpoints, peer: DcimEndpoint, cardinality: many, optional: false}
      - {name: backup, peer: LocationSite, cardinality: one, optional: true}
`

// load loads a schema file on the branch.
func (e *env) load(branchName, text string) {
	e.t.Helper()
	if err := e.loadErr(branchName, text); err != nil {
		e.t.Fatalf("LoadSchema(%s): %v", branchName, err)
	}
}

func (e *env) loadErr(branchName, text string) error {
	f, err := schema.Parse("test.yaml", []byte(text))
	if err != nil {
		e.t.Fatal(err)
	}
	_, err = e.branches.LoadSchema(e.t.Context(), operator, branchName, f)
	return err
}

// site creates a site called name on the branch.
func (e *env) site(branchName, name string) branch.Object {
	e.t.Helper()
	o, err := e.branches.CreateObject(e.t.Context(), operator, branchName, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": name}})
	if err != nil {
		e.t.Fatal(err)
	}
	return o
}

// endpoint creates an interface (a DcimEndpoint) on main, once.
func (e *env) endpoint() string {
	e.t.Helper()
	page, err := e.branches.Objects(e.t.Context(), operator, branch.Main, "DcimInterface", branch.Filter{}, 1, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(page.Objects) > 0 {
		return page.Objects[0].ID
	}
	o, err := e.branches.CreateObject(e.t.Context(), operator, branch.Main, "DcimInterface",
		branch.ObjectInput{Attributes: map[string]any{"name": "eth0", "fabric": "f1", "rack": "r1"}})
	if err != nil {
		e.t.Fatal(err)
	}
	return o.ID
}

// vlanInput is a VLAN of the site with the role, its vlan_id given when
// not nil.
func (e *env) vlanInput(name, site, role string, vlanID any) branch.ObjectInput {
	attrs := map[string]any{"name": name, "role": role}
	if vlanID != nil {
		attrs["vlan_id"] = vlanID
	}
	return branch.ObjectInput{Attributes: attrs, Relationships: map[string][]string{"site": {site}, "endpoints": {e.endpoint()}}}
}

// fromPool creates a VLAN of the site on the branch with vlan_id from the
// pool, and returns it and its number.
func (e *env) fromPool(branchName, pool, name, site, role string) (branch.Object, int64) {
	e.t.Helper()
	o, err := e.svc.CreateObject(e.t.Context(), operator, branchName, "IpamVLAN", e.vlanInput(name, site, role, nil),
		[]FromPool{{Attribute: "vlan_id", Pool: pool}})
	if err != nil {
		e.t.Fatalf("CreateObject(%s from pool): %v", name, err)
	}
	return o, o.Attributes["vlan_id"].(int64)
}

// given creates a VLAN with a number given.
func (e *env) given(branchName, name, site, role string, n int64) branch.Object {
	e.t.Helper()
	o, err := e.branches.CreateObject(e.t.Context(), operator, branchName, "IpamVLAN", e.vlanInput(name, site, role, n))
	if err != nil {
		e.t.Fatalf("CreateObject(%s = %d): %v", name, n, err)
	}
	return o
}

// pool creates a pool of IpamVLAN.vlan_id with the ranges and scope.
func (e *env) pool(name string, ranges []Range, scope ...string) Pool {
	e.t.Helper()
	p, err := e.svc.CreatePool(e.t.Context(), operator, PoolInput{Name: name, Node: "IpamVLAN", NodeAttribute: "vlan_id", Ranges: ranges, AllocationScope: scope})
	if err != nil {
		e.t.Fatalf("CreatePool(%s): %v", name, err)
	}
	return p
}

// wantRefusal fails unless err wraps want and its message is msg.
func wantRefusal(t testing.TB, err, want error, msg string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if err.Error() != msg {
		t.Fatalf("err = %q\n want %q", err.Error(), msg)
	}
}

// sorted returns ns sorted.
func sorted(ns []int64) []int64 {
	out := slices.Clone(ns)
	slices.Sort(out)
	return out
}

// storeRow is the row of the pool p, as the store keeps it.
func storeRow(p Pool) store.NumberPoolRow {
	row := store.NumberPoolRow{ID: p.ID, Name: p.Name, KindID: p.KindID, AttributeID: p.AttributeID}
	for _, s := range p.Scope {
		row.Scope = append(row.Scope, s.ID)
	}
	return row
}
