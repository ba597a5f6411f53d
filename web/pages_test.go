package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
)

// console is a server with a public pool, tenant acme's VPC main with a
// subnet web of 120 VMs, and the session headers of an operator and of
// acme.
type console struct {
	h            http.Handler
	svc          *ipam.Service
	op, acme, gx http.Header
}

func newConsoleWithData(t *testing.T) console {
	t.Helper()
	db := pgtest.NewDB(t)
	svc := testIPAM(t, db)
	h, err := New(Config{Auth: auth.NewService(db), IPAM: svc, Logger: quietLogger, Version: "test"})
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
		h: h, svc: svc,
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

func TestPoolList(t *testing.T) {
	c := newConsoleWithData(t)
	status, page := c.get(t, "/pools", c.op)
	if status != 200 || !strings.Contains(page, `data-testid="pool-public-zone-a"`) || !strings.Contains(page, `data-testid="pool-vpc-main"`) || !strings.Contains(page, `data-testid="new-pool"`) {
		t.Errorf("operator GET /pools = %d, want both pools and the new-pool button:\n%s", status, page)
	}
	if !strings.Contains(page, `<span class="usage-figures">120 / 65534</span>`) {
		t.Errorf("operator GET /pools lacks vpc-main's usage 120 / 65534")
	}
	status, page = c.get(t, "/pools", c.acme)
	if status != 200 || strings.Contains(page, "public-zone-a") || !strings.Contains(page, `data-testid="pool-vpc-main"`) || strings.Contains(page, `data-testid="new-pool"`) {
		t.Errorf("tenant GET /pools = %d, want only vpc-main and no new-pool button:\n%s", status, page)
	}
	if _, page = c.get(t, "/pools", c.gx); strings.Contains(page, "vpc-main") {
		t.Error("another tenant sees acme's pool in /pools")
	}
}

func TestPoolPage(t *testing.T) {
	c := newConsoleWithData(t)
	status, page := c.get(t, "/pools/acme/prod/vpc-main", c.acme)
	if status != 200 {
		t.Fatalf("GET /pools/acme/prod/vpc-main = %d", status)
	}
	for _, want := range []string{
		`data-testid="allocation-count">120 allocations`,
		`data-testid="allocation-10.42.1.2"`,
		`data-testid="next-page"`,
		`href="/pools/acme/prod/vpc-main?block=10.42.1.0%2F24"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the pool page lacks %s", want)
		}
	}
	if n := strings.Count(page, `data-testid="allocation-10.`); n != allocationsPerPage {
		t.Errorf("the first page lists %d allocations, want %d", n, allocationsPerPage)
	}
	if strings.Contains(page, `data-testid="first-page"`) {
		t.Error("the first page links to the first page")
	}

	// The next page, as htmx asks for it: only the table.
	res := do(t, c.h, http.MethodGet, "/pools/acme/prod/vpc-main?after=10.42.1.51", http.Header{
		"Cookie": c.acme["Cookie"], "Hx-Request": {"true"}, "Hx-Target": {"allocations"},
	})
	fragment := string(readBody(t, res))
	if res.StatusCode != 200 || strings.Contains(fragment, "<html") || !strings.HasPrefix(fragment, `<div id="allocations"`) {
		t.Errorf("htmx GET of the next page = %d, want the table alone:\n%.300s", res.StatusCode, fragment)
	}
	if !strings.Contains(fragment, `data-testid="allocation-10.42.1.52"`) || strings.Contains(fragment, `data-testid="allocation-10.42.1.51"`) || !strings.Contains(fragment, `data-testid="first-page"`) {
		t.Errorf("the second page does not start after 10.42.1.51 or lacks the first-page link:\n%.500s", fragment)
	}

	_, page = c.get(t, "/pools/acme/prod/vpc-main?q=vm-10", c.acme)
	if i := strings.Index(page, `data-testid="allocation-count">`); i < 0 || !strings.HasPrefix(strings.Join(strings.Fields(page[i:i+80]), " "), `data-testid="allocation-count">10 matching allocations`) {
		t.Errorf("searching vm-10 does not find its 10 matches (vm-100…vm-109): %.80s", page[max(i, 0):])
	}
	_, page = c.get(t, "/pools/acme/prod/vpc-main?after=not-an-address", c.acme)
	if !strings.Contains(page, `data-testid="allocation-10.42.1.2"`) {
		t.Error("a bad cursor does not fall back to the first page")
	}

	_, page = c.get(t, "/pools/acme/prod/vpc-main?block=10.42.1.0/24", c.acme)
	for _, want := range []string{`data-address="10.42.1.7" data-state="taken"`, `title="10.42.1.7: VirtualMachine vm-005/0"`, `title="10.42.1.0 is the network address of 10.42.1.0/24"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the block map lacks %s", want)
		}
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
	if status, page := c.get(t, "/pools/public-zone-a", c.op); status != 200 || !strings.Contains(page, `data-testid="pool-cidr">203.0.113.0/24`) {
		t.Errorf("operator GET /pools/public-zone-a = %d", status)
	}
}

func TestPoolCreateForm(t *testing.T) {
	c := newConsoleWithData(t)
	if status, page := c.get(t, "/pools/new", c.op); status != 200 || !strings.Contains(page, `data-testid="form-new-pool"`) {
		t.Errorf("GET /pools/new = %d", status)
	}
	if status, _ := c.get(t, "/pools/new", c.acme); status != 404 {
		t.Errorf("tenant GET /pools/new = %d, want 404", status)
	}
	form := func(name, cidr, exclude string) url.Values {
		return url.Values{"name": {name}, "cidr": {cidr}, "gateway": {""}, "exclude": {exclude}, "zone": {"zone-b"}}
	}
	tests := []struct {
		form   url.Values
		status int
		want   string // in the page, or the Location
	}{
		{form("b", "10.0.0.5/24", ""), 422, `data-testid="error-cidr">cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?`},
		{form("b", "203.0.113.128/25", ""), 422, `data-testid="error-cidr">cidr 203.0.113.128/25 overlaps public pool public-zone-a (203.0.113.0/24)`},
		{form("B!", "198.51.100.0/24", ""), 422, `data-testid="error-name">name &#34;B!&#34; is not a valid name`},
		{form("b", "198.51.100.0/24", "198.51.100.9-198.51.100.2"), 422, `data-testid="error-exclude">exclude[0] &#34;198.51.100.9-198.51.100.2&#34; is a descending range`},
		{form("public-zone-b", "198.51.100.0/24", "198.51.100.2-198.51.100.9\n198.51.100.20, 198.51.100.21"), 303, "/pools/public-zone-b"},
	}
	for _, tt := range tests {
		status, header, page := c.post(t, "/pools", tt.form, c.op)
		got := page
		if status == 303 {
			got = header.Get("Location")
		}
		if status != tt.status || !strings.Contains(got, tt.want) {
			t.Errorf("POST /pools %v = %d, want %d with %s:\n%.400s", tt.form, status, tt.status, tt.want, got)
		}
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
	status, page := c.get(t, "/vpcs/acme/prod/main", c.acme)
	if status != 200 {
		t.Fatalf("GET /vpcs/acme/prod/main = %d", status)
	}
	for _, want := range []string{`data-testid="subnet-web"`, `data-testid="router"`, `203.0.113.2`, `data-testid="default-route">203.0.113.1`, `data-testid="form-attach-interface"`, `&#34;taken&#34;:&#34;10.42.1.2-10.42.1.121&#34;`} {
		if !strings.Contains(page, want) {
			t.Errorf("the VPC page lacks %s", want)
		}
	}
	tests := []struct {
		form   url.Values
		status int
		want   string
	}{
		{url.Values{"action": {"attach-interface"}, "subnet": {"web"}, "hostname": {"new-1"}, "nic": {"0"}, "predicted": {"10.42.1.122"}}, 200, `data-testid="claim-as-predicted"`},
		{url.Values{"action": {"attach-interface"}, "subnet": {"web"}, "hostname": {"new-2"}, "nic": {"0"}, "predicted": {"10.42.1.122"}}, 200, `the page predicted 10.42.1.122, but someone else claimed it first`},
		{url.Values{"action": {"attach-interface"}, "subnet": {"web"}, "hostname": {"bad host"}, "nic": {"0"}}, 422, `data-testid="claim-error">vm.hostname &#34;bad host&#34; is not a valid hostname`},
		{url.Values{"action": {"attach-interface"}, "subnet": {"web"}, "hostname": {"x"}, "nic": {"one"}}, 422, `nic &#34;one&#34; is not a number`},
		{url.Values{"action": {"claim-floating-ip"}, "name": {"www"}, "zone": {"zone-a"}, "predicted": {"203.0.113.3"}}, 200, `data-testid="claimed-address">203.0.113.3`},
		{url.Values{"action": {"create-subnet"}, "name": {"db"}, "cidr": {"10.42.1.128/25"}}, 422, `overlaps subnet web (10.42.1.0/24)`},
		{url.Values{"action": {"create-subnet"}, "name": {"db"}, "cidr": {"10.42.2.0/26"}, "predicted": {"10.42.2.0/26"}}, 200, `data-testid="claimed-address">10.42.2.0/26</strong> with gateway 10.42.2.1`},
		{url.Values{"action": {"frobnicate"}}, 400, "Unknown action"},
	}
	for _, tt := range tests {
		status, _, page := c.post(t, "/vpcs/acme/prod/main", tt.form, c.acme)
		if status != tt.status || !strings.Contains(page, tt.want) {
			i := max(strings.Index(page, `data-testid="claim`), 0)
			t.Errorf("POST %v = %d, want %d with %s:\n%.300s", tt.form, status, tt.status, tt.want, page[i:])
		}
	}
	// A refused form keeps what was typed.
	_, _, page = c.post(t, "/vpcs/acme/prod/main", url.Values{"action": {"create-subnet"}, "name": {"dup"}, "cidr": {"10.42.1.0/30"}}, c.acme)
	if !strings.Contains(page, `id="subnet-name" name="name" value="dup"`) {
		t.Error("a refused subnet form does not keep the name typed")
	}
	if status, _ := c.get(t, "/vpcs/acme/prod/main", c.gx); status != 404 {
		t.Errorf("another tenant GET of the VPC = %d, want 404", status)
	}
	if status, _, _ := c.post(t, "/vpcs/acme/prod/main", url.Values{"action": {"claim-floating-ip"}, "name": {"x"}, "zone": {"zone-a"}}, c.gx); status != 404 {
		t.Errorf("another tenant POST to the VPC = %d, want 404", status)
	}
	if status, page := c.get(t, "/vpcs", c.acme); status != 200 || !strings.Contains(page, `data-testid="vpc-acme/prod/main"`) {
		t.Errorf("GET /vpcs = %d, want acme's VPC listed", status)
	}
	if _, page := c.get(t, "/vpcs", c.gx); strings.Contains(page, "acme/prod") {
		t.Error("another tenant sees acme's VPC in /vpcs")
	}
}
