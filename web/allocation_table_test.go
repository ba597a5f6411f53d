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
	"pivirt.hu/ipam/internal/pgtest"
)

// newTableConsole is a console whose tables have something to show:
// acme's VPC main (10.42.0.0/16) with subnet web (10.42.1.0/24, VMs
// web-01 to web-18 on 10.42.1.2 to .19) and subnet db (10.42.3.0/24,
// empty); acme's VPC big (10.0.0.0/8) with subnet huge (10.0.0.0/12, VMs
// vm-001 to vm-120); both VPCs' routers in the public pool public-zone-a
// (203.0.113.0/24, gateway .1), where acme also holds the floating IP
// www.
func newTableConsole(t *testing.T) console {
	t.Helper()
	db := pgtest.NewDB(t)
	svc := testIPAM(t, db)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: svc, Numbers: testNumbers(t, db), Logger: quietLogger, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	steps := []func() error{
		func() error {
			_, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "big", CIDR: "10.0.0.0/8", Zone: "zone-a"})
			return err
		},
		func() error {
			_, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"})
			return err
		},
		func() error {
			_, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "db", CIDR: "10.42.3.0/24"})
			return err
		},
		func() error {
			_, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "big", Name: "huge", CIDR: "10.0.0.0/12"})
			return err
		},
		func() error {
			_, err := svc.ClaimFloatingIP(ctx, auth.System, ipam.ClaimFloatingIPInput{Namespace: "acme/prod", Name: "www", Zone: "zone-a"})
			return err
		},
	}
	for i := range 18 {
		steps = append(steps, func() error {
			_, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
				VM: ipam.VMRef{UID: fmt.Sprint("web-", i), Hostname: fmt.Sprintf("web-%02d", i+1)}})
			return err
		})
	}
	for i := range 120 {
		steps = append(steps, func() error {
			_, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "big", Subnet: "huge",
				VM: ipam.VMRef{UID: fmt.Sprint("vm-", i), Hostname: fmt.Sprintf("vm-%03d", i+1)}})
			return err
		})
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	return console{
		h: h, svc: svc, db: db,
		op:   cookieHeader(signIn(t, h, "ops", addUser(t, db, "ops", auth.Operator))),
		acme: cookieHeader(signIn(t, h, "acme", addUser(t, db, "acme", auth.Tenant, "acme/*"))),
		gx:   cookieHeader(signIn(t, h, "globex", addUser(t, db, "globex", auth.Tenant, "globex/*"))),
	}
}

// rowTexts returns the text of each row of the allocation table, its
// cells joined by " | ".
func rowTexts(p htmlPage) []string {
	var out []string
	for _, tr := range p.in("allocations").tags("tr") {
		var cells []string
		for c := tr.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
				cells = append(cells, textOf(c))
			}
		}
		out = append(out, strings.Join(cells, " | "))
	}
	return out
}

// hrefsIn returns the links of the element with data-testid id.
func hrefsIn(p htmlPage, id string) []string {
	var out []string
	for _, a := range p.in(id).tags("a") {
		out = append(out, attrOf(a, "href"))
	}
	return out
}

// TestSubnetTableShowsFreeRuns: a subnet's table lists its allocations
// with their namespace and owner, linked to the VPC page that shows them,
// and the run of free addresses after them as a row of its own, word for
// word.
func TestSubnetTableShowsFreeRuns(t *testing.T) {
	c := newTableConsole(t)
	status, body := c.get(t, "/subnets/acme/prod/main/web", c.acme)
	page := parseHTML(body)
	if status != http.StatusOK {
		t.Fatalf("GET the subnet web = %d", status)
	}
	rows := rowTexts(page)
	if len(rows) != 20 || rows[0] != "Address | Namespace | Owner | Owner kind | Since" {
		t.Fatalf("the subnet's table has the rows %q, want a head, 18 allocations and a free run", rows)
	}
	if !strings.HasPrefix(rows[1], "10.42.1.2 | acme/prod | web-01/0 | VirtualMachine | ") {
		t.Errorf("the first allocation reads %q", rows[1])
	}
	if got := page.in("free-10.42.1.20").text("free-run"); got != "10.42.1.20–10.42.1.254: 235 free" {
		t.Errorf("the free run reads %q, want 10.42.1.20–10.42.1.254: 235 free", got)
	}
	if rows[19] != "10.42.1.20–10.42.1.254: 235 free" {
		t.Errorf("the last row reads %q, want the free run alone", rows[19])
	}
	if got := hrefsIn(page, "allocation-10.42.1.2"); !slices.Equal(got, []string{"/addresses/acme/prod/vpc-main/10.42.1.2", "/vpcs/acme/prod/main"}) {
		t.Errorf("the row of 10.42.1.2 links to %q, want the address's page and its VPC's page", got)
	}
	if page.text("allocation-count") != "18 allocations" || page.text("free-count") != "235 free" || page.has("pager") {
		t.Errorf("the counts read %q and %q (pager %v), want 18 allocations, 235 free and one page", page.text("allocation-count"), page.text("free-count"), page.has("pager"))
	}
}

// TestPrivatePoolTable: a private pool's page links its VPC, lists its
// subnets with their usage, and its table names each row's subnet.
func TestPrivatePoolTable(t *testing.T) {
	c := newTableConsole(t)
	status, body := c.get(t, "/pools/acme/prod/vpc-main", c.acme)
	page := parseHTML(body)
	if status != http.StatusOK {
		t.Fatalf("GET vpc-main = %d", status)
	}
	if attrOf(testID(page, "pool-vpc"), "href") != "/vpcs/acme/prod/main" || page.text("pool-vpc") != "acme/prod/main" {
		t.Errorf("the pool's VPC link: %q to %q", page.text("pool-vpc"), attrOf(testID(page, "pool-vpc"), "href"))
	}
	if got := page.testIDs("pool-subnet-"); !slices.Equal(got, []string{"pool-subnet-web", "pool-subnet-db"}) {
		t.Errorf("the pool's subnets: %v, want web and db in address order", got)
	}
	if got := page.in("pool-subnet-web").text("usage-figures"); got != "18 / 253" {
		t.Errorf("web's usage reads %q, want 18 / 253", got)
	}
	if got := hrefsIn(page, "pool-subnet-db"); !slices.Equal(got, []string{"/subnets/acme/prod/main/db"}) {
		t.Errorf("the subnet db links to %q", got)
	}
	rows := rowTexts(page)
	if rows[0] != "Address | Subnet | Namespace | Owner | Owner kind | Since" || !strings.HasPrefix(rows[1], "10.42.1.2 | web | acme/prod | web-01/0 | VirtualMachine") {
		t.Errorf("the pool's table begins %q", rows[:2])
	}
	if got := hrefsIn(page, "allocation-10.42.1.2"); !slices.Equal(got, []string{"/addresses/acme/prod/vpc-main/10.42.1.2", "/subnets/acme/prod/main/web", "/vpcs/acme/prod/main"}) {
		t.Errorf("the row of 10.42.1.2 links %q, want the address's page, its subnet and its VPC", got)
	}
	if got := rows[len(rows)-2:]; !slices.Equal(got, []string{"10.42.1.20–10.42.1.254: 235 free in subnet web", "10.42.3.2–10.42.3.254: 253 free in subnet db"}) {
		t.Errorf("the pool's table ends %q, want a free run in each subnet", got)
	}
	if page.text("allocation-count") != "18 allocations" || page.text("free-count") != "488 free" {
		t.Errorf("the counts read %q and %q", page.text("allocation-count"), page.text("free-count"))
	}
	if status, body := c.get(t, "/pools/public-zone-a", c.op); status != http.StatusOK || parseHTML(body).has("pool-subnets") || parseHTML(body).has("pool-vpc") {
		t.Errorf("the public pool's page = %d, with a VPC or subnets", status)
	}
}

// TestPublicPoolTableLinksOwners: a router's address links to its VPC's
// page, a floating IP's to the first VPC of its namespace (the VPC page
// lists the namespace's floating IPs).
func TestPublicPoolTableLinksOwners(t *testing.T) {
	c := newTableConsole(t)
	_, body := c.get(t, "/pools/public-zone-a", c.op)
	page := parseHTML(body)
	for addr, want := range map[string]string{"203.0.113.2": "/vpcs/acme/prod/main", "203.0.113.3": "/vpcs/acme/prod/big", "203.0.113.4": "/vpcs/acme/prod/big"} {
		if got := hrefsIn(page, "allocation-"+addr); !slices.Equal(got, []string{"/addresses/public-zone-a/" + addr, want}) {
			t.Errorf("the row of %s links %q, want the address's page and %s", addr, got, want)
		}
	}
	rows := rowTexts(page)
	if !strings.HasPrefix(rows[3], "203.0.113.4 |  | acme/prod | www | FloatingIP | ") || rows[4] != "203.0.113.5–203.0.113.254: 250 free" {
		t.Errorf("the public pool's table: %q", rows)
	}
}

// TestTableFilterByPrefix: the filter keeps the rows of a prefix, and says
// at its field, in plain words and with what was typed, when the prefix is
// not one or lies outside the pool: 422, no table.
func TestTableFilterByPrefix(t *testing.T) {
	c := newTableConsole(t)
	status, body := c.get(t, "/pools/acme/prod/vpc-main?prefix=10.42.1.16/28", c.acme)
	page := parseHTML(body)
	if got := rowTexts(page)[1:]; status != http.StatusOK || len(got) != 5 || !strings.HasPrefix(got[0], "10.42.1.16 | web") || got[4] != "10.42.1.20–10.42.1.31: 12 free in subnet web" {
		t.Errorf("10.42.1.16/28 = %d: %q", status, got)
	}
	if page.text("allocation-count") != "4 allocations in 10.42.1.16/28" || page.text("free-count") != "12 free" {
		t.Errorf("the counts read %q, %q", page.text("allocation-count"), page.text("free-count"))
	}
	if in := testID(page, "allocation-prefix"); attrOf(in, "value") != "10.42.1.16/28" || attrOf(in, "aria-invalid") != "false" {
		t.Errorf("the prefix's field: value %q, aria-invalid %q", attrOf(in, "value"), attrOf(in, "aria-invalid"))
	}

	_, body = c.get(t, "/subnets/acme/prod/main/db?prefix=10.42.3.0/28", c.acme)
	if got := rowTexts(parseHTML(body))[1:]; !slices.Equal(got, []string{"10.42.3.2–10.42.3.15: 14 free"}) {
		t.Errorf("db's 10.42.3.0/28: %q", got)
	}

	for _, tt := range []struct{ target, typed, want string }{
		{"/pools/acme/prod/vpc-main?prefix=10.42.3.0/33", "10.42.3.0/33", `"10.42.3.0/33" is not a prefix: write one such as 10.42.3.0/28, or an address`},
		{"/pools/acme/prod/vpc-main?prefix=10.43.0.0/28", "10.43.0.0/28", "10.43.0.0/28 is outside pool vpc-main (10.42.0.0/16): give a prefix inside it"},
		{"/pools/acme/prod/vpc-main?prefix=10.42.3.9/28", "10.42.3.9/28", "10.42.3.9/28 has host bits set; did you mean 10.42.3.0/28?"},
		{"/subnets/acme/prod/main/web?prefix=10.42.3.0/28", "10.42.3.0/28", "10.42.3.0/28 is outside subnet web (10.42.1.0/24): give a prefix inside it"},
	} {
		status, body := c.get(t, tt.target, c.acme)
		page := parseHTML(body)
		in := testID(page, "allocation-prefix")
		if status != http.StatusUnprocessableEntity || page.text("error-prefix") != tt.want || attrOf(in, "value") != tt.typed ||
			attrOf(in, "aria-invalid") != "true" || attrOf(in, "aria-describedby") != "allocation-prefix-error" || len(page.testIDs("allocation-10.")) != 0 {
			t.Errorf("GET %s = %d, error %q, field %q aria-invalid %q, rows %v; want 422 and %q", tt.target, status, page.text("error-prefix"),
				attrOf(in, "value"), attrOf(in, "aria-invalid"), page.testIDs("allocation-10."), tt.want)
		}
	}
	// htmx swaps only what succeeds: it gets 200 and the field's error.
	header := c.acme.Clone()
	header.Set("HX-Request", "true")
	header.Set("HX-Target", "allocations")
	res := do(t, c.h, http.MethodGet, "/pools/acme/prod/vpc-main?prefix=nope", header)
	fragment := parseHTML(string(readBody(t, res)))
	if res.StatusCode != http.StatusOK || fragment.text("error-prefix") != `"nope" is not a prefix: write one such as 10.42.3.0/28, or an address` || !fragment.has("allocations") || fragment.title() != "" {
		t.Errorf("the filter by htmx with a bad prefix = %d, error %q", res.StatusCode, fragment.text("error-prefix"))
	}
}

// TestTablePagesByNumber: a subnet of 120 allocations and a run of
// 1,048,453 free addresses has 3 pages, each linked by its number, the
// current one marked, with Previous and Next; a page past the last shows
// the last.
func TestTablePagesByNumber(t *testing.T) {
	c := newTableConsole(t)
	const base = "/subnets/acme/prod/big/huge"
	_, body := c.get(t, base, c.acme)
	page := parseHTML(body)
	if got := page.in("subnet-usage").text("usage-figures"); got != "120 / 1,048,573" {
		t.Errorf("the subnet's usage reads %q, want 120 / 1,048,573", got)
	}
	if n := len(page.testIDs("allocation-10.")); n != 50 || page.text("page-of") != "page 1 of 3" {
		t.Errorf("the first page lists %d allocations, %q", n, page.text("page-of"))
	}
	if !page.linksTo(base, true) || !page.linksTo(base+"?page=2", false) || !page.linksTo(base+"?page=3", false) || page.has("prev-page") ||
		attrOf(testID(page, "next-page"), "href") != base+"?page=2" {
		t.Errorf("the first page's pager: %v", hrefsIn(page, "pager"))
	}

	for _, target := range []string{base + "?page=3", base + "?page=99"} {
		_, body = c.get(t, target, c.acme)
		page = parseHTML(body)
		rows := rowTexts(page)
		if len(rows) != 22 || !strings.HasPrefix(rows[1], "10.0.0.102 | ") || rows[21] != "10.0.0.122–10.15.255.254: 1,048,453 free" {
			t.Errorf("GET %s: %d rows, %q … %q", target, len(rows), rows[1], rows[len(rows)-1])
		}
		if !page.linksTo(base+"?page=3", true) || page.has("next-page") || attrOf(testID(page, "prev-page"), "href") != base+"?page=2" {
			t.Errorf("GET %s: the pager %v", target, hrefsIn(page, "pager"))
		}
	}

	// The pager keeps the filter; htmx gets the table alone.
	header := c.acme.Clone()
	header.Set("HX-Request", "true")
	header.Set("HX-Target", "allocations")
	res := do(t, c.h, http.MethodGet, base+"?q=vm-0&page=2", header)
	fragment := parseHTML(string(readBody(t, res)))
	if res.StatusCode != http.StatusOK || fragment.text("allocation-count") != "99 matching allocations" || fragment.has("free-count") ||
		!fragment.linksTo(base+"?page=2&q=vm-0", true) || attrOf(testID(fragment, "prev-page"), "href") != base+"?q=vm-0" {
		t.Errorf("the second page of vm-0 by htmx = %d, %q, pager %v", res.StatusCode, fragment.text("allocation-count"), hrefsIn(fragment, "pager"))
	}
	if got := fragment.testIDs("allocation-10."); len(got) != 49 || got[0] != "allocation-10.0.0.52" {
		t.Errorf("the second page of vm-0 lists %d allocations from %v", len(got), got[:1])
	}

	_, body = c.get(t, "/vpcs/acme/prod/big", c.acme)
	if !strings.Contains(parseHTML(body).words(), "/12 · 1,048,576 addresses") {
		t.Error("the VPC page's subnet sizes do not read /12 · 1,048,576 addresses")
	}
}

// TestConfirmationsSeparateThousands: what a confirmation says goes with
// an action is counted as every figure of the console is (views.Figure).
func TestConfirmationsSeparateThousands(t *testing.T) {
	for n, want := range map[int]string{0: "no address", 1: "1 address", 18: "18 addresses", 1048573: "1,048,573 addresses"} {
		if got := count(n, "address", "addresses"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTableFilterByIPv6Prefix: an IPv6 pool's table is filtered by an
// IPv6 prefix in any spelling, the field keeping what was typed and the
// counts the prefix in RFC 5952 form; a /64 counts its free addresses
// exactly; an IPv4 prefix is refused at the field, in words that say
// what to give.
func TestTableFilterByIPv6Prefix(t *testing.T) {
	c := newConsoleWithData(t)
	dualStack(t, c)
	const pool = "/pools/acme/prod/vpc-edge-v6"
	status, body := c.get(t, pool+"?"+url.Values{"prefix": {"FD12:3456:789A:0101:0::/125"}}.Encode(), c.acme)
	page := parseHTML(body)
	if got := rowTexts(page)[1:]; status != http.StatusOK || !slices.Equal(got, []string{"fd12:3456:789a:101::2–fd12:3456:789a:101::7: 6 free in subnet db"}) {
		t.Errorf("FD12:3456:789A:0101:0::/125 = %d: %q", status, got)
	}
	if page.text("allocation-count") != "0 allocations in fd12:3456:789a:101::/125" || page.text("free-count") != "6 free" {
		t.Errorf("the counts read %q, %q", page.text("allocation-count"), page.text("free-count"))
	}
	if in := testID(page, "allocation-prefix"); attrOf(in, "value") != "FD12:3456:789A:0101:0::/125" || attrOf(in, "aria-invalid") != "false" {
		t.Errorf("the prefix's field: value %q, aria-invalid %q", attrOf(in, "value"), attrOf(in, "aria-invalid"))
	}

	status, body = c.get(t, pool+"?"+url.Values{"prefix": {"fd12:3456:789a:101::/64"}}.Encode(), c.acme)
	page = parseHTML(body)
	if got := rowTexts(page)[1:]; status != http.StatusOK || page.text("free-count") != "2^64 − 2 (18.4 quintillion) free" ||
		!slices.Equal(got, []string{"fd12:3456:789a:101::2–fd12:3456:789a:101:ffff:ffff:ffff:ffff: 2^64 − 2 (18.4 quintillion) free in subnet db"}) {
		t.Errorf("db's /64 = %d, %q: %q", status, page.text("free-count"), got)
	}

	for _, tt := range []struct{ typed, want string }{
		{"10.50.2.0/24", "10.50.2.0/24 is IPv4, and pool vpc-edge-v6 (fd12:3456:789a::/48) holds IPv6 addresses: give an IPv6 prefix or address"},
		{"fd12:3456:789a:101::5/64", "fd12:3456:789a:101::5/64 has host bits set; did you mean fd12:3456:789a:101::/64?"},
		{"fd12::/129", `"fd12::/129" is not a prefix: write one such as 2001:db8:0:1::/64, or an address`},
	} {
		status, body := c.get(t, pool+"?"+url.Values{"prefix": {tt.typed}}.Encode(), c.acme)
		page := parseHTML(body)
		in := testID(page, "allocation-prefix")
		if status != http.StatusUnprocessableEntity || page.text("error-prefix") != tt.want || attrOf(in, "value") != tt.typed || attrOf(in, "aria-invalid") != "true" {
			t.Errorf("prefix %s = %d, error %q, field %q aria-invalid %q; want 422 and %q", tt.typed, status, page.text("error-prefix"), attrOf(in, "value"), attrOf(in, "aria-invalid"), tt.want)
		}
	}
}
