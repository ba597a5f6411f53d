package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// console is a server with a public pool, tenant acme's VPC main with a
// subnet web of 120 VMs, and the session headers of an operator and of
// acme.
type console struct {
	h            http.Handler
	svc          *ipam.Service
	db           *store.DB
	op, acme, gx http.Header
}

func newConsoleWithData(t *testing.T) console {
	t.Helper()
	db := pgtest.NewDB(t)
	svc := testIPAM(t, db)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: svc, Numbers: testNumbers(t, db), Logger: quietLogger, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		if _, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			VM: ipam.VMRef{UID: fmt.Sprint("u", i), Hostname: fmt.Sprintf("vm-%03d", i)}}); err != nil {
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

func (c console) get(t *testing.T, target string, who http.Header) (int, string) {
	t.Helper()
	res := do(t, c.h, http.MethodGet, target, who)
	return res.StatusCode, string(readBody(t, res))
}

func (c console) post(t *testing.T, target string, form url.Values, who http.Header) (int, http.Header, string) {
	t.Helper()
	res := postForm(t, c.h, target, form, who)
	return res.StatusCode, res.Header, string(readBody(t, res))
}

// postFollow posts form as who and, when the answer redirects, follows it
// as a browser does: the status of the POST, where it redirected, and the
// page shown in the end.
func (c console) postFollow(t *testing.T, target string, form url.Values, who http.Header) (int, string, htmlPage) {
	t.Helper()
	status, header, body := c.post(t, target, form, who)
	location := header.Get("Location")
	if status == http.StatusSeeOther {
		_, body = c.get(t, location, who)
	}
	return status, location, parseHTML(body)
}

// allocations counts the allocations stored.
func (c console) allocations(t *testing.T) int {
	t.Helper()
	var n int
	if err := c.db.GetContext(t.Context(), &n, `SELECT count(*) FROM allocations`); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPoolList(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/pools", c.op)
	page := parseHTML(body)
	if status != 200 || !page.has("pool-public-zone-a") || !page.has("pool-vpc-main") || !page.has("new-pool") {
		t.Errorf("operator GET /pools = %d with rows %v, want both pools and the new-pool button", status, page.testIDs("pool-"))
	}
	if got := page.in("usage-vpc-main").text("usage-figures"); got != "120 / 65,534" {
		t.Errorf("operator GET /pools shows vpc-main's usage %q, want 120 / 65,534", got)
	}
	status, body = c.get(t, "/pools", c.acme)
	page = parseHTML(body)
	if status != 200 || strings.Join(page.testIDs("pool-"), " ") != "pool-vpc-main" || strings.Contains(page.words(), "public-zone-a") || page.has("new-pool") {
		t.Errorf("tenant GET /pools = %d with rows %v, want only vpc-main and no new-pool button", status, page.testIDs("pool-"))
	}
	if _, body = c.get(t, "/pools", c.gx); strings.Contains(parseHTML(body).words(), "vpc-main") || parseHTML(body).has("pool-vpc-main") {
		t.Error("another tenant sees acme's pool in /pools")
	}
}

func TestPoolPage(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/pools/acme/prod/vpc-main", c.acme)
	if status != 200 {
		t.Fatalf("GET /pools/acme/prod/vpc-main = %d", status)
	}
	page := parseHTML(body)
	if got := page.text("allocation-count"); got != "120 allocations" {
		t.Errorf("the pool page counts %q, want 120 allocations", got)
	}
	if !page.has("allocation-10.42.1.2") || !page.has("next-page") {
		t.Errorf("the pool page lacks the allocation of 10.42.1.2 or the next-page link")
	}
	blocks := page.in("address-map").elements(func(n *html.Node) bool { return attrOf(n, "data-block") == "10.42.1.0/24" })
	if len(blocks) != 1 || attrOf(blocks[0], "href") != "/pools/acme/prod/vpc-main?block=10.42.1.0%2F24" {
		t.Errorf("the map's block 10.42.1.0/24 does not link to its own map: %v", blocks)
	}
	if n := len(page.testIDs("allocation-10.")); n != ipam.TablePerPage {
		t.Errorf("the first page lists %d allocations, want %d", n, ipam.TablePerPage)
	}
	if page.has("prev-page") || !page.linksTo("/pools/acme/prod/vpc-main", true) {
		t.Error("the first page links to a previous page, or is not marked as the current page")
	}

	// The next page, as htmx asks for it: only the table (and the
	// prefix's field, which htmx swaps out of band).
	res := do(t, c.h, http.MethodGet, "/pools/acme/prod/vpc-main?page=2", http.Header{
		"Cookie": c.acme["Cookie"], "Hx-Request": {"true"}, "Hx-Target": {"allocations"},
	})
	fragment := parseHTML(string(readBody(t, res)))
	if res.StatusCode != 200 || fragment.title() != "" || fragment.byID("allocations") == nil || fragment.byID("allocation-prefix-field") == nil ||
		len(fragment.tags("form")) != 0 || fragment.has("address-map") {
		t.Errorf("htmx GET of the next page = %d, want the table alone", res.StatusCode)
	}
	if !fragment.has("allocation-10.42.1.52") || fragment.has("allocation-10.42.1.51") || attrOf(testID(fragment, "prev-page"), "href") != "/pools/acme/prod/vpc-main" {
		t.Errorf("the second page does not start after 10.42.1.51 or lacks the link to the first: %v", fragment.testIDs("allocation-"))
	}

	_, body = c.get(t, "/pools/acme/prod/vpc-main?q=vm-10", c.acme)
	if got := parseHTML(body).text("allocation-count"); got != "10 matching allocations" {
		t.Errorf("searching vm-10 counts %q, want its 10 matches (vm-100…vm-109)", got)
	}
	_, body = c.get(t, "/pools/acme/prod/vpc-main?page=not-a-number", c.acme)
	if !parseHTML(body).has("allocation-10.42.1.2") {
		t.Error("a bad page number does not fall back to the first page")
	}

	_, body = c.get(t, "/pools/acme/prod/vpc-main?block=10.42.1.0/24", c.acme)
	cells := map[string]*html.Node{}
	for _, n := range parseHTML(body).in("address-map").elements(func(n *html.Node) bool { return attrOf(n, "data-address") != "" }) {
		cells[attrOf(n, "data-address")] = n
	}
	if cell := cells["10.42.1.7"]; cell == nil || attrOf(cell, "data-state") != "taken" || !strings.HasPrefix(attrOf(cell, "title"), "10.42.1.7: VirtualMachine vm-005/0, since ") ||
		attrOf(cell, "href") != "/addresses/acme/prod/vpc-main/10.42.1.7" {
		t.Errorf("the block map's cell of 10.42.1.7 is %v, want taken by vm-005/0, linked to its page", cell)
	}
	if cell := cells["10.42.1.0"]; cell == nil || attrOf(cell, "title") != "10.42.1.0 is the network address of 10.42.1.0/24" {
		t.Errorf("the block map's cell of 10.42.1.0 does not explain the network address: %v", cell)
	}

	for _, tt := range []struct {
		who    http.Header
		target string
	}{
		{c.acme, "/pools/public-zone-a"},
		{c.gx, "/pools/acme/prod/vpc-main"},
		{c.acme, "/pools/acme/prod/nope"},
	} {
		if status, _ := c.get(t, tt.target, tt.who); status != 404 {
			t.Errorf("GET %s = %d, want 404", tt.target, status)
		}
	}
	if status, body := c.get(t, "/pools/public-zone-a", c.op); status != 200 || parseHTML(body).text("pool-cidr") != "203.0.113.0/24" {
		t.Errorf("operator GET /pools/public-zone-a = %d", status)
	}
}

func TestPoolCreateForm(t *testing.T) {
	c := newConsoleWithData(t)
	if status, body := c.get(t, "/pools/new", c.op); status != 200 || !parseHTML(body).has("form-new-pool") {
		t.Errorf("GET /pools/new = %d", status)
	}
	if status, _ := c.get(t, "/pools/new", c.acme); status != 404 {
		t.Errorf("tenant GET /pools/new = %d, want 404", status)
	}
	form := func(name, cidr, exclude string) url.Values {
		return url.Values{"name": {name}, "cidr": {cidr}, "gateway": {""}, "exclude": {exclude}, "zone": {"zone-b"}}
	}
	refusals := []struct {
		form     url.Values
		id, want string // the field's message starts with want
	}{
		{form("b", "10.0.0.5/24", ""), "error-cidr", "CIDR 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?"},
		{form("b", "203.0.113.128/25", ""), "error-cidr", "CIDR 203.0.113.128/25 overlaps public pool public-zone-a (203.0.113.0/24)"},
		{form("B!", "198.51.100.0/24", ""), "error-name", `Name "B!" is not a valid name`},
		{form("b", "198.51.100.0/24", "198.51.100.9-198.51.100.2"), "error-exclude", `Exclude "198.51.100.9-198.51.100.2" is a descending range`},
	}
	for _, tt := range refusals {
		status, _, body := c.post(t, "/pools", tt.form, c.op)
		page := parseHTML(body)
		if got := page.text(tt.id); status != 422 || !strings.HasPrefix(got, tt.want) || !page.has("form-new-pool") {
			t.Errorf("POST /pools %v = %d with %s %q, want 422 with %q", tt.form, status, tt.id, got, tt.want)
		}
	}
	status, location, page := c.postFollow(t, "/pools", form("public-zone-b", "198.51.100.0/24", "198.51.100.2-198.51.100.9\n198.51.100.20, 198.51.100.21"), c.op)
	if status != 303 || location != "/pools/public-zone-b" || page.text("flash") != "Created public pool public-zone-b." || page.text("pool-cidr") != "198.51.100.0/24" {
		t.Errorf("POST /pools = %d to %q, then %q, want 303 to /pools/public-zone-b saying it was created", status, location, page.text("flash"))
	}
	if _, body := c.get(t, "/pools/public-zone-b", c.op); parseHTML(body).has("flash") {
		t.Error("the pool page says it was created again when reloaded")
	}
	p, err := c.svc.Pool(t.Context(), auth.System, "", "public-zone-b")
	if err != nil || strings.Join(p.Exclude, " ") != "198.51.100.2-198.51.100.9 198.51.100.20 198.51.100.21" {
		t.Errorf("the created pool = %+v, %v", p, err)
	}
	if status, _, _ := c.post(t, "/pools", form("c", "192.0.2.0/24", ""), c.acme); status != 404 {
		t.Errorf("tenant POST /pools = %d, want 404", status)
	}
}

func TestVPCPageAndClaims(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	if status != 200 {
		t.Fatalf("GET /vpcs/acme/prod/main = %d", status)
	}
	page := parseHTML(body)
	if !page.has("subnet-web") || !strings.HasPrefix(page.text("router"), "203.0.113.2 ") || page.text("default-route") != "203.0.113.1" || !page.has("form-attach-interface") {
		t.Errorf("the VPC page lacks subnet web, the router 203.0.113.2, the default route 203.0.113.1 or the attach form: router %q, route %q",
			page.text("router"), page.text("default-route"))
	}
	var claims candidates.ClaimsSpec
	if err := json.Unmarshal([]byte(attrOf(page.all("claim-data")[0], "data-claims")), &claims); err != nil || len(claims.Subnets) != 1 || claims.Subnets[0].Taken != "10.42.1.2-10.42.1.121" {
		t.Errorf("the page's claims carry %+v (%v), want web's taken 10.42.1.2-10.42.1.121", claims.Subnets, err)
	}
	tests := []struct {
		name     string // the form's
		form     url.Values
		status   int
		id, want string // the page shows id, holding want
	}{
		{"attach-interface", url.Values{"subnet": {"web"}, "hostname": {"new-1"}, "nic": {"0"}, "predicted": {"10.42.1.122"}}, 303, "claim-as-predicted", ""},
		{"attach-interface", url.Values{"subnet": {"web"}, "hostname": {"new-2"}, "nic": {"0"}, "predicted": {"10.42.1.122"}}, 303, "claim-differs", "the page predicted 10.42.1.122, but someone else claimed it first"},
		{"attach-interface", url.Values{"subnet": {"web"}, "hostname": {"bad host"}, "nic": {"0"}}, 422, "error-hostname", `Hostname "bad host" is not a valid hostname`},
		{"attach-interface", url.Values{"subnet": {"web"}, "hostname": {"x"}, "nic": {"one"}}, 422, "error-nic", `NIC "one" is not a number`},
		{"claim-floating-ip", url.Values{"name": {"www"}, "zone": {"zone-a"}, "predicted": {"203.0.113.3"}}, 303, "claimed-address", "203.0.113.3"},
		{"create-subnet", url.Values{"name": {"db"}, "cidr": {"10.42.1.128/25"}}, 422, "error-cidr", "overlaps subnet web (10.42.1.0/24)"},
		{"create-subnet", url.Values{"name": {"db"}, "cidr": {"10.42.2.0/26"}, "predicted": {"10.42.2.0/26"}}, 303, "claim-result", "10.42.2.0/26 with gateway 10.42.2.1"},
	}
	for _, tt := range tests {
		status, _, page := c.postFollow(t, "/vpcs/acme/prod/main/-/"+tt.name, tt.form, c.acme)
		if status != tt.status || !page.has(tt.id) || !strings.Contains(page.text(tt.id), tt.want) {
			t.Errorf("POST %s %v = %d with %s %q, want %d with %q; the result says %q", tt.name, tt.form, status, tt.id, page.text(tt.id), tt.status, tt.want, page.text("claim-result"))
		}
	}
	for _, target := range []string{"/vpcs/acme/prod/main/-/frobnicate", "/vpcs/acme/prod/main"} {
		if status, _, body := c.post(t, target, url.Values{"name": {"db"}}, c.acme); status != 404 || !parseHTML(body).has("not-found") {
			t.Errorf("POST %s, a form that does not exist = %d, want the 404 page", target, status)
		}
	}
	// A refused form keeps what was typed.
	_, _, body = c.post(t, "/vpcs/acme/prod/main/-/create-subnet", url.Values{"name": {"dup"}, "cidr": {"10.42.1.0/30"}}, c.acme)
	if input := parseHTML(body).byID("subnet-name"); input == nil || attrOf(input, "name") != "name" || attrOf(input, "value") != "dup" {
		t.Error("a refused subnet form does not keep the name typed")
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/main", c.gx); status != 404 {
		t.Errorf("another tenant GET of the VPC = %d, want 404", status)
	}
	if status, _, _ := c.post(t, "/vpcs/acme/prod/main/-/claim-floating-ip", url.Values{"name": {"x"}, "zone": {"zone-a"}}, c.gx); status != 404 {
		t.Errorf("another tenant POST to the VPC = %d, want 404", status)
	}
	if status, body := c.get(t, "/vpcs", c.acme); status != 200 || !parseHTML(body).has("vpc-acme/prod/main") {
		t.Errorf("GET /vpcs = %d, want acme's VPC listed", status)
	}
	if _, body := c.get(t, "/vpcs", c.gx); strings.Contains(parseHTML(body).words(), "acme/prod") || len(parseHTML(body).testIDs("vpc-acme")) > 0 {
		t.Error("another tenant sees acme's VPC in /vpcs")
	}
}
