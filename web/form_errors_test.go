package web

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/numbers"
)

// checkFieldErrors checks the form of testid in a refused page: every
// message of want (by the key of its field: error-<key>) beside its field,
// whose inputs say aria-invalid="true" and name the message first in
// aria-describedby; and no other input of the form marked invalid, nor
// another message of a field.
func checkFieldErrors(t *testing.T, page htmlPage, testid string, want map[string]string) {
	t.Helper()
	form := page.in(testid)
	if form.root == nil {
		t.Fatalf("the page has no form %s:\n%s", testid, page.words())
	}
	marked := map[string]bool{}
	for key, msg := range want {
		errs := form.all("error-" + key)
		if len(errs) != 1 {
			t.Errorf("%s: %d messages of %s, want 1", testid, len(errs), key)
			continue
		}
		if got := strings.TrimSpace(textOf(errs[0])); got != msg {
			t.Errorf("%s: the message beside %s is %q, want %q", testid, key, got, msg)
		}
		id := attrOf(errs[0], "id")
		inputs := form.elements(func(n *html.Node) bool { return attrOf(n, "data-field-error") == id })
		if id == "" || len(inputs) == 0 {
			t.Errorf("%s: no input is tied to the message of %s (id %q)", testid, key, id)
		}
		for _, in := range inputs {
			marked[attrOf(in, "id")+attrOf(in, "name")] = true
			if attrOf(in, "aria-invalid") != "true" || strings.Fields(attrOf(in, "aria-describedby"))[0] != id {
				t.Errorf("%s: the input %s of %s says aria-invalid=%q aria-describedby=%q, want true and %s first", testid, attrOf(in, "name"), key,
					attrOf(in, "aria-invalid"), attrOf(in, "aria-describedby"), id)
			}
		}
	}
	for _, in := range form.elements(func(n *html.Node) bool { _, ok := nodeAttr(n, "aria-invalid"); return ok }) {
		if !marked[attrOf(in, "id")+attrOf(in, "name")] {
			t.Errorf("%s: the input %s is marked invalid, want only the fields of %v", testid, attrOf(in, "name"), slices.Sorted(maps.Keys(want)))
		}
	}
	for _, id := range form.testIDs("error-") {
		if _, ok := want[strings.TrimPrefix(id, "error-")]; !ok && form.text(id) != "" {
			t.Errorf("%s: a message beside %s: %q", testid, id, form.text(id))
		}
	}
}

// TestFieldErrorsOfTheIPForms submits the new and edit public pool forms,
// the VPC page's three claim forms and the set-quota form with several bad fields
// each: every mistake is beside its field, at once, in plain words.
func TestFieldErrorsOfTheIPForms(t *testing.T) {
	c := newConsoleWithData(t)
	tests := []struct {
		name, target string
		who          http.Header
		form         url.Values
		testid       string
		want         map[string]string
	}{
		{"new public pool", "/pools", c.op,
			url.Values{"name": {"B!"}, "cidr": {"192.0.2.0/24"}, "gateway": {"10.0.0.1"}, "exclude": {"192.0.2.9\n192.0.3.10"}, "zone": {"Zone A"}},
			"form-new-pool", map[string]string{
				"name":    `Name "B!" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`,
				"gateway": "Gateway 10.0.0.1 is outside 192.0.2.0/24",
				"exclude": "Exclude 192.0.3.10 is outside 192.0.2.0/24",
				"zone":    `Zone "Zone A" is not a valid zone: use lower-case letters, digits and '-'`,
			}},
		{"new public pool, bad prefix", "/pools", c.op,
			url.Values{"name": {""}, "cidr": {"10.0.0.5/24"}, "gateway": {"x"}, "exclude": {"nope"}},
			"form-new-pool", map[string]string{
				"name":    "Name is required",
				"cidr":    "CIDR 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?",
				"gateway": `Gateway "x" is not an IPv4 address such as 10.0.0.1`,
				"exclude": `Exclude "nope" is not an IPv4 address such as 10.0.0.1`,
			}},
		{"edit a public pool", "/pools/public-zone-a/edit", c.op,
			url.Values{"gateway": {"10.0.0.1"}, "exclude": {"203.0.113.9\n192.0.3.10"}, "zone": {"Zone A"}},
			"form-edit-pool", map[string]string{
				"gateway": "Gateway 10.0.0.1 is outside 203.0.113.0/24",
				"exclude": "Exclude 192.0.3.10 is outside 203.0.113.0/24",
				"zone":    `Zone "Zone A" is not a valid zone: use lower-case letters, digits and '-'`,
			}},
		{"attach an interface", "/vpcs/acme/prod/main/-/attach-interface", c.acme,
			url.Values{"subnet": {"web"}, "hostname": {"bad host"}, "nic": {"one"}},
			"form-attach-interface", map[string]string{
				"hostname": `Hostname "bad host" is not a valid hostname`,
				"nic":      `NIC "one" is not a number`,
			}},
		{"claim a floating IP", "/vpcs/acme/prod/main/-/claim-floating-ip", c.acme,
			url.Values{"name": {"Bad"}, "zone": {"Zone A"}},
			"form-claim-floating-ip", map[string]string{
				"name": `Name "Bad" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`,
				"zone": `Zone "Zone A" is not a valid zone: use lower-case letters, digits and '-'`,
			}},
		{"create a subnet", "/vpcs/acme/prod/main/-/create-subnet", c.acme,
			url.Values{"name": {"Bad"}, "cidr": {"10.42.9.5/24"}, "gateway": {"nope"}},
			"form-create-subnet", map[string]string{
				"name":    `Name "Bad" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`,
				"cidr":    "CIDR 10.42.9.5/24 has host bits set; did you mean 10.42.9.0/24?",
				"gateway": `Gateway "nope" is not an IPv4 address such as 10.0.0.1`,
			}},
		{"create a subnet of a size that is no number", "/vpcs/acme/prod/main/-/create-subnet", c.acme,
			url.Values{"name": {"Bad"}, "prefixLength": {"big"}, "gateway": {"nope"}},
			"form-create-subnet", map[string]string{
				"name":         `Name "Bad" is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit`,
				"prefixLength": `Prefix length "big" is not a prefix length such as 24`,
				"gateway":      `Gateway "nope" is not an IPv4 address such as 10.0.0.1`,
			}},
		{"set a quota", "/quotas", c.op,
			url.Values{"pattern": {"Bad Pattern"}, "vpcs": {"-1"}, "subnets": {"many"}},
			"form-set-quota", map[string]string{
				"pattern": `Pattern "Bad Pattern" is not a namespace pattern such as acme/prod or acme/*`,
				"vpcs":    "A limit of -1 VPCs is out of range: 0 to 2147483647",
				"subnets": "Subnets: give a whole number from 0, or nothing for no limit",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := c.post(t, tt.target, tt.form, tt.who)
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s %v = %d, want 422", tt.target, tt.form, status)
			}
			checkFieldErrors(t, parseHTML(body), tt.testid, tt.want)
		})
	}
}

// TestFieldErrorsOfTheKindForms submits the number pool form (new and
// edit), the object form (new and edit), the new branch form and the
// schema load form with several bad fields each.
func TestFieldErrorsOfTheKindForms(t *testing.T) {
	c := newKindsConsole(t)
	site := c.site(t, branch.Main, "site-a")
	vlan := c.vlan(t, branch.Main, "users", 10, site)
	pool, err := c.nums.CreatePool(t.Context(), auth.System, numbers.PoolInput{Name: "global", Node: "IpamVLAN", NodeAttribute: "vlan_id",
		Ranges: []numbers.Range{{Start: 1, End: 4, Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, target string
		form         url.Values
		testid       string
		want         map[string]string
	}{
		{"new number pool", "/resource-managers",
			url.Values{"name": {" "}, "node": {"IpamNothing"}, "start": {"10", "20"}, "end": {"5", "30"}, "weight": {"1", "0"}},
			"form-number-pool", map[string]string{
				"name": "Name is required, such as VLAN IDs per site",
				"node": "Kind: IpamNothing is not a kind of the default branch's schema",
				"ranges": "Range 1 start 10 is after its end 5; " +
					"Range 2's weight 0 is less than 1; a range's weight is 1 or more (1 when not given)",
			}},
		{"new number pool, a range that is no number", "/resource-managers",
			url.Values{"name": {""}, "node": {"IpamVLAN"}, "node_attribute": {"vlan_id"}, "start": {"x"}, "end": {"9"}, "weight": {"one"}},
			"form-number-pool", map[string]string{
				"name":   "Name is required, such as VLAN IDs per site",
				"ranges": `Range 1: the start "x" is not a whole number; Range 1: the weight "one" is not a whole number`,
			}},
		{"edit a number pool", "/resource-managers/" + pool.ID,
			url.Values{"name": {""}, "start": {"5"}, "end": {"1"}, "weight": {"1"}},
			"form-number-pool", map[string]string{
				"name":   "Name is required, such as VLAN IDs per site",
				"ranges": "Range 1 start 5 is after its end 1",
			}},
		{"new object", "/objects/IpamVLAN",
			url.Values{"name": {""}, "vlan_id__mode": {"value"}, "vlan_id": {"ten"}, "tags": {"[1,"}},
			"form-object", map[string]string{
				"name":    "Name: a value is required",
				"vlan_id": `Vlan id: "ten" is not a whole number`,
				"tags":    "Tags: not valid JSON: unexpected EOF",
				"site":    "Site: a peer is required",
			}},
		{"new object, the domain's refusals", "/objects/IpamVLAN",
			url.Values{"name": {""}, "vlan_id__mode": {"value"}, "vlan_id": {"7"}, "role": {"boss"}},
			"form-object", map[string]string{
				"name": "Name: a value is required",
				"role": `Role: "boss" is not one of the choices user, voice`,
				"site": "Site: a peer is required",
			}},
		{"edit an object", "/objects/IpamVLAN/" + vlan,
			url.Values{"name": {"users"}, "site": {site}, "vlan_id__mode": {"value"}, "vlan_id": {"x"}, "meta": {"{"}},
			"form-object", map[string]string{
				"vlan_id": `Vlan id: "x" is not a whole number`,
				"meta":    "Meta: not valid JSON: unexpected EOF",
			}},
		{"new branch", "/branches", url.Values{"name": {"Bad Name"}}, "form-create-branch", map[string]string{
			"name": `Name "Bad Name" is not a branch's name: letters, digits, '.', '_' and '-', in segments separated by '/', each starting with a letter or a digit`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, body := c.post(t, tt.target, tt.form, c.op)
			if status != http.StatusUnprocessableEntity {
				t.Fatalf("POST %s %v = %d, want 422:\n%s", tt.target, tt.form, status, body)
			}
			checkFieldErrors(t, parseHTML(body), tt.testid, tt.want)
		})
	}

	// The schema load: every mistake of the file, listed beside the
	// field, which is marked.
	bad := "version: \"1.0\"\nnodes:\n  - name: Rack\n  - namespace: Dcim\n"
	status, _, body := c.post(t, "/schema", url.Values{"schema": {bad}}, c.op)
	page := parseHTML(body)
	lines := page.all("schema-error")
	if status != http.StatusUnprocessableEntity || len(lines) < 2 {
		t.Fatalf("POST /schema of a file with two nodes without namespace or name = %d with %d mistakes, want 422 with each", status, len(lines))
	}
	errs := page.in("form-schema-load").all("schema-errors")
	text := page.byID("schema-text")
	if len(errs) != 1 || text == nil || attrOf(text, "aria-invalid") != "true" || attrOf(text, "aria-describedby") != attrOf(errs[0], "id") {
		t.Errorf("the schema's field is not tied to its mistakes: aria-invalid=%q aria-describedby=%q", attrOf(text, "aria-invalid"), attrOf(text, "aria-describedby"))
	}
}

// TestFieldErrorsOfTheLoginForm signs in with neither a user name nor a
// password: each field says it is missing.
func TestFieldErrorsOfTheLoginForm(t *testing.T) {
	t.Parallel()
	c := newConsoleWithData(t)
	status, _, body := c.post(t, "/login", url.Values{"username": {""}, "password": {""}}, nil)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("POST /login without user name nor password = %d, want 422", status)
	}
	checkFieldErrors(t, parseHTML(body), "login-form", map[string]string{"username": "Enter your user name.", "password": "Enter your password."})
}

// TestNoMistakeOnAnEmptyForm: a form the user has not submitted says
// nothing of its fields.
func TestNoMistakeOnAnEmptyForm(t *testing.T) {
	c := newConsoleWithData(t)
	for target, form := range map[string]string{"/pools/new": "form-new-pool", "/vpcs/acme/prod/main": "form-create-subnet", "/quotas": "form-set-quota", "/login": "login-form"} {
		who := c.op
		if strings.HasPrefix(target, "/vpcs") {
			who = c.acme
		}
		if target == "/login" {
			who = nil
		}
		_, body := c.get(t, target, who)
		checkFieldErrors(t, parseHTML(body), form, nil)
	}
}
