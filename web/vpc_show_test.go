package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

func TestCreateSubnetBySize(t *testing.T) {
	c := newConsoleWithData(t)
	status, body := c.get(t, "/vpcs/acme/prod/main", c.acme)
	if status != 200 {
		t.Fatalf("GET /vpcs/acme/prod/main = %d", status)
	}
	page := parseHTML(body)
	sizes := page.all("subnet-size")
	if len(sizes) != 1 || attrOf(sizes[0], "name") != "prefixLength" {
		t.Fatalf("the create-subnet form has %d size selects, want one named prefixLength", len(sizes))
	}
	values, selected := options(sizes[0])
	if want := ",16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31"; strings.Join(values, ",") != want || selected != "" {
		t.Errorf("the size select offers %q with %q selected, want %q with none", strings.Join(values, ","), selected, want)
	}
	form := page.all("form-create-subnet")
	if len(form) != 1 || attrOf(form[0], "method") != "post" {
		t.Fatal("the page has no create-subnet form posting without JavaScript")
	}
	if got := len(htmlPage{form[0]}.all("predicted-subnet")); got != 1 {
		t.Errorf("the create-subnet form has %d predicted-subnet elements, want 1", got)
	}

	post := func(form url.Values) (int, htmlPage) {
		t.Helper()
		status, _, page := c.postFollow(t, "/vpcs/acme/prod/main/-/create-subnet", form, c.acme)
		return status, page
	}
	// As predicted: the lowest free /24 is below web's 10.42.1.0/24.
	status, page = post(url.Values{"name": {"db"}, "prefixLength": {"24"}, "predicted": {"10.42.0.0/24"}})
	if got := page.text("claim-result"); status != 303 || got != "Created subnet db: 10.42.0.0/24 with gateway 10.42.0.1 — as predicted." {
		t.Errorf("creating a /24 as predicted = %d %q", status, got)
	}
	// Someone took the predicted block first: the page says so.
	status, page = post(url.Values{"name": {"cache"}, "prefixLength": {"/24"}, "predicted": {"10.42.0.0/24"}})
	if status != 303 || page.text("claimed-address") != "10.42.2.0/24" ||
		!strings.Contains(page.text("claim-differs"), "the page predicted 10.42.0.0/24, but someone else claimed it first") {
		t.Errorf("creating a /24 predicted at a taken block = %d %q %q", status, page.text("claimed-address"), page.text("claim-differs"))
	}
	// A CIDR works as before.
	status, page = post(url.Values{"name": {"ops"}, "cidr": {"10.42.3.0/26"}, "gateway": {"10.42.3.62"}, "predicted": {"10.42.3.0/26"}})
	if status != 303 || page.text("claimed-address") != "10.42.3.0/26" || len(page.all("claim-as-predicted")) != 1 || !strings.Contains(page.text("claim-result"), "with gateway 10.42.3.62") {
		t.Errorf("creating a subnet by CIDR = %d %q", status, page.text("claim-result"))
	}
	// The page now carries every subnet for the next prediction.
	dataNodes := page.all("claim-data")
	if len(dataNodes) != 1 {
		t.Fatalf("the page has %d claim-data elements, want 1", len(dataNodes))
	}
	var data candidates.ClaimsSpec
	if err := json.Unmarshal([]byte(attrOf(dataNodes[0], "data-claims")), &data); err != nil {
		t.Fatal(err)
	}
	var subnets []string
	for _, s := range data.Subnets {
		subnets = append(subnets, s.Name+" "+s.CIDR)
	}
	if data.Pool.CIDR != "10.42.0.0/16" || data.VPC != "main" || strings.Join(subnets, ", ") != "db 10.42.0.0/24, web 10.42.1.0/24, cache 10.42.2.0/24, ops 10.42.3.0/26" {
		t.Errorf("the page's claim data is %s %s %v", data.Pool.CIDR, data.VPC, subnets)
	}
	// What the page predicts next is what the server gives next.
	claims, err := candidates.ParseClaims(data)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := claims.Subnet(candidates.SubnetSpec{PrefixLength: 24})
	if err != nil || plan.Prefix.String() != "10.42.4.0/24" {
		t.Errorf("the page predicts the next /24 at %v (%v), want 10.42.4.0/24", plan.Prefix, err)
	}

	refusals := []struct {
		form   url.Values
		testid string // of the message, in the form (claim-error: above it)
		want   string
	}{
		{url.Values{"name": {"x"}, "prefixLength": {"24"}, "cidr": {"10.42.9.0/24"}}, "error-cidr", "CIDR and prefixLength both name the subnet's prefix: give one of them"},
		{url.Values{"name": {"x"}}, "error-cidr", "CIDR or prefixLength is required: the subnet's prefix, or its length to take the lowest free one"},
		{url.Values{"name": {"x"}, "prefixLength": {"big"}}, "error-prefixLength", `Prefix length "big" is not a prefix length such as 24`},
		{url.Values{"name": {"x"}, "prefixLength": {"15"}}, "error-prefixLength", "Prefix length 15 is out of range for VPC main's 10.42.0.0/16: 16 to 31"},
		{url.Values{"name": {"x"}, "prefixLength": {"16"}}, "claim-error", "vpc main has no free /16 in 10.42.0.0/16"},
	}
	for _, tt := range refusals {
		status, page := post(tt.form)
		if tt.testid != "claim-error" {
			page = page.in("form-create-subnet")
		}
		if status != 422 || page.text(tt.testid) != tt.want {
			t.Errorf("POST %v = %d %q, want 422 %q", tt.form, status, page.text(tt.testid), tt.want)
		}
		// What was chosen is kept.
		values, selected := options(page.all("subnet-size")[0])
		if want := tt.form.Get("prefixLength"); slices.Contains(values, want) && selected != want {
			t.Errorf("after POST %v the size select has %q selected, want %q", tt.form, selected, want)
		}
	}
}

func TestVPCPageDefaultRoute(t *testing.T) {
	c := newConsoleWithData(t)
	ctx := t.Context()
	if _, err := c.svc.CreatePublicPool(ctx, auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-n", CIDR: "198.51.100.0/24", Zone: "zone-n"}); err != nil {
		t.Fatal(err)
	}
	for _, in := range []ipam.CreateVPCInput{
		{Namespace: "acme/prod", Name: "dark", CIDR: "10.50.0.0/16", Zone: "zone-n"},
		{Namespace: "acme/prod", Name: "island", CIDR: "10.60.0.0/16"},
	} {
		if _, err := c.svc.CreateVPC(ctx, auth.System, in); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		vpc, router, route string
	}{
		{"main", "203.0.113.2 from public-zone-a in zone-a", "203.0.113.1"},
		{"dark", "198.51.100.1 from public-zone-n in zone-n", "no default route: pool public-zone-n has no gateway"},
		{"island", "none: the VPC has no zone", ""},
	}
	for _, tt := range tests {
		status, body := c.get(t, "/vpcs/acme/prod/"+tt.vpc, c.acme)
		page := parseHTML(body)
		if status != 200 || page.text("router") != tt.router || page.text("default-route") != tt.route || len(page.all("default-route")) != 1 {
			t.Errorf("VPC %s: %d, router %q, default route %q; want router %q, default route %q",
				tt.vpc, status, page.text("router"), page.text("default-route"), tt.router, tt.route)
		}
	}
}

// A claim is answered by a redirect to the VPC page, which says once what
// the claim got: reloading the page shows it no more and claims nothing.
func TestClaimAnswersWithARedirect(t *testing.T) {
	c := newConsoleWithData(t)
	if _, err := c.svc.CreateVPC(t.Context(), auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "other", CIDR: "10.43.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	form := url.Values{"subnet": {"web"}, "hostname": {"new-1"}, "nic": {""}, "predicted": {"10.42.1.122"}}
	status, header, body := c.post(t, "/vpcs/acme/prod/main/-/attach-interface", form, c.acme)
	if status != 303 || header.Get("Location") != "/vpcs/acme/prod/main" || parseHTML(body).has("claim-result") {
		t.Fatalf("POST attach-interface = %d to %q, want 303 to /vpcs/acme/prod/main and no page", status, header.Get("Location"))
	}
	before := c.allocations(t)
	// Another page does not take the VPC page's message.
	if _, body := c.get(t, "/vpcs/acme/prod/other", c.acme); parseHTML(body).has("claim-result") {
		t.Error("another VPC's page shows the claim's message")
	}
	_, body = c.get(t, "/vpcs/acme/prod/main", c.acme)
	if got := parseHTML(body).text("claim-result"); got != "Attached new-1/0: 10.42.1.122 — as predicted." {
		t.Errorf("the VPC page after the claim says %q", got)
	}
	_, body = c.get(t, "/vpcs/acme/prod/main", c.acme)
	if page := parseHTML(body); page.has("claim-result") || !page.has("form-attach-interface") {
		t.Errorf("reloading the VPC page shows the claim's message again: %q", page.text("claim-result"))
	}
	if after := c.allocations(t); after != before {
		t.Errorf("reloading the page made claims: %d allocations, then %d", before, after)
	}
	// Another user's session has no message of acme's.
	if _, body := c.get(t, "/vpcs/acme/prod/main", c.op); parseHTML(body).has("claim-result") {
		t.Error("the operator's VPC page shows acme's claim")
	}
}

// htmx follows the redirect of a form it posts (the browser's request does,
// with htmx's headers), and gets the page with what the claim got.
func TestClaimByHTMX(t *testing.T) {
	c := newConsoleWithData(t)
	htmx := func(who http.Header) http.Header {
		h := http.Header{"Hx-Request": {"true"}, "Hx-Target": {"main"}, "Hx-Current-Url": {"http://console.example/vpcs/acme/prod/main"}}
		for k, vs := range who {
			h[k] = vs
		}
		return h
	}
	form := url.Values{"name": {"www"}, "zone": {"zone-a"}, "predicted": {"203.0.113.3"}}
	status, header, _ := c.post(t, "/vpcs/acme/prod/main/-/claim-floating-ip", form, htmx(c.acme))
	if status != 303 || header.Get("Location") != "/vpcs/acme/prod/main" {
		t.Fatalf("htmx POST claim-floating-ip = %d to %q, want 303 to the VPC page", status, header.Get("Location"))
	}
	res := do(t, c.h, http.MethodGet, header.Get("Location"), htmx(c.acme))
	page := parseHTML(string(readBody(t, res)))
	if res.StatusCode != 200 || page.text("claimed-address") != "203.0.113.3" || !page.has("claim-as-predicted") || !page.has("form-claim-floating-ip") {
		t.Errorf("htmx GET after the claim = %d, claimed %q", res.StatusCode, page.text("claimed-address"))
	}
	// A refused form is answered at once, 422, with the form.
	status, _, body := c.post(t, "/vpcs/acme/prod/main/-/claim-floating-ip", url.Values{"name": {"Bad"}, "zone": {"zone-a"}}, htmx(c.acme))
	if page := parseHTML(body); status != 422 || !strings.HasPrefix(page.in("form-claim-floating-ip").text("error-name"), `Name "Bad" is not a valid name`) {
		t.Errorf("htmx POST of a refused form = %d %q", status, page.in("form-claim-floating-ip").text("error-name"))
	}
}

// The VPC list reads the VPCs in a constant number of statements, however
// many there are.
func TestVPCListStatements(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	proxy, through := pgtest.NewProxy(t, dbURL)
	db, err := store.Open(t.Context(), through)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := testIPAM(t, db)
	h := newConsole(t, db)
	session := cookieHeader(signIn(t, h, "ops", addUser(t, db, "ops", auth.Operator)))
	if _, err := svc.CreatePublicPool(t.Context(), auth.System, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	list := func(vpcs int) int64 {
		t.Helper()
		for i := range vpcs {
			name := fmt.Sprintf("v%d-%d", vpcs, i)
			if _, err := svc.CreateVPC(t.Context(), auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: name, CIDR: "10.0.0.0/16", Zone: "zone-a"}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateSubnet(t.Context(), auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: name, Name: "web", PrefixLength: 24}); err != nil {
				t.Fatal(err)
			}
		}
		before := proxy.Statements()
		res := do(t, h, http.MethodGet, "/vpcs", session)
		page := parseHTML(string(readBody(t, res)))
		if res.StatusCode != 200 || len(page.testIDs("vpc-acme/prod/")) == 0 {
			t.Fatalf("GET /vpcs = %d with rows %v", res.StatusCode, page.testIDs("vpc-"))
		}
		return proxy.Statements() - before
	}
	// The first page reads the schema of main for the navigation's
	// Objects menu, once: the branch service caches it.
	readBody(t, do(t, h, http.MethodGet, "/vpcs", session))
	one, many := list(1), list(20)
	if one != many {
		t.Errorf("GET /vpcs ran %d statements for 1 VPC and %d for 21", one, many)
	}
	t.Logf("GET /vpcs runs %d statements, for 1 VPC or 21", one)
}
