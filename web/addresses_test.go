package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
)

// mapOf reads the address map with data-testid id: its cells (the links,
// in order), the cells in the tab order, and its row and column labels.
func mapOf(p htmlPage, id string) (cells, tabStops []*html.Node, rows, columns []string) {
	m := p.in(id)
	cells = m.elements(func(n *html.Node) bool { return n.Data == "a" && n.Parent != nil && n.Parent.Data == "td" })
	for _, c := range cells {
		if attrOf(c, "tabindex") != "-1" {
			tabStops = append(tabStops, c)
		}
	}
	for _, th := range m.elements(func(n *html.Node) bool { return n.Data == "th" }) {
		if attrOf(th, "scope") == "row" {
			rows = append(rows, textOf(th))
		} else {
			columns = append(columns, textOf(th))
		}
	}
	return cells, tabStops, rows, columns
}

// TestAddressMaps draws the maps of a subnet, of a VPC and of a pool:
// the gateway as the gateway, rows and columns labelled, every cell a
// link to its address's page (or its block's map) and one tab stop a map,
// with a legend of the states it shows and the script that moves in it.
func TestAddressMaps(t *testing.T) {
	c := newConsoleWithData(t)
	_, body := c.get(t, "/subnets/acme/prod/main/web", c.acme)
	page := parseHTML(body)
	cells, tabStops, rows, columns := mapOf(page, "subnet-map")
	if len(cells) != 256 || len(tabStops) != 1 || attrOf(tabStops[0], "data-address") != "10.42.1.0" {
		t.Fatalf("the subnet's map has %d cells and %d tab stops, want 256 and one, its first", len(cells), len(tabStops))
	}
	var wantRows, wantColumns []string
	for i := range 16 {
		wantRows = append(wantRows, fmt.Sprintf(".%d", 16*i))
		wantColumns = append(wantColumns, fmt.Sprintf("+%d", i))
	}
	if !slices.Equal(rows, wantRows) || !slices.Equal(columns, wantColumns) {
		t.Errorf("the subnet's map labels its rows %q and its columns %q, want %q and %q", rows, columns, wantRows, wantColumns)
	}
	grid := page.all("subnet-map")[0]
	if grid.Data != "table" || attrOf(grid, "role") != "grid" || attrOf(grid, "aria-label") != "Address map of 10.42.1.0/24" {
		t.Errorf("the subnet's map is <%s role=%q aria-label=%q>, want a grid named by its prefix", grid.Data, attrOf(grid, "role"), attrOf(grid, "aria-label"))
	}
	want := map[string]struct{ state, class, href string }{
		"10.42.1.0":   {"network", "s-n", "/addresses/acme/prod/vpc-main/10.42.1.0"},
		"10.42.1.1":   {"gateway", "s-g", "/addresses/acme/prod/vpc-main/10.42.1.1"},
		"10.42.1.2":   {"taken", "s-t", "/addresses/acme/prod/vpc-main/10.42.1.2"},
		"10.42.1.200": {"free", "s-f", "/addresses/acme/prod/vpc-main/10.42.1.200"},
		"10.42.1.255": {"broadcast", "s-b", "/addresses/acme/prod/vpc-main/10.42.1.255"},
	}
	for _, cell := range cells {
		if w, ok := want[attrOf(cell, "data-address")]; ok && (attrOf(cell, "data-state") != w.state || attrOf(cell, "class") != w.class || attrOf(cell, "href") != w.href) {
			t.Errorf("the cell of %s is %s (%s) linked to %s, want %s (%s) linked to %s", attrOf(cell, "data-address"),
				attrOf(cell, "data-state"), attrOf(cell, "class"), attrOf(cell, "href"), w.state, w.class, w.href)
		}
	}
	if got := attrOf(cells[1], "title"); got != "10.42.1.1 is the gateway of subnet web" {
		t.Errorf("hovering the gateway says %q", got)
	}
	var legend []string
	for _, li := range page.in("map-legend").tags("li") {
		legend = append(legend, textOf(li))
	}
	if strings.Join(legend, ", ") != "free, taken, network / broadcast, gateway" {
		t.Errorf("the subnet map's legend lists %q, want free, taken, network / broadcast, gateway", legend)
	}
	if scripts := page.scripts("/static/js/maps.js"); len(scripts) != 1 {
		t.Errorf("the subnet page loads js/maps.js %d times, want once", len(scripts))
	}

	// The VPC page draws the same map.
	_, body = c.get(t, "/vpcs/acme/prod/main", c.acme)
	page = parseHTML(body)
	cells, tabStops, _, _ = mapOf(page.in("subnet-web"), "subnet-map")
	if len(cells) != 256 || len(tabStops) != 1 || attrOf(cells[1], "data-state") != "gateway" || attrOf(cells[1], "href") != "/addresses/acme/prod/vpc-main/10.42.1.1" {
		t.Errorf("the VPC page's map of web has %d cells, %d tab stops, its gateway %s, want 256, 1, gateway", len(cells), len(tabStops), attrOf(cells[1], "data-state"))
	}

	// A /16 is 256 blocks, and one tab stop.
	_, body = c.get(t, "/pools/acme/prod/vpc-main", c.acme)
	page = parseHTML(body)
	cells, tabStops, rows, _ = mapOf(page, "address-map")
	if len(cells) != 256 || len(tabStops) != 1 {
		t.Errorf("the /16's map has %d cells and %d tab stops, want 256 blocks and one tab stop", len(cells), len(tabStops))
	}
	if len(rows) != 16 || rows[0] != ".0.0" || rows[1] != ".16.0" || rows[15] != ".240.0" {
		t.Errorf("the /16's map labels its rows %q, want .0.0, .16.0 … .240.0", rows)
	}
	if len(cells) > 1 && (attrOf(cells[1], "href") != "/pools/acme/prod/vpc-main?block=10.42.1.0%2F24" || attrOf(cells[1], "class") != "u3" ||
		attrOf(cells[1], "title") != "10.42.1.0/24: 120 of 256 in use") {
		t.Errorf("the /16's block 10.42.1.0/24 is %q %q %q, want linked to its map, filled to three fifths, 120 of 256 in use",
			attrOf(cells[1], "href"), attrOf(cells[1], "class"), attrOf(cells[1], "title"))
	}
	// Its block of web: the subnet's gateway drawn as the gateway, the
	// addresses in no subnet as such.
	_, body = c.get(t, "/pools/acme/prod/vpc-main?block=10.42.2.0/24", c.acme)
	cells, _, _, _ = mapOf(parseHTML(body), "address-map")
	if len(cells) != 256 || attrOf(cells[0], "data-state") != "outside" || attrOf(cells[0], "title") != "10.42.2.0 is in no subnet of VPC main: addresses are handed out in subnets only" {
		t.Errorf("the block 10.42.2.0/24, in no subnet, starts with %q", attrOf(cells[0], "title"))
	}
}

// TestAddressPage shows an address's own page to whoever may see it, with
// who holds it and since when, its pool, VPC and subnet linked, and its
// release, confirmed in the page and posted without JavaScript; another
// tenant gets the page of what does not exist.
func TestAddressPage(t *testing.T) {
	c := newConsoleWithData(t)
	const vm = "/addresses/acme/prod/vpc-main/10.42.1.2"
	status, body := c.get(t, vm, c.acme)
	page := parseHTML(body)
	if status != 200 || page.title() != "10.42.1.2 · PiVirt IPAM" {
		t.Fatalf("GET %s = %d %q", vm, status, page.title())
	}
	for id, want := range map[string]string{
		"address-state":      "Held by VirtualMachine vm-000/0",
		"address-owner-kind": "VirtualMachine",
		"address-owner":      "vm-000/0 uid u0, of acme/prod",
		"address-pool":       "vpc-main 10.42.0.0/16",
		"address-vpc":        "acme/prod/main",
		"address-subnet":     "web 10.42.1.0/24, gateway 10.42.1.1",
	} {
		if got := page.text(id); got != want {
			t.Errorf("%s says %q at %s, want %q", vm, got, id, want)
		}
	}
	if since := page.text("address-since"); !strings.HasSuffix(since, "UTC by system") {
		t.Errorf("%s says since %q, want a time and who claimed it", vm, since)
	}
	for _, href := range []string{"/search?q=u0", "/pools/acme/prod/vpc-main", "/vpcs/acme/prod/main", "/subnets/acme/prod/main/web"} {
		if !page.linksTo(href, false) {
			t.Errorf("%s does not link to %s", vm, href)
		}
	}
	if got := page.text("release-consequence"); !strings.HasPrefix(got, "Detaching VirtualMachine vm-000/0 from subnet web releases 10.42.1.2, which it has held since ") {
		t.Errorf("%s says the detach does %q", vm, got)
	}
	if b := page.all("confirm-release"); len(b) != 1 || textOf(b[0]) != "Detach" || page.in("address-release").tags("details") == nil {
		t.Errorf("%s has no Detach button inside a disclosure", vm)
	}

	// What nobody holds says why; a router's uplink goes with its VPC; a
	// public address is the operators' but for what the tenant holds.
	if _, body := c.get(t, "/addresses/acme/prod/vpc-main/10.42.1.1", c.acme); parseHTML(body).text("address-state") != "10.42.1.1 is the gateway of subnet web" || parseHTML(body).has("address-release") {
		t.Errorf("the gateway's page says %q", parseHTML(body).text("address-state"))
	}
	if status, body := c.get(t, "/addresses/public-zone-a/203.0.113.2", c.acme); status != 200 ||
		parseHTML(body).text("address-kept") != "The uplink of VPC main goes with its VPC: delete the VPC to release 203.0.113.2." || parseHTML(body).has("address-release") {
		t.Errorf("acme's GET of its uplink's page = %d, saying %q", status, parseHTML(body).text("address-kept"))
	}
	if status, body := c.get(t, "/addresses/public-zone-a/203.0.113.1", c.op); status != 200 || parseHTML(body).text("address-state") != "203.0.113.1 is the pool's gateway" {
		t.Errorf("the operator's GET of 203.0.113.1 = %d, saying %q", status, parseHTML(body).text("address-state"))
	}
	for _, tt := range []struct {
		who    http.Header
		target string
	}{
		{c.gx, vm},
		{c.gx, "/addresses/public-zone-a/203.0.113.2"},
		{c.acme, "/addresses/public-zone-a/203.0.113.1"},
		{c.acme, "/addresses/acme/prod/vpc-main/10.43.0.1"},
		{c.acme, "/addresses/acme/prod/vpc-main/nonsense"},
		{c.acme, "/addresses/10.42.1.2"},
	} {
		if status, _ := c.get(t, tt.target, tt.who); status != 404 {
			t.Errorf("GET %s = %d, want 404", tt.target, status)
		}
	}

	// The release: another tenant's is not found; an owner that no longer
	// holds the address releases nothing; the holder's is detached.
	held := url.Values{"kind": {"VirtualMachine"}, "uid": {"u0"}, "owner": {"vm-000/0"}, "ownerNamespace": {"acme/prod"}}
	if status, _, _ := c.post(t, vm, held, c.gx); status != 404 || c.allocations(t) != 121 {
		t.Errorf("globex's release of acme's address = %d, %d allocations left, want 404 and all 121", status, c.allocations(t))
	}
	stale := url.Values{"kind": {"VirtualMachine"}, "uid": {"u1"}, "owner": {"vm-001/0"}, "ownerNamespace": {"acme/prod"}}
	status, location, page := c.postFollow(t, vm, stale, c.acme)
	if status != 303 || location != vm || page.text("flash") != "vm-001/0 no longer held 10.42.1.2: nothing was released." || c.allocations(t) != 121 {
		t.Errorf("releasing for an owner that does not hold it = %d to %s saying %q", status, location, page.text("flash"))
	}
	status, location, page = c.postFollow(t, vm, held, c.acme)
	if status != 303 || location != vm || page.text("flash") != "Detached vm-000/0 from subnet web; 10.42.1.2 is free again." ||
		page.text("address-state") != "10.42.1.2 is free" || c.allocations(t) != 120 {
		t.Errorf("the detach = %d to %s saying %q, then %q", status, location, page.text("flash"), page.text("address-state"))
	}
	node, err := c.svc.AttachNode(t.Context(), auth.System, ipam.AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", Node: ipam.NodeRef{UID: "hv-1", Name: "hv-1"}})
	if err != nil {
		t.Fatal(err)
	}
	nodeHref := "/addresses/acme/prod/vpc-main/" + node.Address.String()
	status, location, page = c.postFollow(t, nodeHref, url.Values{"kind": {"Node"}, "uid": {"hv-1"}, "owner": {"web"}, "ownerNamespace": {"acme/prod"}}, c.acme)
	if want := "Released " + node.Address.String() + " from node hv-1; it is free again."; status != 303 || location != nodeHref || page.text("flash") != want {
		t.Errorf("releasing the node's address = %d to %s saying %q, want %q", status, location, page.text("flash"), want)
	}

	// A refusal answers 422 with the page and the domain's message.
	uplink := url.Values{"kind": {"VPC"}, "uid": {c.vpcUID(t)}, "owner": {"router"}, "ownerNamespace": {"acme/prod"}}
	status, _, body = c.post(t, "/addresses/public-zone-a/203.0.113.2", uplink, c.acme)
	if got := parseHTML(body).text("release-error"); status != 422 || got != "The uplink of VPC main goes with its VPC: delete the VPC to release 203.0.113.2." {
		t.Errorf("releasing the uplink = %d saying %q, want 422 with the refusal", status, got)
	}

	// A tenant's floating IP, once released, is no address the tenant may
	// see: the release leads to the VPC page, which says what it did.
	fip, err := c.svc.ClaimFloatingIP(t.Context(), auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "www", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	href := "/addresses/public-zone-a/" + fip.Address.String()
	_, body = c.get(t, href, c.acme)
	if got := parseHTML(body).text("release-consequence"); !strings.HasPrefix(got, "Releasing floating IP www deletes it and frees "+fip.Address.String()+" in public pool public-zone-a") {
		t.Errorf("the floating IP's page says its release does %q", got)
	}
	status, location, page = c.postFollow(t, href, url.Values{"kind": {"FloatingIP"}, "uid": {fip.UID}, "owner": {"www"}, "ownerNamespace": {"acme/prod"}}, c.acme)
	if status != 303 || location != "/vpcs/acme/prod/main" || page.text("claim-result") != "Released floating IP www; "+fip.Address.String()+" is free again." {
		t.Errorf("releasing floating IP www = %d to %s saying %q", status, location, page.text("claim-result"))
	}
	if status, _ := c.get(t, href, c.acme); status != 404 {
		t.Errorf("after its release, GET %s = %d, want 404", href, status)
	}
}

// TestAddressLinks links addresses to their pages from the allocation
// tables, the search and the VPC page's addresses and floating IPs.
func TestAddressLinks(t *testing.T) {
	c := newConsoleWithData(t)
	for _, path := range []string{"/pools/acme/prod/vpc-main", "/subnets/acme/prod/main/web"} {
		_, body := c.get(t, path, c.acme)
		if !parseHTML(body).in("allocation-10.42.1.7").linksTo("/addresses/acme/prod/vpc-main/10.42.1.7", false) {
			t.Errorf("%s's allocation table does not link 10.42.1.7 to its page", path)
		}
	}
	_, body := c.get(t, "/search?q=vm-005", c.acme)
	if !parseHTML(body).in("search-hit").linksTo("/addresses/acme/prod/vpc-main/10.42.1.7", false) {
		t.Error("the search's hit of vm-005 does not link to its address's page")
	}
	fip, err := c.svc.ClaimFloatingIP(t.Context(), auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "www", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	_, body = c.get(t, "/vpcs/acme/prod/main", c.acme)
	page := parseHTML(body)
	if !page.in("address-10.42.1.7").linksTo("/addresses/acme/prod/vpc-main/10.42.1.7", false) {
		t.Error("the VPC page's addresses do not link 10.42.1.7 to its page")
	}
	if !page.in("floating-ip-www").linksTo("/addresses/public-zone-a/"+fip.Address.String(), false) {
		t.Errorf("the VPC page's floating IP www does not link %s to its page", fip.Address)
	}
}
