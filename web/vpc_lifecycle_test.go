package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// enclosingForm returns what the form around n sends: its method, its action
// and its fields (hidden inputs), as a browser without script sends them.
func enclosingForm(t *testing.T, n *html.Node) (method, action string, fields url.Values) {
	t.Helper()
	for f := n; f != nil; f = f.Parent {
		if f.Type == html.ElementNode && f.Data == "form" {
			fields = url.Values{}
			for _, in := range (htmlPage{f}).tags("input") {
				if attrOf(in, "type") == "hidden" {
					fields.Add(attrOf(in, "name"), attrOf(in, "value"))
				}
			}
			return strings.ToUpper(attrOf(f, "method")), attrOf(f, "action"), fields
		}
	}
	t.Fatal("the element is in no form")
	return "", "", nil
}

// button returns the only button with data-testid id in page, failing
// the test when there is not exactly one.
func button(t *testing.T, page htmlPage, id string) *html.Node {
	t.Helper()
	found := page.all(id)
	if len(found) != 1 || found[0].Data != "button" {
		t.Fatalf("the page has %d elements %s, want one button", len(found), id)
	}
	return found[0]
}

// link returns the only link with data-testid id in page, failing the
// test when there is not exactly one.
func link(t *testing.T, page htmlPage, id string) *html.Node {
	t.Helper()
	found := page.all(id)
	if len(found) != 1 || found[0].Data != "a" {
		t.Fatalf("the page has %d elements %s, want one link", len(found), id)
	}
	return found[0]
}

// follow presses the button, or follows the link: a GET form's button
// leads to its page, as a link does, whose status and body it returns.
func (c console) follow(t *testing.T, b *html.Node, who http.Header) (int, htmlPage) {
	t.Helper()
	if b.Data == "a" {
		status, body := c.get(t, attrOf(b, "href"), who)
		return status, parseHTML(body)
	}
	method, action, fields := enclosingForm(t, b)
	if method != http.MethodGet {
		t.Fatalf("the button's form is %s, want GET", method)
	}
	status, body := c.get(t, action+"?"+fields.Encode(), who)
	return status, parseHTML(body)
}

// confirm presses the final button of a confirmation page: it posts its
// form, and follows the redirect.
func (c console) confirm(t *testing.T, page htmlPage, who http.Header) (int, string, htmlPage) {
	t.Helper()
	method, action, fields := enclosingForm(t, button(t, page, "confirm"))
	if method != http.MethodPost {
		t.Fatalf("the confirmation's form is %s, want POST", method)
	}
	return c.postFollow(t, action, fields, who)
}

// TestVPCPageListsAddresses: the VPC page lists the VM interfaces and node
// addresses of the VPC, each with its subnet, owner and a Detach button,
// a page at a time.
func TestVPCPageListsAddresses(t *testing.T) {
	c := newConsoleWithData(t)
	if _, err := c.svc.AttachNode(t.Context(), auth.System, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "hv-1", Name: "hv-1"}}); err != nil {
		t.Fatal(err)
	}
	status, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	page := parseHTML(body)
	list := page.in("vpc-addresses")
	if status != http.StatusOK || list.text("address-count") != "121 addresses held in main" {
		t.Fatalf("GET the VPC page = %d, count %q", status, list.text("address-count"))
	}
	row := list.in("address-10.42.1.2")
	if got := strings.Join([]string{row.text("address-subnet"), row.text("address"), row.text("owner-kind"), row.text("owner-name")}, " "); got != "web 10.42.1.2 VirtualMachine vm-000/0" {
		t.Errorf("the first row reads %q", got)
	}
	if b := button(t, row, "detach"); textOf(b) != "Detach vm-000/0" {
		t.Errorf("the row's button is named %q, want Detach vm-000/0", textOf(b))
	}
	if n := len(list.all("detach")); n != 50 {
		t.Errorf("the first page has %d Detach buttons, want 50", n)
	}
	next := list.all("addresses-next")
	if len(next) != 1 {
		t.Fatal("the list has no next page")
	}
	href, _, _ := strings.Cut(attrOf(next[0], "href"), "#") // a browser sends no fragment
	_, body = c.get(t, href, c.acme)
	if list := parseHTML(body).in("vpc-addresses"); !list.has("address-10.42.1.52") || list.has("address-10.42.1.2") || !list.has("addresses-first") {
		t.Errorf("the second page lists %v", list.testIDs("address-10"))
	}
	// The node's address is on the third page, with its uid.
	_, body = c.get(t, "/vpcs/acme/prod/main?after=10.42.1.101", c.acme)
	row = parseHTML(body).in("address-10.42.1.122")
	if row.text("owner-kind") != "Node" || row.text("owner-name") != "hv-1" || textOf(button(t, row, "detach")) != "Detach node hv-1" {
		t.Errorf("the node's row reads %q", row.words())
	}
}

// TestDetachFromVPCPage: Detach leads to a page that says what the detach
// releases; its button detaches (the domain's detachInterface for a VM,
// release by owner for a node), and the VPC page says so. Another tenant
// finds neither the page nor the action.
func TestDetachFromVPCPage(t *testing.T) {
	c := newConsoleWithData(t)
	if _, err := c.svc.AttachNode(t.Context(), auth.System, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "hv-1", Name: "hv-1"}}); err != nil {
		t.Fatal(err)
	}
	_, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	status, confirm := c.follow(t, button(t, parseHTML(body).in("address-10.42.1.2"), "detach"), c.acme)
	if status != http.StatusOK || !strings.HasPrefix(confirm.text("consequence"), "Detaching vm-000/0 from subnet web releases 10.42.1.2, which it has held since ") ||
		textOf(button(t, confirm, "confirm")) != "Detach vm-000/0" || confirm.title() != "Detach vm-000/0? · PiVirt IPAM" {
		t.Fatalf("the confirmation = %d %q %q", status, confirm.title(), confirm.text("consequence"))
	}
	// 120 VM interfaces, the node's address and the router's uplink.
	if n := c.allocations(t); n != 122 {
		t.Fatalf("asking to confirm changed the allocations: %d", n)
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/main?confirm=detach&address=10.42.1.2", c.gx); status != http.StatusNotFound {
		t.Errorf("another tenant's confirmation = %d, want 404", status)
	}
	_, action, fields := enclosingForm(t, button(t, confirm, "confirm"))
	if status, _, _ := c.post(t, action, fields, c.gx); status != http.StatusNotFound || c.allocations(t) != 122 {
		t.Errorf("another tenant's detach = %d, want 404 and nothing released", status)
	}

	status, location, page := c.confirm(t, confirm, c.acme)
	if want := "Detached vm-000/0 from subnet web; 10.42.1.2 is free again."; status != http.StatusSeeOther || location != "/vpcs/acme/prod/main" || page.text("flash") != want {
		t.Errorf("detaching = %d to %q, flash %q; want 303 to the VPC page and %q", status, location, page.text("flash"), want)
	}
	if page.in("vpc-addresses").has("address-10.42.1.2") || c.allocations(t) != 121 {
		t.Error("the detached interface is still listed or held")
	}
	if _, body := c.get(t, "/vpcs/acme/prod/main", c.acme); parseHTML(body).has("flash") {
		t.Error("the flash shows again on reload")
	}
	// Posted again (a second tab): nothing to release, and the page says so.
	_, _, page = c.postFollow(t, action, fields, c.acme)
	if want := "vm-000/0 was not attached any more: nothing was released."; page.text("flash") != want {
		t.Errorf("detaching again: flash %q, want %q", page.text("flash"), want)
	}

	_, body = c.get(t, "/vpcs/acme/prod/main?after=10.42.1.101", c.acme)
	_, confirm = c.follow(t, button(t, parseHTML(body).in("address-10.42.1.122"), "detach"), c.acme)
	if !strings.HasPrefix(confirm.text("consequence"), "Detaching node hv-1 from subnet web releases 10.42.1.122") {
		t.Errorf("the node's confirmation says %q", confirm.text("consequence"))
	}
	_, _, page = c.confirm(t, confirm, c.acme)
	if want := "Detached node hv-1 from subnet web; 10.42.1.122 is free again."; page.text("flash") != want {
		t.Errorf("detaching the node: flash %q, want %q", page.text("flash"), want)
	}
	var entries []string
	if err := c.db.Select(&entries, `SELECT actor || ' ' || action || ' ' || (before->>'address') FROM audit_log WHERE action = 'release' ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entries, ", "); got != "acme release 10.42.1.2, acme release 10.42.1.122" {
		t.Errorf("audit: %s", got)
	}
}

// TestReleaseFloatingIPFromVPCPage: the floating IPs of the VPC page's
// namespace have a Release button; its confirmation says the address it
// frees, and the VPC page what was freed.
func TestReleaseFloatingIPFromVPCPage(t *testing.T) {
	c := newConsoleWithData(t)
	if _, err := c.svc.ClaimFloatingIP(t.Context(), auth.System, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "fip-1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	_, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	b := button(t, parseHTML(body).in("floating-ip-fip-1"), "release-floating-ip")
	if textOf(b) != "Release floating IP fip-1" {
		t.Errorf("the button is named %q", textOf(b))
	}
	status, confirm := c.follow(t, b, c.acme)
	if want := "Releasing floating IP fip-1 frees 203.0.113.3 in public pool public-zone-a."; status != http.StatusOK || confirm.text("consequence") != want {
		t.Fatalf("the confirmation = %d %q, want %q", status, confirm.text("consequence"), want)
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/main?confirm=release-floating-ip&name=fip-1", c.gx); status != http.StatusNotFound {
		t.Errorf("another tenant's confirmation = %d, want 404", status)
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/main?confirm=release-floating-ip&name=fip-9", c.acme); status != http.StatusNotFound {
		t.Errorf("the confirmation of a floating IP that does not exist = %d, want 404", status)
	}
	status, _, page := c.confirm(t, confirm, c.acme)
	if want := "Floating IP fip-1 released; 203.0.113.3 is free again."; status != http.StatusSeeOther || page.text("flash") != want || page.has("floating-ip-fip-1") {
		t.Errorf("releasing = %d, flash %q; want 303, %q and its row gone", status, page.text("flash"), want)
	}
	if fips, _ := c.svc.FloatingIPs(t.Context(), auth.System, ""); len(fips) != 0 {
		t.Errorf("floating IPs left: %v", fips)
	}
}

// TestDeleteSubnetFromVPCPage: a subnet with VM interfaces is refused with
// the domain's message and their count, on the confirmation and when
// posted anyway; one without says how many addresses go with it.
func TestDeleteSubnetFromVPCPage(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	if _, err := c.svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.2.0/24"}); err != nil {
		t.Fatal(err)
	}
	for _, uid := range []string{"hv-1", "hv-2"} {
		if _, err := c.svc.AttachNode(ctx, auth.System, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "db", Node: ipam.NodeRef{UID: uid, Name: uid}}); err != nil {
			t.Fatal(err)
		}
	}
	_, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	page := parseHTML(body)
	status, confirm := c.follow(t, button(t, page.in("subnet-web"), "delete-subnet"), c.acme)
	want := "subnet web of VPC acme/prod/main still has 120 VM interfaces; detach them first"
	if status != http.StatusOK || confirm.text("refusal") != want || confirm.has("confirm") {
		t.Errorf("the confirmation of web = %d, refusal %q, button %v; want %q and no button", status, confirm.text("refusal"), confirm.has("confirm"), want)
	}
	status, _, body = c.post(t, "/vpcs/acme/prod/main/-/delete-subnet", url.Values{"subnet": {"web"}}, c.acme)
	if got := parseHTML(body).text("refusal"); status != http.StatusUnprocessableEntity || got != want {
		t.Errorf("deleting web anyway = %d %q, want 422 %q", status, got, want)
	}

	status, confirm = c.follow(t, button(t, page.in("subnet-db"), "delete-subnet"), c.acme)
	if status != http.StatusOK || confirm.text("consequence") != "Deleting subnet db releases 2 addresses." || textOf(button(t, confirm, "confirm")) != "Delete subnet db" {
		t.Fatalf("the confirmation of db = %d %q", status, confirm.text("consequence"))
	}
	if status, _, _ := c.post(t, "/vpcs/acme/prod/main/-/delete-subnet", url.Values{"subnet": {"db"}}, c.gx); status != http.StatusNotFound {
		t.Errorf("another tenant's delete = %d, want 404", status)
	}
	status, _, page = c.confirm(t, confirm, c.acme)
	if want := "Subnet db deleted; 2 addresses released."; status != http.StatusSeeOther || page.text("flash") != want || page.has("subnet-db") {
		t.Errorf("deleting db = %d, flash %q; want %q and the subnet gone", status, page.text("flash"), want)
	}
	// The subnet's own page leads to the same confirmation.
	_, body = c.get(t, "/subnets/acme/prod/main/web", c.acme)
	if _, confirm := c.follow(t, button(t, parseHTML(body), "delete-subnet"), c.acme); !strings.Contains(confirm.text("refusal"), "still has 120 VM interfaces") {
		t.Errorf("the subnet page's Delete leads to %q", confirm.words())
	}
}

// TestDeleteVPCFromVPCPage: the confirmation says the subnets, addresses
// and router uplink that go with the VPC; the VPC list says they went. A
// VPC with VM interfaces is refused with their count.
func TestDeleteVPCFromVPCPage(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	if _, err := c.svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.50.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err) // its uplink: 203.0.113.3
	}
	for _, name := range []string{"a", "b"} {
		if _, err := c.svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "edge", Name: name, PrefixLength: 24}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.svc.AttachNode(ctx, auth.System, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "edge", Subnet: "a", Node: ipam.NodeRef{UID: "hv-1", Name: "hv-1"}}); err != nil {
		t.Fatal(err)
	}
	_, body := c.get(t, "/vpcs/acme/prod/edge", c.acme)
	status, confirm := c.follow(t, button(t, parseHTML(body), "delete-vpc"), c.acme)
	if want := "Deleting VPC edge deletes 2 subnets and its pool vpc-edge, and releases 1 address and its router uplink 203.0.113.3."; status != http.StatusOK || confirm.text("consequence") != want {
		t.Fatalf("the confirmation = %d %q, want %q", status, confirm.text("consequence"), want)
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/edge?confirm=delete-vpc", c.gx); status != http.StatusNotFound {
		t.Errorf("another tenant's confirmation = %d, want 404", status)
	}
	status, location, page := c.confirm(t, confirm, c.acme)
	if want := "VPC acme/prod/edge deleted, with 2 subnets; 1 address and its router uplink 203.0.113.3 released."; status != http.StatusSeeOther || location != "/vpcs" || page.text("flash") != want || page.has("vpc-acme/prod/edge") {
		t.Errorf("deleting = %d to %q, flash %q; want 303 to /vpcs and %q", status, location, page.text("flash"), want)
	}

	_, body = c.get(t, "/vpcs/acme/prod/main?confirm=delete-vpc", c.acme)
	if want := "VPC acme/prod/main still has 120 VM interfaces; detach them first"; parseHTML(body).text("refusal") != want {
		t.Errorf("the confirmation of main says %q, want %q", parseHTML(body).text("refusal"), want)
	}
}
