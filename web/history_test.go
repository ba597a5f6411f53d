package web

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/views"
)

// historyLinks returns the targets of the links of a page's history.
func historyLinks(page htmlPage) []string {
	var out []string
	for _, a := range page.in("history").all("history-link") {
		out = append(out, attrOf(a, "href"))
	}
	return out
}

// TestAddressObjectHistories: the pages of a VPC, a subnet and a pool
// each show the object's own last changes and those of what it holds, in
// sentences whose objects link where the reader may go; operators get a
// link to the audit log filtered to the object, which lists the same
// sentences, and tenants never see another namespace's changes.
func TestAddressObjectHistories(t *testing.T) {
	t.Parallel()
	tn := newTenancy(t)
	ctx := t.Context()
	acme := auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
	corp := auth.Actor{Name: "corp", Role: auth.Tenant, Namespaces: []string{"acme-corp/*"}}
	if _, err := tn.svc.CreateSubnet(ctx, acme, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.2.0/24"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		actor      auth.Actor
		ns, subnet string
		host       string
	}{
		{acme, "acme/prod", "web", "web-01"},
		{acme, "acme/prod", "db", "db-01"},
		{corp, "acme-corp/prod", "web", "web-09"},
	} {
		if _, err := tn.svc.AttachInterface(ctx, c.actor, ipam.AttachInterfaceInput{Namespace: c.ns, VPC: "main", Subnet: c.subnet,
			VM: ipam.VMRef{UID: c.ns + c.host, Hostname: c.host}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tn.svc.ClaimFloatingIP(ctx, acme, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "fip-1", Pool: "public-zone-a"}); err != nil {
		t.Fatal(err)
	}
	get := func(user, target string) htmlPage {
		t.Helper()
		res := tn.serve(t, http.MethodGet, target, "", tn.as(user))
		body := string(readBody(t, res))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s GET %s = %d, want 200", user, target, res.StatusCode)
		}
		return parseHTML(body)
	}
	webClaim := "acme attached web-01/0 to subnet web: 10.42.1.2"
	dbClaim := "acme attached db-01/0 to subnet db: 10.42.2.2"
	dbCreated := "acme created subnet db in VPC main: 10.42.2.0/24, gateway 10.42.2.1"
	webCreated := "system created subnet web in VPC main: 10.42.1.0/24, gateway 10.42.1.1"
	vpcCreated := "system created VPC main: 10.42.0.0/16, zone zone-a, router uplink 203.0.113.2"
	for _, tt := range []struct {
		user, page string
		want       []string
		links      []string
		// audit is the link to the audit log filtered to the object,
		// operators only.
		audit string
	}{
		{"acme", "/vpcs/acme/prod/main", []string{dbClaim, webClaim, dbCreated, webCreated, vpcCreated},
			[]string{"/subnets/acme/prod/main/db", "/subnets/acme/prod/main/web", "/subnets/acme/prod/main/db", "/vpcs/acme/prod/main",
				"/subnets/acme/prod/main/web", "/vpcs/acme/prod/main", "/vpcs/acme/prod/main"}, ""},
		{"ops", "/vpcs/acme/prod/main", []string{dbClaim, webClaim, dbCreated, webCreated, vpcCreated}, nil,
			"/audit?object_kind=VPC&object_name=main&object_namespace=acme%2Fprod"},
		{"acme", "/subnets/acme/prod/main/web", []string{webClaim, webCreated}, []string{"/subnets/acme/prod/main/web", "/subnets/acme/prod/main/web", "/vpcs/acme/prod/main"}, ""},
		{"ops", "/subnets/acme-corp/prod/main/web", []string{"corp attached web-09/0 to subnet web: 10.42.1.2", webCreated}, nil,
			"/audit?object_kind=Subnet&object_name=main%2Fweb&object_namespace=acme-corp%2Fprod"},
		{"acme", "/pools/acme/prod/vpc-main", []string{dbClaim, webClaim}, []string{"/subnets/acme/prod/main/db", "/subnets/acme/prod/main/web"}, ""},
		{"ops", "/pools/public-zone-a", []string{
			"acme claimed 203.0.113.4 from pool public-zone-a for floating IP fip-1 in acme/prod",
			"system claimed 203.0.113.3 from pool public-zone-a as a router uplink of acme-corp/prod",
			"system claimed 203.0.113.2 from pool public-zone-a as a router uplink of acme/prod",
			"system created public pool public-zone-a: 203.0.113.0/24, gateway 203.0.113.1, zone zone-a",
		}, nil, "/audit?object_kind=IPAMPool&object_name=public-zone-a"},
	} {
		page := get(tt.user, tt.page)
		if got := auditSentences(page.in("history"), "history"); !slices.Equal(got, tt.want) {
			t.Errorf("%s GET %s: the history reads\n%q, want\n%q", tt.user, tt.page, got, tt.want)
		}
		if got := historyLinks(page); tt.links != nil && !slices.Equal(got, tt.links) {
			t.Errorf("%s GET %s: the history links %q, want %q", tt.user, tt.page, got, tt.links)
		}
		all := page.in("history").all("history-all")
		if tt.audit == "" {
			if len(all) != 0 {
				t.Errorf("%s GET %s: a tenant is offered the audit log", tt.user, tt.page)
			}
			continue
		}
		if len(all) != 1 || attrOf(all[0], "href") != tt.audit {
			t.Errorf("%s GET %s: the history does not link %s", tt.user, tt.page, tt.audit)
			continue
		}
		filtered := get("ops", tt.audit)
		if got := auditSentences(filtered, "audit"); !slices.Equal(got, tt.want) {
			t.Errorf("GET %s reads\n%q, want\n%q", tt.audit, got, tt.want)
		}
		if !filtered.has("audit-object") || !filtered.has("audit-every-object") {
			t.Errorf("GET %s does not say whose history it is", tt.audit)
		}
	}
	if got := get("ops", "/audit?object_kind=Subnet&object_name=main%2Fweb&object_namespace=acme%2Fprod").text("audit-object"); !strings.HasPrefix(got, "History of subnet web of VPC main in acme/prod") {
		t.Errorf("the history of a subnet is titled %q", got)
	}
}

// TestKindObjectHistories: a number pool's page shows its own changes and
// its numbers', an object's page its own, each by display label, on the
// branch it was made on; the audit log filtered to either lists the same.
func TestKindObjectHistories(t *testing.T) {
	t.Parallel()
	c := newKindsConsole(t)
	ctx := t.Context()
	site := c.site(t, branch.Main, "site-a")
	pool := c.vlanPool(t, "VLAN IDs", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	c.fromPool(t, pool.ID, "users", site)
	vlan := c.vlan(t, branch.Main, "voice", 7, site)
	if _, err := c.branches.UpdateObject(ctx, auth.System, branch.Main, vlan, branch.ObjectInput{Attributes: map[string]any{"name": "voice-a", "vlan_id": 8}}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		page, audit string
		want        []string
	}{
		{views.NumberPoolHref(pool.ID), "/audit?object_kind=CoreNumberPool&object_name=" + pool.ID, []string{
			"system allocated 100 from number pool VLAN IDs to IpamVLAN users on branch main",
			"system created number pool VLAN IDs of IpamVLAN.vlan_id: 100-199, per site",
		}},
		{views.ObjectHref("IpamVLAN", vlan, ""), "/audit?object_kind=IpamVLAN&object_name=" + vlan, []string{
			"system changed IpamVLAN voice-a on branch main",
			"system created IpamVLAN voice on branch main",
		}},
	} {
		page := c.page(t, tt.page)
		if got := auditSentences(page.in("history"), "history"); !slices.Equal(got, tt.want) {
			t.Errorf("GET %s: the history reads\n%q, want\n%q", tt.page, got, tt.want)
		}
		if all := page.in("history").all("history-all"); len(all) != 1 || attrOf(all[0], "href") != tt.audit {
			t.Errorf("GET %s: the history does not link %s", tt.page, tt.audit)
		}
		if got := auditSentences(c.page(t, tt.audit), "audit"); !slices.Equal(got, tt.want) {
			t.Errorf("GET %s reads\n%q, want\n%q", tt.audit, got, tt.want)
		}
	}
	// The number's holder is named by its label and linked to its page.
	holder := false
	for _, href := range historyLinks(c.page(t, views.NumberPoolHref(pool.ID))) {
		holder = holder || strings.HasPrefix(href, "/objects/IpamVLAN/") && strings.Contains(href, "/edit")
	}
	if !holder {
		t.Errorf("the number pool's history does not link the VLAN that holds 100")
	}
	page := c.page(t, views.ObjectHref("IpamVLAN", vlan, ""))
	var fields []string
	for _, f := range page.in("history").all("history-field") {
		fields = append(fields, strings.Join(strings.Fields(textOf(f)), " "))
	}
	if want := []string{"display label: voice → voice-a", "name: voice → voice-a", "vlan_id: 7 → 8"}; !slices.Equal(fields, want) {
		t.Errorf("the change's fields read %q, want %q", fields, want)
	}
}

// TestBranchHistory: a branch's page shows its history: its creation, its
// schema's loads, the changes of objects and numbers made on it and its
// merge, and no other branch's changes nor main's; the audit log filtered
// to it lists the same.
func TestBranchHistory(t *testing.T) {
	t.Parallel()
	c := newKindsConsole(t)
	ctx := t.Context()
	site := c.site(t, branch.Main, "site-a")
	pool := c.vlanPool(t, "VLAN IDs", []numbers.Range{{Start: 100, End: 199, Weight: 1}}, "site")
	for _, name := range []string{"add-guests", "other"} {
		if _, err := c.branches.CreateBranch(ctx, auth.System, name); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.nums.CreateObject(ctx, auth.System, "add-guests", "IpamVLAN", branch.ObjectInput{Attributes: map[string]any{"name": "guests"},
		Relationships: map[string][]string{"site": {site}}}, []numbers.FromPool{{Attribute: "vlan_id", Pool: pool.ID}}); err != nil {
		t.Fatal(err)
	}
	c.vlan(t, "other", "voice", 7, site)
	c.vlan(t, branch.Main, "users", 10, site)
	c.load(t, "add-guests", `version: "1.0"
nodes:
  - name: VLAN
    namespace: Ipam
    attributes:
      - {name: description, kind: Text, optional: true}
`)
	if _, err := c.branches.MergeBranch(ctx, auth.System, "add-guests"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"system merged branch add-guests into main: 1 object, 1 schema change",
		"system loaded a schema on branch add-guests: 1 change",
		"system created IpamVLAN guests on branch add-guests",
		"system allocated 100 from number pool VLAN IDs to IpamVLAN guests on branch add-guests",
		"system created branch add-guests",
	}
	page := c.page(t, "/branches/add-guests")
	if got := auditSentences(page.in("history"), "history"); !slices.Equal(got, want) {
		t.Errorf("the branch's history reads\n%q, want\n%q", got, want)
	}
	all := page.in("history").all("history-all")
	if len(all) != 1 || attrOf(all[0], "href") != "/audit?object_kind=Branch&object_name=add-guests" {
		t.Fatalf("the branch's history does not link the audit log filtered to it")
	}
	filtered := c.page(t, attrOf(all[0], "href"))
	if got := auditSentences(filtered, "audit"); !slices.Equal(got, want) {
		t.Errorf("the audit log of the branch reads\n%q, want\n%q", got, want)
	}
	if got := filtered.text("audit-object-name"); got != "branch add-guests" {
		t.Errorf("the audit log of the branch is titled %q", got)
	}
}
