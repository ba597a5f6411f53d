package web

import (
	"net/http"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
)

// kindsSchema is IpamVLAN, with a required site of
// cardinality one and an attribute of each kind the object form draws.
const kindsSchema = `version: "1.0"
nodes:
  - name: Site
    namespace: Location
    display_label: "{{ name__value }}"
    attributes:
      - {name: name, kind: Text, unique: true}
  - name: VLAN
    namespace: Ipam
    display_label: "{{ name__value }}"
    uniqueness_constraints: [["site", "vlan_id__value"]]
    attributes:
      - {name: name, kind: Text}
      - {name: vlan_id, kind: Number}
      - {name: role, kind: Dropdown, choices: [{name: user}, {name: voice}], default_value: user}
      - {name: active, kind: Boolean, default_value: true}
      - {name: tags, kind: List, optional: true}
      - {name: meta, kind: JSON, optional: true}
    relationships:
      - {name: site, peer: LocationSite, cardinality: one, optional: false}
      - {name: backups, peer: LocationSite, cardinality: many, optional: true}
`

// kindsConsole is a console with number pools, the schema kindsSchema on
// main, an operator and a tenant signed in.
type kindsConsole struct {
	console
	nums     *numbers.Service
	branches *branch.Service
}

func newKindsConsole(t *testing.T) kindsConsole {
	t.Helper()
	db := pgtest.NewDB(t)
	nums := testNumbers(t, db)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: testIPAM(t, db), Numbers: nums, Logger: quietLogger, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c := kindsConsole{console: console{h: h, db: db}, nums: nums, branches: nums.Branches()}
	c.op = cookieHeader(signIn(t, h, "ops", addUser(t, db, "ops", auth.Operator)))
	c.acme = cookieHeader(signIn(t, h, "acme", addUser(t, db, "acme", auth.Tenant, "acme/*")))
	c.load(t, branch.Main, kindsSchema)
	return c
}

// load loads a schema file on the branch.
func (c kindsConsole) load(t *testing.T, branchName, text string) {
	t.Helper()
	f, err := schema.Parse("schema.yml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.branches.LoadSchema(t.Context(), auth.System, branchName, f); err != nil {
		t.Fatal(err)
	}
}

// site creates a site on the branch and returns its id.
func (c kindsConsole) site(t *testing.T, branchName, name string) string {
	t.Helper()
	o, err := c.branches.CreateObject(t.Context(), auth.System, branchName, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": name}})
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// vlan creates a VLAN on the branch and returns its id.
func (c kindsConsole) vlan(t *testing.T, branchName, name string, vlanID int, site string) string {
	t.Helper()
	o, err := c.branches.CreateObject(t.Context(), auth.System, branchName, "IpamVLAN", branch.ObjectInput{
		Attributes: map[string]any{"name": name, "vlan_id": vlanID}, Relationships: map[string][]string{"site": {site}}})
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

// notFoundFor checks that the tenant gets the 404 page at target.
func (c kindsConsole) notFoundFor(t *testing.T, method, target string) {
	t.Helper()
	var status int
	if method == http.MethodGet {
		status, _ = c.get(t, target, c.acme)
	} else {
		status, _, _ = c.post(t, target, nil, c.acme)
	}
	if status != http.StatusNotFound {
		t.Errorf("%s %s as a tenant = %d, want 404", method, target, status)
	}
}
