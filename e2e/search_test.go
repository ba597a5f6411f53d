package e2e

import (
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/demo"
	"pivirt.hu/ipam/internal/graphql"
	"pivirt.hu/ipam/internal/numbers"
)

// search types query into the header's search box, presses Enter and
// waits for the results.
func search(t *testing.T, page playwright.Page, query string) playwright.Locator {
	t.Helper()
	box := page.Locator("[data-testid=global-search]")
	if err := box.Fill(""); err != nil {
		t.Fatal(err)
	}
	if err := box.Focus(); err != nil {
		t.Fatal(err)
	}
	typeKeys(t, page, query, "Enter")
	results := page.Locator("[data-testid=search-results]")
	if err := results.WaitFor(); err != nil {
		t.Fatalf("no search-results after searching %q: %v", query, err)
	}
	return results
}

// TestWhoHoldsThisAddress searches from the header, as on call: an address
// a VM holds, then one nobody may hold, each hit leading to its page.
func TestWhoHoldsThisAddress(t *testing.T) {
	srv := startServer(t)
	seed(t, srv)
	password := srv.addUser(t, "acme", auth.Tenant, "acme/*")
	page := newPage(t)
	signIn(t, page, srv.URL, "acme", password)

	results := search(t, page, "10.42.1.2")
	if got := path(t, page); got != "/search?q=10.42.1.2" {
		t.Errorf("searching went to %s, want /search?q=10.42.1.2", got)
	}
	waitForText(t, page, "search-summary", `1 hit for "10.42.1.2" (an address).`)
	waitForText(t, page, "search-owner", "VirtualMachine web-01/0 (uid vm-0) of acme/prod")
	if value, err := page.Locator("[data-testid=global-search]").InputValue(); err != nil || value != "10.42.1.2" {
		t.Errorf("the search box holds %q (%v), want the query", value, err)
	}
	checkAccessibility(t, page, "/search?q=10.42.1.2")
	screenshot(t, page, "search")
	// The hit leads to the address's own page: who holds it.
	if err := results.Locator("[data-testid=search-hit-link]").Click(); err != nil {
		t.Fatal(err)
	}
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.2")
	waitForText(t, page, "address-state", "Held by VirtualMachine web-01/0")

	// Nobody holds the subnet's gateway: the search says why, and leads
	// to the address's page, which says it too.
	search(t, page, "10.42.1.1")
	waitForText(t, page, "search-explanation", "10.42.1.1 is the gateway of subnet web")
	screenshot(t, page, "search-gateway")
	if err := page.Locator("[data-testid=search-hit-link]").Click(); err != nil {
		t.Fatal(err)
	}
	waitForURL(t, page, srv.URL, "/addresses/acme/prod/vpc-main/10.42.1.1")
	waitForText(t, page, "address-state", "10.42.1.1 is the gateway of subnet web")

	// Another tenant's VPC is nothing to this one.
	search(t, page, "172.20.0.9")
	waitForText(t, page, "search-explanation", "172.20.0.9 is in no pool you may see")
}

// loadDemo loads internal/demo's example into the server's database, as
// ipam serve --demo does, and returns the passwords of its tenants by
// name.
func loadDemo(t *testing.T, srv server) map[string]string {
	t.Helper()
	ctx := t.Context()
	db, svc := services(t, srv)
	nums, err := numbers.New(ctx, numbers.Config{DB: db, URL: srv.DatabaseURL, Logger: slog.New(slog.DiscardHandler),
		Branch: branch.Config{Guard: branch.SchemaGuard(graphql.CheckSchema)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nums.Close)
	logins, _, err := demo.Load(ctx, svc, auth.NewService(db), nums)
	if err != nil {
		t.Fatal(err)
	}
	passwords := map[string]string{}
	for _, l := range logins {
		passwords[l.User] = l.Password
	}
	return passwords
}

// searchHits returns the hits of the search page shown, each as its kind
// and what it is called, and its holder after "held by" when it has one.
func searchHits(t *testing.T, page playwright.Page) []string {
	t.Helper()
	out, err := page.Locator("[data-testid=search-hit]").EvaluateAll(`rows => rows.map(r => {
		const holder = r.querySelector("[data-testid=search-holder]");
		return r.dataset.kind + ": " + r.querySelector("[data-testid=search-hit-link]").textContent.trim() +
			(holder ? " held by " + holder.textContent.trim() : "");
	})`)
	if err != nil {
		t.Fatal(err)
	}
	var hits []string
	for _, h := range out.([]any) {
		hits = append(hits, h.(string))
	}
	return hits
}

// TestSearchAcrossTheProduct searches the demo's data from the header's
// box: a site by its name (site-a, and the VLANs named after it), a
// number (100: VLAN 100 in each site, with the VLAN holding it), an
// object by its display label (users-site-a), the start of an address
// (10.42.1.: what lies in 10.42.1.0/24), each hit leading to its page;
// then as the tenants: acme finds its own addresses in 10.42.1. and no
// object of kinds, globex none of acme's addresses. On a phone in dark
// mode the results fit the screen; axe-core finds no serious or critical
// violation, in either mode.
func TestSearchAcrossTheProduct(t *testing.T) {
	srv := startServer(t)
	passwords := loadDemo(t, srv)
	page := newPage(t)
	signIn(t, page, srv.URL, "admin", srv.AdminPassword)

	tests := []struct {
		query, summary string
		want           []string
	}{
		{"site-a", `4 hits for "site-a" (a name, uid or namespace).`,
			[]string{"object: site-a", "object: mgmt-site-a", "object: users-site-a", "object: voice-site-a"}},
		{"100", `2 hits for "100" (a name, uid or namespace).`,
			[]string{"number: 100 in site-a held by IpamVLAN users-site-a", "number: 100 in site-b held by IpamVLAN users-site-b"}},
		{"users-site-a", `1 hit for "users-site-a" (a name, uid or namespace).`, []string{"object: users-site-a"}},
	}
	for _, tt := range tests {
		search(t, page, tt.query)
		waitForText(t, page, "search-summary", tt.summary)
		if got := searchHits(t, page); !slices.Equal(got, tt.want) {
			t.Errorf("searching %q found %q, want %q", tt.query, got, tt.want)
		}
	}
	checkAccessibility(t, page, "/search?q=users-site-a")
	// The object leads to its page.
	click(t, page, "[data-testid=search-hit-link]")
	if err := page.GetByLabel("name").First().WaitFor(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path(t, page), "/objects/IpamVLAN/") {
		t.Errorf("the hit of users-site-a led to %s, want its page", path(t, page))
	}

	// A number leads to its division in the pool's page; its holder to
	// the VLAN.
	search(t, page, "100")
	waitForText(t, page, "search-summary", `2 hits for "100" (a name, uid or namespace).`)
	checkAccessibility(t, page, "/search?q=100")
	screenshot(t, page, "search-number")
	click(t, page, "[data-testid=search-hit] >> nth=0 >> [data-testid=search-holder]")
	if !strings.HasPrefix(path(t, page), "/objects/IpamVLAN/") {
		t.Errorf("the holder of 100 in site-a led to %s, want the VLAN's page", path(t, page))
	}
	search(t, page, "100")
	waitForText(t, page, "search-summary", `2 hits for "100" (a name, uid or namespace).`)
	click(t, page, "[data-testid=search-hit] >> nth=0 >> [data-testid=search-hit-link]")
	if got := path(t, page); !strings.HasPrefix(got, "/resource-managers/") || !strings.Contains(got, "division=") {
		t.Errorf("the number 100 in site-a led to %s, want its division of the pool", got)
	}

	// The start of an address.
	search(t, page, "10.42.1.")
	waitForSummary(t, page, `^\d+ hits for "10\.42\.1\." \(the start of an address: 10\.42\.1\.0/24\)\.\s*$`)
	first := searchHits(t, page)
	if !slices.Contains(first, "subnet: web") || !slices.ContainsFunc(first, func(h string) bool { return strings.HasPrefix(h, "allocation: 10.42.1.") }) {
		t.Errorf("searching 10.42.1. found %q, want subnet web and the addresses in it", first)
	}
	for _, h := range first {
		if kind, name, _ := strings.Cut(h, ": "); kind == "allocation" && !strings.HasPrefix(name, "10.42.1.") {
			t.Errorf("searching 10.42.1. found %s", h)
		}
	}
	checkAccessibility(t, page, "/search?q=10.42.1.")

	// The phone, dark, without JavaScript.
	phone := newPhoneCheck(t, srv)
	dark := newPageWith(t, phoneInTheDark)
	signIn(t, dark, srv.URL, "admin", srv.AdminPassword)
	for _, q := range []string{"100", "site-a", "10.42.1."} {
		if _, err := dark.Goto(srv.URL + "/search?" + url.Values{"q": {q}}.Encode()); err != nil {
			t.Fatal(err)
		}
		phone.check(t, dark, "/search?q="+q+" on a phone in dark mode")
	}

	// The tenants: acme finds what it holds and no object of kinds; globex
	// none of acme's addresses.
	tenant := newPage(t)
	signIn(t, tenant, srv.URL, "acme", passwords["acme"])
	search(t, tenant, "10.42.1.")
	waitForSummary(t, tenant, `^\d+ hits for "10\.42\.1\." \(the start of an address: 10\.42\.1\.0/24\)\.\s*$`)
	if got := searchHits(t, tenant); !slices.Equal(got, first) {
		t.Errorf("acme searching 10.42.1. found %q, want what the operator found: %q", got, first)
	}
	for _, q := range []string{"site-a", "100", "users-site-a"} {
		search(t, tenant, q)
		waitForText(t, tenant, "search-summary", `Nothing you may see matches "`+q+`" (a name, uid or namespace).`)
	}
	other := newPage(t)
	signIn(t, other, srv.URL, "globex", passwords["globex"])
	search(t, other, "10.42.1.")
	waitForText(t, other, "search-summary", `Nothing you may see matches "10.42.1." (the start of an address: 10.42.1.0/24).`)
	search(t, other, "172.20.0.")
	waitForSummary(t, other, `^\d+ hits for "172\.20\.0\." \(the start of an address: 172\.20\.0\.0/24\)\.\s*$`)
	if got := searchHits(t, other); !slices.Contains(got, "subnet: apps") || slices.ContainsFunc(got, func(h string) bool { return strings.Contains(h, "10.42.") }) {
		t.Errorf("globex searching 172.20.0. found %q, want its subnet apps and nothing of acme's", got)
	}
}

// waitForSummary waits until the search's summary matches pattern.
func waitForSummary(t *testing.T, page playwright.Page, pattern string) {
	t.Helper()
	loc := page.Locator("[data-testid=search-summary]")
	if err := playwright.NewPlaywrightAssertions(patience).Locator(loc).ToHaveText(regexp.MustCompile(pattern)); err != nil {
		got, _ := loc.TextContent()
		t.Fatalf("the search's summary = %q, want %s", got, pattern)
	}
}
